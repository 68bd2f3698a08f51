#!/bin/bash
# classic adapter grid: coop-sticky, rackwise before (base) and after (new2), one loop, thread CPU per call
cd /work/main/bench/java/assignor-jmh
out=/tmp/s12/cgrid/classic.txt
echo "# start $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg)" >> $out
for m in 100 1000 10000; do for ppm in 10 50; do for topics in 10 100; do for sub in HOMOGENEOUS HETEROGENEOUS; do for kind in FULL INCREMENTAL; do
  parts=$((m*ppm))
  if [ $m = 10000 ] && { [ $ppm = 50 ] || [ $sub = HETEROGENEOUS ]; }; then continue; fi
  it=200; [ $parts -ge 50000 ] && it=40; [ $parts -ge 100000 ] && it=20
  if grep -q "^new2 $m $ppm $topics $sub $kind " $out && grep -q "^coop $m $ppm $topics $sub $kind " $out; then continue; fi
  for a in base new2; do
    grep -q "^$a $m $ppm $topics $sub $kind " $out && continue
    java -Xmx8g -cp /tmp/s12/$a/rackwise-plugins.jar:target/benchmarks.jar dev.rackwise.bench.jmh.ClassicCpuDrive $m $ppm $topics $sub $kind RACKWISE $it 2>&1 | tail -1 | sed "s/^/$a /" >> $out
  done
  cit=$it; [ $sub = HETEROGENEOUS ] && cit=10; [ $sub = HETEROGENEOUS ] && [ $m -ge 1000 ] && cit=2
  if [ $sub = HETEROGENEOUS ] && [ $m -ge 1000 ] && [ $ppm = 50 ]; then echo "coop $m $ppm $topics $sub $kind COOPERATIVE_STICKY skipped (minutes a call)" >> $out; continue; fi
  timeout 600 java -Xmx8g -cp target/benchmarks.jar dev.rackwise.bench.jmh.ClassicCpuDrive $m $ppm $topics $sub $kind COOPERATIVE_STICKY $cit 2>&1 | tail -1 | sed "s/^/coop /" >> $out
done; done; done; done; done
echo "# end $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg)" >> $out
