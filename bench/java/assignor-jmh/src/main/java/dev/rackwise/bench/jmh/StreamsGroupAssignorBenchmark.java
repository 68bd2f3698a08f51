package dev.rackwise.bench.jmh;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import dev.rackwise.plugins.RackwiseStreamsGroupAssignor;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.coordinator.common.runtime.CoordinatorMetadataDelta;
import org.apache.kafka.coordinator.common.runtime.CoordinatorMetadataImage;
import org.apache.kafka.coordinator.group.api.streams.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.api.streams.assignor.TaskAssignor;
import org.apache.kafka.coordinator.group.streams.TopologyMetadata;
import org.apache.kafka.coordinator.group.streams.assignor.AssignmentConfigsImpl;
import org.apache.kafka.coordinator.group.streams.assignor.GroupSpecImpl;
import org.apache.kafka.coordinator.group.streams.assignor.MemberMetadataAndStateImpl;
import org.apache.kafka.coordinator.group.streams.assignor.StickyTaskAssignor;
import org.apache.kafka.coordinator.group.streams.topics.ConfiguredInternalTopic;
import org.apache.kafka.coordinator.group.streams.topics.ConfiguredSubtopology;
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
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Streams groups (KIP-1071/KIP-1357, Kafka 4.4.0): RackwiseStreamsGroupAssignor against Kafka's
 * built-in streams {@code sticky} on identical inputs: the same GroupSpec and the coordinator's
 * own TopologyMetadata (a fake metadata image). The grid is that of Kafka's own
 * {@code StreamsStickyAssignorBenchmark} (4.4): {@code memberCount} members (stream threads),
 * {@code membersPerProcess} of them per process, {@code subtopologyCount} subtopologies of
 * {@code partitionCount} partitions each (so subtopologyCount x partitionCount tasks), every task
 * stateful (a source and a changelog topic per subtopology), {@code standbyReplicas} standbys,
 * and a {@code FULL} assignment (a new group) or an {@code INCREMENTAL} one (memberCount - 1
 * members holding sticky's assignment, then one new member in a process of its own). On top,
 * what Kafka's grid lacks: 3 racks, processes round-robin over them, and every source and
 * changelog partition with 2 replicas in 2 of the 3 racks (seeded). The cross-rack active count
 * of each assignor's result is printed at tear-down ("CROSS-RACK ..."). Run by
 * {@code ./run-grid.sh streams} (the whole grid) or {@code ./run-grid.sh streams-smoke}.
 */
@State(Scope.Benchmark)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx2g"})
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Threads(1)
public class StreamsGroupAssignorBenchmark {
    static final String[] RACKS = {"az1", "az2", "az3"};

    public enum AssignmentType { FULL, INCREMENTAL }

    @Param({"100", "1000"})
    public int memberCount;

    @Param({"10", "100"})
    public int partitionCount;

    @Param({"10", "100"})
    public int subtopologyCount;

    @Param({"0", "1"})
    public int standbyReplicas;

    @Param({"1", "50"})
    public int membersPerProcess;

    @Param({"FULL", "INCREMENTAL"})
    public AssignmentType assignmentType;

    @Param({"STICKY", "RACKWISE"})
    public String assignor;

    private TaskAssignor impl;
    private GroupSpecImpl spec;
    private TopologyMetadata topology;
    private final Map<String, List<List<String>>> racks = new HashMap<>();
    private final Map<String, String> memberRack = new HashMap<>();
    private GroupAssignment last;

    @Setup(Level.Trial)
    public void setup() {
        impl = assignor.equals("STICKY") ? new StickyTaskAssignor() : new RackwiseStreamsGroupAssignor();
        // -Drackwise.bench.seed=N places the replicas otherwise (identity checks over seeds)
        Random random = new Random(Long.getLong("rackwise.bench.seed", 20261127L));
        SortedMap<String, ConfiguredSubtopology> subs = new TreeMap<>();
        for (int s = 0; s < subtopologyCount; s++) {
            String source = "in-" + s;
            String changelog = "app-store-" + s + "-changelog";
            racks.put(source, twoOfThree(random, partitionCount));
            racks.put(changelog, twoOfThree(random, partitionCount));
            subs.put(Integer.toString(s), new ConfiguredSubtopology(partitionCount, Set.of(source), Map.of(),
                Set.of(), Map.of(changelog, new ConfiguredInternalTopic(changelog, partitionCount,
                    Optional.empty(), Map.of()))));
        }
        topology = new TopologyMetadata(image(racks), subs);
        AssignmentConfigsImpl configs = new AssignmentConfigsImpl(standbyReplicas, List.of());
        int initial = assignmentType == AssignmentType.INCREMENTAL ? memberCount - 1 : memberCount;
        Map<String, MemberMetadataAndStateImpl> m = new HashMap<>();
        for (int i = 0; i < initial; i++) {
            int process = i / membersPerProcess;
            String id = "member-" + i;
            String rack = RACKS[process % RACKS.length];
            memberRack.put(id, rack);
            m.put(id, new MemberMetadataAndStateImpl(Optional.empty(), Optional.of(rack),
                new Uuid(0L, process + 1L).toString(), Map.of(), Map.of(), Map.of(), Map.of(), Map.of(), Map.of()));
        }
        spec = new GroupSpecImpl(m, configs);
        if (assignmentType == AssignmentType.INCREMENTAL) {
            // as Kafka's benchmark: the members hold sticky's assignment, and one joins
            GroupAssignment before = new StickyTaskAssignor().assign(spec, topology);
            Map<String, MemberMetadataAndStateImpl> held = new HashMap<>();
            for (String id : spec.memberIds()) {
                var a = before.members().get(id);
                var md = spec.memberMetadata(id);
                held.put(id, new MemberMetadataAndStateImpl(Optional.empty(), md.rackId(), md.processId(),
                    Map.of(), a == null ? Map.of() : a.activeTasks(), a == null ? Map.of() : a.standbyTasks(),
                    Map.of(), Map.of(), Map.of()));
            }
            int process = initial / membersPerProcess + 1;  // a process of its own
            String rack = RACKS[process % RACKS.length];
            memberRack.put("newMember", rack);
            held.put("newMember", new MemberMetadataAndStateImpl(Optional.empty(), Optional.of(rack),
                "process-newMember", Map.of(), Map.of(), Map.of(), Map.of(), Map.of(), Map.of()));
            spec = new GroupSpecImpl(held, configs);
        }
    }

    private static List<List<String>> twoOfThree(Random random, int partitions) {
        List<List<String>> out = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            int skip = random.nextInt(3);
            List<String> r = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                if (i != skip) {
                    r.add(RACKS[i]);
                }
            }
            out.add(r);
        }
        return out;
    }

    @Benchmark
    public GroupAssignment assign() {
        last = impl.assign(spec, topology);
        return last;
    }

    @TearDown(Level.Trial)
    public void crossRack() {
        GroupAssignment a = last != null ? last : impl.assign(spec, topology);
        int cross = 0;
        int actives = 0;
        for (var e : a.members().entrySet()) {
            String rack = memberRack.get(e.getKey());
            for (var t : e.getValue().activeTasks().entrySet()) {
                for (int p : t.getValue()) {
                    actives++;
                    if (!racks.get("in-" + t.getKey()).get(p).contains(rack)) {
                        cross++;
                    }
                }
            }
        }
        System.out.println("CROSS-RACK " + assignor + " members=" + memberCount + " partitions=" + partitionCount
            + " subtopologies=" + subtopologyCount + " standbys=" + standbyReplicas + " perProcess="
            + membersPerProcess + " " + assignmentType + ": " + cross + " of " + actives
            + " active tasks read across racks");
    }

    static CoordinatorMetadataImage image(Map<String, List<List<String>>> topics) {
        return new CoordinatorMetadataImage() {
            @Override
            public Set<Uuid> topicIds() {
                return Set.of();
            }

            @Override
            public Set<String> topicNames() {
                return topics.keySet();
            }

            @Override
            public Optional<TopicMetadata> topicMetadata(String name) {
                List<List<String>> parts = topics.get(name);
                return parts == null ? Optional.empty() : Optional.of(new TopicMetadata() {
                    @Override
                    public String name() {
                        return name;
                    }

                    @Override
                    public Uuid id() {
                        return Uuid.ZERO_UUID;
                    }

                    @Override
                    public int partitionCount() {
                        return parts.size();
                    }

                    @Override
                    public List<String> partitionRacks(int partition) {
                        return parts.get(partition);
                    }
                });
            }

            @Override
            public Optional<TopicMetadata> topicMetadata(Uuid id) {
                return Optional.empty();
            }

            @Override
            public CoordinatorMetadataDelta emptyDelta() {
                return null;
            }

            @Override
            public long version() {
                return 1;
            }

            @Override
            public boolean isEmpty() {
                return topics.isEmpty();
            }
        };
    }
}
