package dev.rackwise.plugins.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import dev.rackwise.core.IndexedSolution;
import dev.rackwise.core.PartitionSpec;
import dev.rackwise.core.Problem;
import dev.rackwise.core.RackOptimal;
import dev.rackwise.core.Solution;
import dev.rackwise.plugins.advice.AdviceView;
import dev.rackwise.plugins.advice.GroupCosts;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.coordinator.group.api.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.api.assignor.GroupSpec;
import org.apache.kafka.coordinator.group.api.assignor.SubscribedTopicDescriber;
import org.apache.kafka.coordinator.group.api.assignor.SubscriptionType;
import org.apache.kafka.coordinator.group.modern.Assignment;
import org.apache.kafka.coordinator.group.modern.GroupSpecImpl;
import org.apache.kafka.coordinator.group.modern.MemberSubscriptionAndAssignmentImpl;
import org.junit.jupiter.api.Test;

/**
 * The broker's indexed path (GroupSpec straight to the core's arrays) against a plainly written
 * reference adapter that builds a {@link Problem} of strings, on seeded random groups: the same
 * problem, so the same assignment, partition for partition, and the same cost and moves. Covers what the indexed adapter must get
 * right: members and topics in the coordinator's (hash) order, deleted topics, topics with no
 * partitions, owners of partitions out of range or no longer subscribed, racks the describer
 * does not know, members without racks, advice weights and leader racks, the weights limit,
 * Kafka's HOMOGENEOUS label, and subscription sets of each member's own that are never hashed
 * (a coordinator's TopicIds hashes every partition of the metadata image in hashCode).
 */
class IndexedBrokerProblemTest {
    private static final long SEED = 20261128L;

    @Test
    void theIndexedPathGivesTheAssignmentOfTheProblemPath() {
        System.out.println("IndexedBrokerProblemTest seed " + SEED);
        Random rnd = new Random(SEED);
        int weighted = 0;
        int owned = 0;
        long kept = 0;
        int homogeneous = 0;
        long hitsNextEpoch = 0;
        HeldTargets held = new HeldTargets(); // one for all groups, as an assignor holds one
        for (int g = 0; g < 400; g++) {
            Group group = randomGroup(rnd);
            homogeneous += group.spec.subscriptionType() == SubscriptionType.HOMOGENEOUS ? 1 : 0;
            long limit = rnd.nextInt(4) == 0 ? 10 : Long.MAX_VALUE;
            boolean followers = rnd.nextBoolean();
            Problem problem = reference(group, followers, limit);
            Solution expected = RackOptimal.solve(problem);

            BrokerProblem.Indexed indexed = BrokerProblem.indexed(group.spec, group.topics, ids -> group.names,
                group.advice, group.costs, followers, limit, TopicRacks.Cache.NONE, held);
            IndexedSolution got = RackOptimal.solve(indexed.problem());
            GroupAssignment direct = BrokerProblem.assignment(indexed, got);

            String where = "group " + g + " of seed " + SEED;
            assertEquals(flat(expected, group.spec), flat(direct), where);
            assertEquals(expected.cost(), got.cost(), 0.0, where);
            assertEquals(expected.moved(), got.moved(), where);
            // the string forms the plan reports read are the same too
            assertEquals(expected.assignment(), got.toSolution().assignment(), where);
            assertEquals(problem.members(), indexed.toProblem().members(), where);
            assertEquals(problem.topics(), indexed.toProblem().topics(), where);
            assertEquals(problem.previousOwners(), indexed.toProblem().previousOwners(), where);
            // the next epoch, the answer as the current target: members that keep exactly what
            // they hold get Kafka's own objects back, and the answer is the same as the reference's
            Group next = new Group(withTargets(group.spec, direct), group.topics, group.names, group.advice, group.costs);
            Solution again = RackOptimal.solve(reference(next, followers, limit));
            // members whose target did not change hand over the same map: their targets are kept
            long hitsBefore = held.hits();
            BrokerProblem.Indexed nextIndexed = BrokerProblem.indexed(next.spec, next.topics, ids -> next.names,
                next.advice, next.costs, followers, limit, TopicRacks.Cache.NONE, held);
            hitsNextEpoch += held.hits() - hitsBefore;
            GroupAssignment nextDirect = BrokerProblem.assignment(nextIndexed, RackOptimal.solve(nextIndexed.problem()));
            assertEquals(flat(again, next.spec), flat(nextDirect), where + ", next epoch");
            // the same group again: every target kept, the same answer as reading them all
            hitsBefore = held.hits();
            BrokerProblem.Indexed keptAll = BrokerProblem.indexed(next.spec, next.topics, ids -> next.names,
                next.advice, next.costs, followers, limit, TopicRacks.Cache.NONE, held);
            assertEquals(next.spec.memberIds().size(), held.hits() - hitsBefore, where + ", every target kept");
            assertEquals(flat(nextDirect), flat(BrokerProblem.assignment(keptAll, RackOptimal.solve(keptAll.problem()))),
                where + ", targets kept");
            kept += nextDirect.members().entrySet().stream()
                .filter(e -> e.getValue() == next.spec.memberAssignment(e.getKey())).count();
            weighted += problem.topics().values().stream().flatMap(List::stream).anyMatch(p -> p.weight() != 1.0) ? 1 : 0;
            owned += problem.previousOwners().isEmpty() ? 0 : 1;
        }
        // the random groups exercised what they are for
        assertTrue(weighted > 50, "weighted groups: " + weighted);
        assertTrue(owned > 100, "groups with owners: " + owned);
        assertTrue(kept > 200, "members handed their own assignment back: " + kept);
        assertTrue(homogeneous > 100 && homogeneous < 300, "groups Kafka calls homogeneous: " + homogeneous);
        assertTrue(hitsNextEpoch > 200, "targets kept into the next epoch: " + hitsNextEpoch);
    }

