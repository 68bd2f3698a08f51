#!/bin/sh
# Thread CPU and allocation per assign() call, old jar against new jar against Kafka's uniform,
# one JVM per (cell, assignor), on BrokerAssignorBenchmark's inputs (BrokerCpuDrive). For a
# shared machine where wall-clock JMH is noise. The old jar goes first on the class path.
# Usage: OLD=/path/to/old-rackwise-plugins.jar CELLS="1000 10 100;5000 5 100" ./cpu-table.sh > out.tsv
set -eu
cd "$(dirname "$0")"
CELLS="${CELLS:-1000 10 100;5000 10 100;10000 10 100}"
ASSIGNORS="${ASSIGNORS:-UNIFORM RACKWISE}"
ITERS="${ITERS:-100}"
printf 'members\tppm\ttopics\tsubscription\tassignment\tassignor\tjar\tcpu_median_ms\tcpu_p10_ms\talloc_mb\thash\n'
echo "$CELLS" | tr ';' '\n' | while read -r m k t; do
    [ -n "$m" ] || continue
    for sub in HOMOGENEOUS HETEROGENEOUS; do
        for kind in FULL INCREMENTAL; do
            for a in $ASSIGNORS; do
                for jar in new old; do
                    if [ "$jar" = old ]; then
                        case "$a" in RACKWISE*) ;; *) continue ;; esac
                        [ -n "${OLD:-}" ] || continue
                        cp="$OLD:target/benchmarks.jar"
                    else
                        cp=target/benchmarks.jar
                    fi
                    line=$(java -Xmx8g -cp "$cp" dev.rackwise.bench.jmh.BrokerCpuDrive "$m" "$k" "$t" "$sub" "$kind" "$a" "$ITERS" 2>/dev/null | grep cpu_median) || line="failed"
                    echo "$line" | awk -v jar="$jar" '{ split($7, c, "="); split($8, p, "="); split($9, b, "="); split($10, h, "=");
                        printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", $1, $2, $3, $4, $5, $6, jar, c[2], p[2], b[2], h[2] }'
                done
            done
        done
    done
done
