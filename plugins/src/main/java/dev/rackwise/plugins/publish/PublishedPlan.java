package dev.rackwise.plugins.publish;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A plan a plug-in computed, in neutral terms, for {@link PlanJson} to write in the plan
 * contract (docs/architecture.md § The plan; protocol/plan.py is the authority).
 *
 * <p>Example: group {@code g1}, member {@code c1} in {@code az1} reading {@code orders-0}
 * (replicas in az1 and az2) locally:
 * <pre>new PublishedPlan("g1", gen, "assigned", "rackwise", Map.of(), createdAtMs,
 *     List.of(new Member("c1", "az1", List.of(new Partition("orders", 0, List.of("az1", "az2"), false, 1.0, null)))),
 *     null, 0)</pre>
 *
 * @param generation     {@link PlanGenerations#next}: strictly increasing per group
 * @param reason         {@link PlanJson#REASON} for plans the plug-ins compute
 * @param config         the assignor's settings (JSON values: String, Number, Boolean, null)
 * @param lowerBound     the best traffic cost reachable under the same balance, or null when unknown
 * @param movedPartitions partitions whose owner changed from the previous assignment
 */
public record PublishedPlan(String groupId, long generation, String reason, String assignor,
                            Map<String, Object> config, long createdAtMs, List<Member> members,
                            Double lowerBound, int movedPartitions, List<Withheld> withheld) {
    /** A plan that withholds nothing (KIP-848: the coordinator revokes before it assigns). */
    public PublishedPlan(String groupId, long generation, String reason, String assignor, Map<String, Object> config,
                         long createdAtMs, List<Member> members, Double lowerBound, int movedPartitions) {
        this(groupId, generation, reason, assignor, config, createdAtMs, members, lowerBound, movedPartitions,
            List.of());
    }

    public PublishedPlan {
        if (groupId == null || reason == null || reason.isEmpty() || assignor == null) {
            throw new IllegalArgumentException("group id, reason and assignor are required");
        }
        if (generation < 0 || movedPartitions < 0 || createdAtMs < 0) {
            throw new IllegalArgumentException("generation, moved partitions and time must not be negative");
        }
        if (lowerBound != null && !(lowerBound >= 0 && Double.isFinite(lowerBound))) {
            throw new IllegalArgumentException("lower bound must be a finite non-negative number");
        }
        config = Collections.unmodifiableMap(new LinkedHashMap<>(config));
        members = List.copyOf(members);
        withheld = withheld == null ? List.of() : List.copyOf(withheld);
    }

    /** A partition left out this round (classic cooperative): its owner still lists it. */
    public record Withheld(String topic, int partition, String owner, String target) {
        public Withheld {
            if (topic == null || partition < 0 || owner == null || target == null) {
                throw new IllegalArgumentException("a withheld partition needs topic, partition, owner and target");
            }
        }
    }

    /** {@code streams} when some member carries Streams tasks, else {@code consumer}. */
    public String kind() {
        return members.stream().anyMatch(m -> m.streams() != null) ? "streams" : "consumer";
    }

    /**
     * One member: its id, its rack (null: none), its partitions in the order given (for a Streams
     * member: its active tasks' source partitions), and for a Streams member its process and tasks.
     */
    public record Member(String memberId, String rack, List<Partition> partitions, Streams streams) {
        public Member {
            if (memberId == null) {
                throw new IllegalArgumentException("member id is required");
            }
            partitions = List.copyOf(partitions);
        }

        /** A consumer-group member. */
        public Member(String memberId, String rack, List<Partition> partitions) {
            this(memberId, rack, partitions, null);
        }
    }

    /** A Streams member's process id and task ids ({@code "<subtopology>_<partition>"}). */
    public record Streams(String processId, List<String> activeTasks, List<String> standbyTasks,
                          List<String> warmupTasks) {
        public Streams {
            activeTasks = List.copyOf(activeTasks);
            standbyTasks = List.copyOf(standbyTasks);
            warmupTasks = List.copyOf(warmupTasks);
        }
    }

    /**
     * One assigned partition: its replicas' racks, whether it is read across racks (false when
     * either rack is unknown, as KIP-925), its relative weight (1.0 unless measured) and its
     * measured bytes/s (null when not measured).
     */
    public record Partition(String topic, int partition, List<String> replicaRacks, boolean crossRack,
                            double weight, Double bytesPerS) {
        public Partition {
            if (topic == null || partition < 0) {
                throw new IllegalArgumentException("a partition needs a topic and a non-negative number");
            }
            if (!(weight >= 0 && Double.isFinite(weight))) {
                throw new IllegalArgumentException("weight must be a finite non-negative number");
            }
            if (bytesPerS != null && !(bytesPerS >= 0 && Double.isFinite(bytesPerS))) {
                throw new IllegalArgumentException("bytes/s must be a finite non-negative number");
            }
            // the contract keeps replica racks sorted and de-duplicated
            replicaRacks = List.copyOf(new java.util.TreeSet<>(replicaRacks));
        }
    }
}