    private record Group(GroupSpec spec, SubscribedTopicDescriber topics, Map<Uuid, String> names,
                         AdviceView advice, GroupCosts costs) {
    }

    private static Group randomGroup(Random rnd) {
        int racks = 1 + rnd.nextInt(4);
        int topicCount = 1 + rnd.nextInt(6);
        List<Uuid> ids = new ArrayList<>();
        Map<Uuid, Integer> counts = new HashMap<>();
        Map<Uuid, List<Set<String>>> replicaRacks = new HashMap<>();
        Map<Uuid, String> names = new HashMap<>();
        for (int t = 0; t < topicCount; t++) {
            Uuid id = new Uuid(rnd.nextLong(), rnd.nextLong());
            ids.add(id);
            int roll = rnd.nextInt(10);
            int count = roll == 0 ? -1 : roll == 1 ? 0 : 1 + rnd.nextInt(12); // deleted, empty, or some
            counts.put(id, count);
            List<Set<String>> rr = new ArrayList<>();
            for (int p = 0; p < Math.max(count, 0); p++) {
                Set<String> set = new HashSet<>();
                int rf = rnd.nextInt(3);
                for (int r = 0; r < rf; r++) {
                    set.add("az" + (1 + rnd.nextInt(racks)));
                }
                rr.add(set);
            }
            replicaRacks.put(id, rr);
            if (rnd.nextInt(3) > 0) {
                names.put(id, "topic-" + t);
            }
        }
        SubscribedTopicDescriber topics = new SubscribedTopicDescriber() {
            @Override
            public int numPartitions(Uuid topicId) {
                return counts.getOrDefault(topicId, -1);
            }

            @Override
            public Set<String> racksForPartition(Uuid topicId, int partition) {
                return new HashSet<>(replicaRacks.get(topicId).get(partition)); // a new set each call, as Kafka's
            }
        };
        int members = 1 + rnd.nextInt(12);
        int idStyle = rnd.nextInt(3);
        Map<String, MemberSubscriptionAndAssignmentImpl> specs = new HashMap<>();
        List<Set<Uuid>> subscriptions = new ArrayList<>();
        for (int s = 0; s < 1 + rnd.nextInt(3); s++) {
            Set<Uuid> sub = new HashSet<>();
            for (Uuid id : ids) {
                if (rnd.nextInt(3) > 0) {
                    sub.add(id);
                }
            }
            sub.add(ids.get(rnd.nextInt(ids.size())));
            subscriptions.add(sub);
        }
        Set<Integer> picked = new HashSet<>();
        for (int m = 0; m < members; m++) {
            // ids as Kafka makes them (base64 UUIDs), with a shared prefix, and with characters
            // past 255 and 127 (the core sorts by a prefix of 8-bit characters where it can)
            String id = switch (idStyle) {
                case 0 -> new Uuid(rnd.nextLong(), rnd.nextLong()).toString();
                case 1 -> "member-" + Integer.toString(rnd.nextInt(1_000_000), 36) + "-" + m;
                default -> (rnd.nextBoolean() ? "\u00e9" : rnd.nextBoolean() ? "\u4e2d" : "") + (char) ('a' + rnd.nextInt(3))
                    + Integer.toString(rnd.nextInt(100), 36) + "-" + m;
            };
            Optional<String> rack = rnd.nextInt(6) == 0 ? Optional.empty()
                : Optional.of(rnd.nextInt(10) == 0 ? "" : "az" + (1 + rnd.nextInt(racks + 1)));
            Map<Uuid, Set<Integer>> target = new HashMap<>();
            if (rnd.nextBoolean()) {
                for (Uuid t : ids) {
                    Set<Integer> ps = new TreeSet<>();
                    for (int k = 0; k < 3; k++) {
                        if (rnd.nextInt(3) == 0) {
                            ps.add(rnd.nextInt(14) - 1); // now and then out of range
                        }
                    }
                    if (!ps.isEmpty()) {
                        target.put(t, ps);
                    }
                }
            }
            int pick = rnd.nextInt(subscriptions.size());
            picked.add(pick);
            // now and then a set of its own that must never be hashed, as a coordinator's TopicIds
            Set<Uuid> sub = rnd.nextBoolean() ? subscriptions.get(pick) : new Unhashable(subscriptions.get(pick));
            specs.put(id, new MemberSubscriptionAndAssignmentImpl(rack, Optional.empty(), sub, new Assignment(target)));
        }
        // Kafka's own label: HOMOGENEOUS when every member subscribes the same topics
        GroupSpec spec = new GroupSpecImpl(specs, picked.stream().map(subscriptions::get).distinct().count() == 1
            ? SubscriptionType.HOMOGENEOUS : SubscriptionType.HETEROGENEOUS, Map.of());
        long adviceSeed = rnd.nextLong();
        boolean leaders = rnd.nextBoolean();
        int weighting = rnd.nextInt(3);
        AdviceView advice = new AdviceView() {
            @Override
            public double weight(String topic, int partition) {
                if (weighting == 0) {
                    return 1.0;
                }
                long h = (topic.hashCode() * 31L + partition) ^ adviceSeed;
                return weighting == 1 ? 1 + Math.floorMod(h, 4) : 0.001 * (1 + Math.floorMod(h, 5000));
            }

            @Override
            public String leaderRack(String topic, int partition) {
                if (!leaders) {
                    return null;
                }
                long h = (topic.hashCode() * 17L + partition) ^ adviceSeed;
                int r = (int) Math.floorMod(h, racks + 1);
                return r == racks ? null : "az" + (1 + r);
            }
        };
        GroupCosts costs = rnd.nextBoolean() ? GroupCosts.DEFAULT : new GroupCosts(1 + rnd.nextInt(20), rnd.nextInt(3));
        return new Group(spec, topics, names, advice, costs);
    }

