package dev.rackwise.bench.jmh;
import java.util.*;

/**
 * One cell of {@link StreamsGroupAssignorBenchmark} outside JMH, for a loaded machine: the
 * calling thread's CPU time per call (median and 10th percentile over {@code iterations} calls,
 * after as many warm-up calls) and a hash of the whole assignment (every member's active and
 * standby tasks), so two plug-in jars can be checked for identical answers. DUMP=1 prints it.
 * Args: members partitions subtopologies standbys perProcess FULL|INCREMENTAL RACKWISE|STICKY
 * iterations. bench/README.md ("Streams task core: the speed pass") has the use.
 */
public class StreamsCpuDrive {
    public static void main(String[] a) throws Exception {
        StreamsGroupAssignorBenchmark b = new StreamsGroupAssignorBenchmark();
        b.memberCount = Integer.parseInt(a[0]);
        b.partitionCount = Integer.parseInt(a[1]);
        b.subtopologyCount = Integer.parseInt(a[2]);
        b.standbyReplicas = Integer.parseInt(a[3]);
        b.membersPerProcess = Integer.parseInt(a[4]);
        b.assignmentType = StreamsGroupAssignorBenchmark.AssignmentType.valueOf(a[5]);
        b.assignor = a[6];
        int iters = Integer.parseInt(a[7]);
        b.setup();
        var res = b.assign();
        StringBuilder sb = new StringBuilder();
        new TreeMap<>(res.members()).forEach((m, x) -> {
            sb.append(m).append(" A").append(new TreeMap<>(x.activeTasks())).append(" S").append(new TreeMap<>(x.standbyTasks())).append('\n');
        });
        if (System.getenv("DUMP") != null) System.out.print(sb);
        var mx = java.lang.management.ManagementFactory.getThreadMXBean();
        for (int i = 0; i < iters; i++) b.assign(); // warm-up, as many as measured
        long[] cpu = new long[iters];
        long t0 = System.nanoTime();
        for (int i = 0; i < iters; i++) { long c0 = mx.getCurrentThreadCpuTime(); b.assign(); cpu[i] = mx.getCurrentThreadCpuTime() - c0; }
        long t1 = System.nanoTime();
        Arrays.sort(cpu);
        System.out.printf("cpu median=%.3f ms p10=%.3f ms  ", cpu[iters / 2] / 1e6, cpu[iters / 10] / 1e6);
        System.out.printf("%s %s %s hash=%08x avg=%.3f ms over %d%n", String.join(" ", Arrays.copyOfRange(a, 0, 7)),
            "", "", sb.toString().hashCode(), (t1 - t0) / 1e6 / Math.max(1, iters), iters);
    }
}
