package dev.rackwise.bench.jmh;

import java.util.Arrays;
import java.util.TreeMap;

import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.GroupAssignment;

/**
 * One cell of {@link ClassicAssignorBenchmark} outside JMH, as {@link BrokerCpuDrive} does for
 * the broker side: the calling thread's CPU time per assign() call (median and 10th percentile
 * over {@code iterations} calls, after as many warm-up calls), the bytes it allocates per call
 * (median), and a hash of the whole assignment (members by id, each member's partitions in the
 * order the assignor lists them), so that two plug-in jars (the first on the class path wins)
 * can be checked for identical answers and timed alike.
 *
 * <p>Args: members partitionsPerMember topics HOMOGENEOUS|HETEROGENEOUS FULL|INCREMENTAL
 * COOPERATIVE_STICKY|RACKWISE|RACKWISE_WEIGHTED iterations. bench/README.md has the use.
 */
public final class ClassicCpuDrive {
    private ClassicCpuDrive() {
    }

    public static void main(String[] a) {
        Grid grid = new Grid(Integer.parseInt(a[0]), Integer.parseInt(a[1]), Integer.parseInt(a[2]),
            a[3].equals("HETEROGENEOUS"), a[4].equals("INCREMENTAL"));
        ClassicCase c = new ClassicCase(grid, ClassicCase.Assignor.valueOf(a[5]));
        int iters = Integer.parseInt(a[6]);
        GroupAssignment first = c.assign();
        StringBuilder sb = new StringBuilder();
        new TreeMap<>(first.groupAssignment()).forEach((m, x) -> sb.append(m).append(x.partitions()).append('\n'));
        CpuPerCall.print(String.join(" ", Arrays.copyOfRange(a, 0, 6)), sb.toString().hashCode(), c::assign, iters);
    }
}