    /**
     * The problem of one assign() call, written plainly (the adapter's contract, without its
     * shortcuts): subscribed topics the describer knows, keyed by id; replica racks sorted;
     * advice weights up to the limit; the smallest member id wins a doubly claimed partition.
     */
    private static Problem reference(Group g, boolean followers, long limit) {
        Problem.Builder b = Problem.builder().costs(g.costs.trafficCost(), g.costs.nonOverlapCost());
        Set<Uuid> subscribed = new HashSet<>();
        g.spec.memberIds().forEach(m -> subscribed.addAll(g.spec.memberSubscription(m).subscribedTopicIds()));
        long total = 0;
        for (Uuid id : subscribed) {
            total += Math.max(0, g.topics.numPartitions(id));
        }
        Set<String> racks = new TreeSet<>();
        for (Uuid id : subscribed) {
            int count = g.topics.numPartitions(id);
            if (count < 0) {
                continue;
            }
            String name = g.names.get(id);
            List<PartitionSpec> parts = new ArrayList<>();
            for (int p = 0; p < count; p++) {
                Set<String> rr = new TreeSet<>(g.topics.racksForPartition(id, p));
                racks.addAll(rr);
                parts.add(new PartitionSpec(new ArrayList<>(rr), name == null ? null : g.advice.leaderRack(name, p),
                    name == null || total > limit ? 1.0 : g.advice.weight(name, p)));
            }
            b.topic(id.toString(), parts);
        }
        b.racks(racks);
        Map<String, TreeMap<Integer, String>> owners = new TreeMap<>();
        for (String m : new TreeSet<>(g.spec.memberIds())) {
            String rack = g.spec.memberSubscription(m).rackId().filter(r -> !r.isEmpty()).orElse(null);
            List<String> mine = new ArrayList<>();
            for (Uuid id : g.spec.memberSubscription(m).subscribedTopicIds()) {
                if (g.topics.numPartitions(id) >= 0) {
                    mine.add(id.toString());
                }
            }
            b.member(m, rack, followers && rack != null, mine);
            g.spec.memberAssignment(m).partitions().forEach((id, ps) -> {
                int count = subscribed.contains(id) ? g.topics.numPartitions(id) : -1;
                for (int p : ps) {
                    if (p >= 0 && p < count) {
                        owners.computeIfAbsent(id.toString(), k -> new TreeMap<>()).putIfAbsent(p, m);
                    }
                }
            });
        }
        owners.forEach((t, byPartition) -> byPartition.forEach((p, m) -> b.previousOwner(t, p, m)));
        return b.build();
    }

