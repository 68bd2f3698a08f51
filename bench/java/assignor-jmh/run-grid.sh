#!/bin/sh
# The grid as reported in bench/README.md: one JMH invocation per block, a CSV per block in
# target/results/. Blocks 2 and 3 are subsets (the README says which cells were skipped and
# why); the whole grid is `java -jar target/benchmarks.jar BrokerAssignorBenchmark` with the
# same options. Usage: ./run-grid.sh [1|2|3]  (blocks 1-3 by default)
#        ./run-grid.sh streams        streams groups (KIP-1357): rackwise against Kafka's sticky on
#                                     the grid of Kafka's StreamsStickyAssignorBenchmark, 3 racks,
#                                     RF 2 (StreamsGroupAssignorBenchmark; long: a quiet machine)
#        ./run-grid.sh streams-smoke  one small cell of it, both assignors, FULL and INCREMENTAL
set -eu
cd "$(dirname "$0")"
mkdir -p target/results
JMH="java -jar target/benchmarks.jar -wi 2 -i 3 -w 1s -r 1s -f 1 -rf csv"
block="${1:-all}"
if [ "$block" = streams ]; then
    $JMH -rff target/results/streams-group-grid.csv StreamsGroupAssignorBenchmark \
        | tee target/results/streams-group-grid.log
    grep -o 'CROSS-RACK.*' target/results/streams-group-grid.log > target/results/streams-group-grid-crossrack.txt
    exit 0
fi
if [ "$block" = streams-smoke ]; then
    java -jar target/benchmarks.jar -wi 1 -i 2 -w 1s -r 1s -f 1 -rf csv \
        -rff target/results/streams-group-smoke.csv StreamsGroupAssignorBenchmark \
        -p memberCount=100 -p partitionCount=10 -p subtopologyCount=10 -p standbyReplicas=1 \
        -p membersPerProcess=1 | tee target/results/streams-group-smoke.log
    grep -o 'CROSS-RACK.*' target/results/streams-group-smoke.log
    exit 0
fi
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
