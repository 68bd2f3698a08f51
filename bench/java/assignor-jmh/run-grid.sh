#!/bin/sh
# The grid as reported in bench/README.md: one JMH invocation per block, a CSV per block in
# target/results/. Blocks 2 and 3 are subsets (the README says which cells were skipped and
# why); the whole grid is `java -jar target/benchmarks.jar BrokerAssignorBenchmark` with the
# same options. Usage: ./run-grid.sh [1|2|3]  (all blocks by default)
set -eu
cd "$(dirname "$0")"
mkdir -p target/results
JMH="java -jar target/benchmarks.jar -wi 2 -i 3 -w 1s -r 1s -f 1 -rf csv"
block="${1:-all}"
if [ "$block" = all ] || [ "$block" = 1 ]; then
    $JMH -rff target/results/broker-100-1000.csv BrokerAssignorBenchmark -p members=100,1000
fi
if [ "$block" = all ] || [ "$block" = 2 ]; then
    # 10,000 members x 10: one cell, unweighted (rackwise weighted took 183 s per call here).
    $JMH -rff target/results/broker-10000x10.csv BrokerAssignorBenchmark -p members=10000 \
        -p partitionsPerMember=10 -p topics=100 -p subscription=HOMOGENEOUS \
        -p assignor=RACKS_PASS,UNIFORM,RANGE,RACKWISE
fi
if [ "$block" = all ] || [ "$block" = 3 ]; then
    $JMH -rff target/results/classic-100-1000x10.csv ClassicAssignorBenchmark -p members=100,1000 \
        -p partitionsPerMember=10 -p topics=10
fi
