package dev.rackwise.plugins.streamsgroup;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.coordinator.common.runtime.CoordinatorMetadataDelta;
import org.apache.kafka.coordinator.common.runtime.CoordinatorMetadataImage;
import org.apache.kafka.coordinator.group.api.streams.assignor.GroupSpec;
import org.apache.kafka.coordinator.group.api.streams.assignor.TopologyDescriber;
import org.apache.kafka.coordinator.group.streams.TopologyMetadata;
import org.apache.kafka.coordinator.group.streams.assignor.AssignmentConfigsImpl;
import org.apache.kafka.coordinator.group.streams.assignor.GroupSpecImpl;
import org.apache.kafka.coordinator.group.streams.assignor.MemberMetadataAndStateImpl;
import org.apache.kafka.coordinator.group.streams.topics.ConfiguredInternalTopic;
import org.apache.kafka.coordinator.group.streams.topics.ConfiguredSubtopology;

/**
 * Streams groups as the 4.4.0 coordinator hands them to an assignor, built from its own
 * classes: GroupSpecImpl, and a TopologyMetadata over a fake metadata image whose topics have
 * the replica racks a test gives.
 */
final class Groups {
    private Groups() {
    }

    /** One member: id, process, rack (null: none), current actives/standbys (subtopology "0"), offsets. */
    record Member(String id, String process, String rack, Set<Integer> active, Set<Integer> standby,
                  Map<Integer, Long> offsets, Map<Integer, Long> endOffsets, Map<String, String> tags) {
        static Member fresh(String id, String process, String rack) {
            return new Member(id, process, rack, Set.of(), Set.of(), Map.of(), Map.of(), Map.of());
        }
    }

    static GroupSpec spec(List<Member> members, int standbys) {
        Map<String, MemberMetadataAndStateImpl> m = new HashMap<>();
        for (Member x : members) {
            m.put(x.id(), new MemberMetadataAndStateImpl(Optional.empty(), Optional.ofNullable(x.rack()), x.process(),
                x.tags(), x.active().isEmpty() ? Map.of() : Map.of("0", x.active()),
                x.standby().isEmpty() ? Map.of() : Map.of("0", x.standby()), Map.of(),
                x.offsets().isEmpty() ? Map.of() : Map.of("0", x.offsets()),
                x.endOffsets().isEmpty() ? Map.of() : Map.of("0", x.endOffsets())));
        }
        return new GroupSpecImpl(m, new AssignmentConfigsImpl(standbys, List.of()));
    }

    /** Topic name to per-partition replica racks. */
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
                if (parts == null) {
                    return Optional.empty();
                }
                return Optional.of(new TopicMetadata() {
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

    /**
     * One subtopology "0" reading {@code source} (n partitions), logging to {@code source-changelog}
     * when stateful; partition p of both lives in racks {@code racks.get(p)}.
     */
    static TopologyMetadata topology(String source, List<List<String>> racks, boolean stateful) {
        int n = racks.size();
        Map<String, ConfiguredInternalTopic> changelogs = stateful
            ? Map.of(source + "-changelog", new ConfiguredInternalTopic(source + "-changelog", n, Optional.empty(),
                Map.of()))
            : Map.of();
        SortedMap<String, ConfiguredSubtopology> subs = new TreeMap<>();
        subs.put("0", new ConfiguredSubtopology(n, Set.of(source), Map.of(), Set.of(), changelogs));
        Map<String, List<List<String>>> topics = new HashMap<>();
        topics.put(source, racks);
        if (stateful) {
            topics.put(source + "-changelog", racks);
        }
        return new TopologyMetadata(image(topics), subs);
    }

    /** The same topology through the public interface only: no topic names, no racks. */
    static TopologyDescriber plain(int partitions, boolean stateful) {
        return new TopologyDescriber() {
            @Override
            public List<String> subtopologies() {
                return List.of("0");
            }

            @Override
            public int maxNumInputPartitions(String subtopologyId) {
                return partitions;
            }

            @Override
            public boolean isStateful(String subtopologyId) {
                return stateful;
            }
        };
    }

    /** racks.get(p) = [az(p mod 3 + 1)]: each partition in exactly one rack. */
    static List<List<String>> oneRackEach(int n) {
        List<List<String>> out = new ArrayList<>();
        for (int p = 0; p < n; p++) {
            out.add(List.of("az" + (p % 3 + 1)));
        }
        return out;
    }
}
