package dev.rackwise.bench.jmh;

import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Classic side: RackwiseAssignor against Kafka's CooperativeStickyAssignor behind
 * ConsumerPartitionAssignor (the group leader's call), on the same grid and seed as the broker
 * benchmark: a Cluster with each partition's replicas in two racks, members with client.rack,
 * and in an incremental cell owned partitions at generation 1.
 */
@State(Scope.Benchmark)
@Fork(value = 1, jvmArgsAppend = {"-Xms2g", "-Xmx6g"})
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Threads(1)
public class ClassicAssignorBenchmark {
    @Param({"100", "1000", "10000"})
    public int members;

    @Param({"10", "50"})
    public int partitionsPerMember;

    @Param({"10", "100"})
    public int topics;

    @Param({"HOMOGENEOUS", "HETEROGENEOUS"})
    public String subscription;

    @Param({"FULL", "INCREMENTAL"})
    public String assignment;

    @Param({"COOPERATIVE_STICKY", "RACKWISE", "RACKWISE_WEIGHTED"})
    public ClassicCase.Assignor assignor;

    private ClassicCase c;

    @Setup(Level.Trial)
    public void setup() {
        Grid grid = new Grid(members, partitionsPerMember, topics, subscription.equals("HETEROGENEOUS"),
            assignment.equals("INCREMENTAL"));
        c = new ClassicCase(grid, assignor);
    }

    @Benchmark
    public Object assign() {
        return c.assign();
    }
}
