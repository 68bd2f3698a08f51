#!/bin/sh
# A short smoke of four cells (1,000 and 10,000 members x 10 per member over 100 topics,
# homogeneous, full and incremental), rackwise and uniform, unweighted: one fork, one warm-up
# and two measured iterations. Not a measurement to publish (run-grid.sh is).
# Usage: ./smoke.sh [benchmarks.jar] [out.csv]
set -eu
cd "$(dirname "$0")"
JAR="${1:-target/benchmarks.jar}"
OUT="${2:-target/results/smoke.csv}"
mkdir -p "$(dirname "$OUT")"
uptime
java -jar "$JAR" -f 1 -wi 1 -i 2 -w 1s -r 1s -rf csv -rff "$OUT" BrokerAssignorBenchmark \
    -p members=1000,10000 -p partitionsPerMember=10 -p topics=100 -p subscription=HOMOGENEOUS \
    -p assignment=FULL,INCREMENTAL -p assignor=UNIFORM,RACKWISE
uptime
