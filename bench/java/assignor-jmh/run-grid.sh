#!/bin/sh
# The grid as reported in bench/README.md: one JMH invocation per block, CSV per block in
# target/results/. 10,000 members x 50 partitions per member (500,000 partitions) runs one
# cell pair only: rackwise takes seconds per call there (see the README).
set -eu
cd "$(dirname "$0")"
mkdir -p target/results
JMH="java -jar target/benchmarks.jar -wi 2 -i 3 -w 1s -r 1s -f 1 -rf csv"
$JMH -rff target/results/broker-100-1000.csv BrokerAssignorBenchmark -p members=100,1000
$JMH -rff target/results/broker-10000x10.csv BrokerAssignorBenchmark -p members=10000 -p partitionsPerMember=10
$JMH -rff target/results/broker-10000x50.csv BrokerAssignorBenchmark -p members=10000 -p partitionsPerMember=50 \
    -p topics=100 -p subscription=HOMOGENEOUS
$JMH -rff target/results/classic-100-1000x10.csv ClassicAssignorBenchmark -p members=100,1000 -p partitionsPerMember=10
