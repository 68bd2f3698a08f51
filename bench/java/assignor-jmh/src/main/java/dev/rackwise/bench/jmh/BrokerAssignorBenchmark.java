package dev.rackwise.bench.jmh;

import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import org.apache.kafka.coordinator.common.runtime.KRaftCoordinatorMetadataImage;
import org.apache.kafka.coordinator.group.api.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.api.assignor.GroupSpec;
import org.apache.kafka.coordinator.group.api.assignor.SubscribedTopicDescriber;
import org.apache.kafka.coordinator.group.modern.SubscribedTopicDescriberImpl;
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
 * Broker side: RackwiseGroupAssignor against Kafka's UniformAssignor and RangeAssignor behind
 * ConsumerGroupPartitionAssignor, and one pass over racksForPartition alone, on Kafka's
 * ServerSideAssignorBenchmark grid with RF 2 over 3 racks. Inputs are built once per trial
 * from a fixed seed, so every assignor of a cell sees the same cluster and group.
 */
@State(Scope.Benchmark)
@Fork(value = 1, jvmArgsAppend = {"-Xms2g", "-Xmx6g"})
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Threads(1)
public class BrokerAssignorBenchmark {
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

    @Param({"RACKS_PASS", "UNIFORM", "RANGE", "RACKWISE", "RACKWISE_WEIGHTED"})
    public BrokerCase.Assignor assignor;

    /**
     * Whose describer the assignors read: BENCH, the bench's {@link RackDescriber} (a map lookup,
     * nothing kept across calls: a floor for the racks pass, a ceiling for rackwise's kept racks);
     * KAFKA, Kafka's own {@code SubscribedTopicDescriberImpl} over the cell as a KRaft metadata
     * image ({@link RealDescriberDrive#image}), a new one each call as a coordinator makes it,
     * and the group built as a coordinator builds it ({@link RealDescriberDrive#asBroker}: each
     * member's own TopicIds, current targets as Kafka's Assignment of HashSets).
     */
    @Param({"BENCH"})
    public String describer;

    private BrokerCase c;
    private Supplier<SubscribedTopicDescriber> describers;
    private GroupSpec spec;

    @Setup(Level.Trial)
    public void setup() {
        Grid grid = new Grid(members, partitionsPerMember, topics, subscription.equals("HETEROGENEOUS"),
            assignment.equals("INCREMENTAL"));
        c = new BrokerCase(grid, assignor);
        if (describer.equals("KAFKA")) {
            KRaftCoordinatorMetadataImage image = new KRaftCoordinatorMetadataImage(RealDescriberDrive.image(grid));
            describers = () -> new SubscribedTopicDescriberImpl(image);
            spec = c.spec == null ? null : RealDescriberDrive.asBroker(c.spec, grid, image);
        } else {
            describers = () -> c.describer;
            spec = c.spec;
        }
    }

    @Benchmark
    public Object assign() {
        if (assignor == BrokerCase.Assignor.RACKS_PASS) {
            return BrokerCase.racksPass(c.grid, describers.get());
        }
        GroupAssignment out = c.assignor.assign(spec, describers.get());
        return out;
    }
}
