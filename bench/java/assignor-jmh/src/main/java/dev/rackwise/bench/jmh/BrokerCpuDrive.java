package dev.rackwise.bench.jmh;

import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

import org.apache.kafka.coordinator.group.api.assignor.GroupAssignment;

/**
 * One cell of {@link BrokerAssignorBenchmark} outside JMH, for a shared machine: the calling
 * thread's CPU time per assign() call (median and 10th percentile over {@code iterations} calls,
 * after as many warm-up calls), the bytes it allocates per call (median), and a hash of the
 * whole assignment, so that two plug-in jars (the first on the class path wins) can be checked
 * for identical answers and timed alike.
 *
 * <p>Args: members partitionsPerMember topics HOMOGENEOUS|HETEROGENEOUS FULL|INCREMENTAL
 * UNIFORM|RACKWISE|RACKWISE_WEIGHTED|RANGE iterations. bench/README.md has the use.
 */
public final class BrokerCpuDrive {
    private BrokerCpuDrive() {
    }

    public static void main(String[] a) {
        Grid grid = new Grid(Integer.parseInt(a[0]), Integer.parseInt(a[1]), Integer.parseInt(a[2]),
            a[3].equals("HETEROGENEOUS"), a[4].equals("INCREMENTAL"));
        BrokerCase c = new BrokerCase(grid, BrokerCase.Assignor.valueOf(a[5]));
        int iters = Integer.parseInt(a[6]);
        GroupAssignment first = c.assign();
        StringBuilder sb = new StringBuilder();
        new TreeMap<>(first.members()).forEach((m, x) -> {
            sb.append(m);
            Map<String, TreeSet<Integer>> parts = new TreeMap<>();
            x.partitions().forEach((t, ps) -> parts.put(t.toString(), new TreeSet<>(ps)));
            sb.append(parts).append('\n');
        });
        CpuPerCall.print(String.join(" ", Arrays.copyOfRange(a, 0, 6)), sb.toString().hashCode(), c::assign, iters);
    }
}