    private static Map<String, Map<Uuid, Set<Integer>>> flat(Solution s, GroupSpec spec) {
        Map<String, Map<Uuid, Set<Integer>>> out = new TreeMap<>();
        spec.memberIds().forEach(m -> out.put(m, new HashMap<>()));
        s.assignment().forEach((m, tps) -> tps.forEach(tp ->
            out.get(m).computeIfAbsent(Uuid.fromString(tp.topic()), k -> new TreeSet<>()).add(tp.partition())));
        return out;
    }

    /** {@code spec} with each member's current target replaced by its part of {@code answer}. */
    private static GroupSpec withTargets(GroupSpec spec, GroupAssignment answer) {
        Map<String, MemberSubscriptionAndAssignmentImpl> members = new HashMap<>();
        for (String m : spec.memberIds()) {
            var sub = spec.memberSubscription(m);
            // as TargetAssignmentBuilder: an unchanged target keeps its object (Assignment wraps
            // the same unmodifiable map), a changed one is new, as replayed from its record
            Map<Uuid, Set<Integer>> now = spec.memberAssignment(m).partitions();
            Map<Uuid, Set<Integer>> target = answer.members().get(m).partitions();
            members.put(m, new MemberSubscriptionAndAssignmentImpl(sub.rackId(), Optional.empty(),
                sub.subscribedTopicIds(), new Assignment(target.equals(now) ? now : replayed(target))));
        }
        return new GroupSpecImpl(members, spec.subscriptionType(), Map.of());
    }

    /**
     * A member's subscription as a coordinator hands it over: a set of its own whose hashCode
     * and equals are not to be called (Kafka's TopicIds hashes the metadata image in hashCode and
     * compares images in equals).
     */
    private static Map<Uuid, Set<Integer>> replayed(Map<Uuid, Set<Integer>> target) {
        Map<Uuid, Set<Integer>> out = new HashMap<>();
        target.forEach((id, ps) -> out.put(id, new HashSet<>(ps)));
        return out;
    }

    private static final class Unhashable extends java.util.AbstractSet<Uuid> {
        private final Set<Uuid> ids;

        Unhashable(Set<Uuid> ids) {
            this.ids = new HashSet<>(ids);
        }

        @Override
        public java.util.Iterator<Uuid> iterator() {
            return java.util.Collections.unmodifiableSet(ids).iterator();
        }

        @Override
        public int size() {
            return ids.size();
        }

        @Override
        public boolean contains(Object o) {
            return ids.contains(o);
        }

        @Override
        public int hashCode() {
            throw new AssertionError("a member's subscription set was hashed");
        }

        @Override
        public boolean equals(Object o) {
            throw new AssertionError("a member's subscription set was compared");
        }
    }

    private static Map<String, Map<Uuid, Set<Integer>>> flat(GroupAssignment a) {
        Map<String, Map<Uuid, Set<Integer>>> out = new TreeMap<>();
        a.members().forEach((m, ma) -> {
            Map<Uuid, Set<Integer>> parts = new HashMap<>();
            ma.partitions().forEach((t, ps) -> parts.put(t, new TreeSet<>(ps)));
            out.put(m, parts);
        });
        return out;
    }
}
