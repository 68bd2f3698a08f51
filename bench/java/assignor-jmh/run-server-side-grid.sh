#!/bin/sh
# Kafka's ServerSideAssignorBenchmark grid, whole, for the broker side (bench/README.md):
# members 100, 1,000, 5,000, 10,000 x partitions per member 5, 10, 50 x topics 10, 100, 1,000
# x homogeneous/heterogeneous x full/incremental, each with racks pass, uniform, range,
# rackwise (unweighted) and rackwise weighted; 3 racks, RF 2 (Grid). Writes one JMH CSV per
# (members, per member, topics) and one CrossRack TSV to target/results/grid/, then the
# markdown table to target/results/grid/table.md.
#
# Trimmed: cells with fewer than one partition per topic (members x per member < topics:
# 100 x 5 over 1,000 topics), which Kafka's benchmark cannot build either. A call that
# takes longer than JMH's timeout (-to, 10 min per iteration) fails its cell, not the run.
#
# Usage (a quiet machine; hours, not minutes):
#   mvn -B -q -f ../../../plugins/pom.xml package && mvn -B -q package && ./run-server-side-grid.sh
# Environment: MEMBERS, PPM, TOPICS (space lists) narrow the grid; ASSIGNORS (a comma list of
# BrokerAssignorBenchmark's assignors, e.g. UNIFORM,RACKWISE) narrows JMH and CrossRack; JMH_OPTS
# replaces the defaults below.
set -eu
cd "$(dirname "$0")"
OUT="${OUT:-target/results/grid}"
mkdir -p "$OUT"
rm -f "$OUT/crossrack.tsv" "$OUT/skipped.txt" "$OUT/uptime.txt"
MEMBERS="${MEMBERS:-100 1000 5000 10000}"
PPM="${PPM:-5 10 50}"
TOPICS="${TOPICS:-10 100 1000}"
JMH_OPTS="${JMH_OPTS:--wi 2 -i 3 -w 1s -r 1s -f 1 -to 10m}"
ASSIGNORS="${ASSIGNORS:-RACKS_PASS,UNIFORM,RANGE,RACKWISE,RACKWISE_WEIGHTED}"
uptime | tee "$OUT/uptime.txt"
CSVS=""
for m in $MEMBERS; do
    for k in $PPM; do
        for t in $TOPICS; do
            if [ $((m * k / t)) -lt 1 ]; then
                echo "skip $m x $k over $t topics: fewer than one partition per topic" | tee -a "$OUT/skipped.txt"
                continue
            fi
            csv="$OUT/broker-$m-$k-$t.csv"
            # shellcheck disable=SC2086
            java -jar target/benchmarks.jar $JMH_OPTS -rf csv -rff "$csv" BrokerAssignorBenchmark \
                -p members="$m" -p partitionsPerMember="$k" -p topics="$t" \
                -p subscription=HOMOGENEOUS,HETEROGENEOUS -p assignment=FULL,INCREMENTAL \
                -p assignor="$ASSIGNORS" \
                || echo "cell $m x $k x $t: JMH failed (see its log)" | tee -a "$OUT/skipped.txt"
            [ -s "$csv" ] && CSVS="$CSVS $csv"
            # Cross-rack figures of the same inputs, one assign() per cell and assignor.
            java -Xmx6g -cp target/benchmarks.jar dev.rackwise.bench.jmh.CrossRack broker "$m" "$k" "$t" BOTH "$ASSIGNORS" \
                | { if [ -s "$OUT/crossrack.tsv" ]; then tail -n +2; else cat; fi; } >> "$OUT/crossrack.tsv"
        done
    done
done
uptime | tee -a "$OUT/uptime.txt"
# shellcheck disable=SC2086
python3 table.py broker "$OUT/crossrack.tsv" $CSVS > "$OUT/table.md"
echo "table: $OUT/table.md"
