package dev.rackwise.plugins.broker;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import dev.rackwise.core.MemberSpec;
import dev.rackwise.core.PartitionList;
import dev.rackwise.core.PartitionSpec;
import dev.rackwise.core.Problem;
import dev.rackwise.core.Solution;
import dev.rackwise.core.TopicPartition;
import dev.rackwise.plugins.advice.AdviceView;
import dev.rackwise.plugins.advice.GroupCosts;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.coordinator.group.api.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.api.assignor.GroupSpec;
import org.apache.kafka.coordinator.group.api.assignor.MemberAssignment;
import org.apache.kafka.coordinator.group.api.assignor.MemberSubscription;
import org.apache.kafka.coordinator.group.api.assignor.SubscribedTopicDescriber;

/**
 * A KIP-848 GroupSpec as a rack-optimal {@link Problem}, and the solution back as the
 * coordinator's GroupAssignment. Everything comes from the coordinator's own inputs and the
 * advice already held: nothing here touches the network.
 *
 * <p>Topics are named by their ids in the problem (a topic id is never reused, and the
 * coordinator speaks ids); {@code names} only lets advice, which is keyed by topic name,
 * reach them. A member reads from followers when it has a rack and this broker runs
 * RackAwareReplicaSelector. The current target assignment is the previous owner of each
 * partition, so the solver keeps what costs nothing to keep.
 *
 * <p>Example: members a (az1) and b (az2), one topic whose partition 0 lives only in az1 and
 * partition 1 only in az2: a gets 0, b gets 1.
 */
public final class BrokerProblem {
    private BrokerProblem() {
    }

    /** Every topic id the spec mentions: subscriptions and current targets. */
    public static Set<Uuid> topicIds(GroupSpec spec) {
        Set<Uuid> ids = new HashSet<>();
        for (String m : spec.memberIds()) {
            ids.addAll(spec.memberSubscription(m).subscribedTopicIds());
            ids.addAll(spec.memberAssignment(m).partitions().keySet());
        }
        return ids;
    }

    /** The problem of one assign() call, every partition weighted by the advice. */
    public static Problem of(GroupSpec spec, SubscribedTopicDescriber topics, Map<Uuid, String> names,
                             AdviceView advice, GroupCosts costs, boolean followerFetching) {
        return of(spec, topics, names, advice, costs, followerFetching, Long.MAX_VALUE);
    }

    /**
     * The problem of one assign() call. The advice's weights apply only when the group's
     * subscribed topics hold at most {@code maxWeighted} partitions; past that every partition
     * weighs 1 (rack-optimal by partition count, leader racks still from the advice), because
     * distinct weights make one type per partition (docs/rack-optimal.md § 7) and the call's
     * cost on the coordinator thread grows with them.
     */
    public static Problem of(GroupSpec spec, SubscribedTopicDescriber topics, Map<Uuid, String> names,
                             AdviceView advice, GroupCosts costs, boolean followerFetching, long maxWeighted) {
        Problem.Builder b = Problem.builder().costs(costs.trafficCost(), costs.nonOverlapCost());
        // Members by their subscription: each distinct topic-id set once (canonical instance),
        // so the per-member work is one hash lookup, not one insert per subscribed topic.
        int n = spec.memberIds().size();
        String[] memberIds = new String[n];
        MemberSubscription[] subs = new MemberSubscription[n];
        Set<Uuid>[] canon = newSetArray(n);
        Map<Set<Uuid>, Set<Uuid>> distinct = new HashMap<>();
        Map<Set<Uuid>, Set<Uuid>> seen = new IdentityHashMap<>();
        Set<Uuid> subscribed = new HashSet<>();
        int i = 0;
        for (String m : spec.memberIds()) {
            MemberSubscription sub = spec.memberSubscription(m);
            Set<Uuid> ids = sub.subscribedTopicIds();
            Set<Uuid> c = seen.get(ids); // the same instance: no hashing of its topics
            if (c == null) {
                c = distinct.putIfAbsent(ids, ids);
                if (c == null) {
                    c = ids;
                    subscribed.addAll(ids);
                }
                seen.put(ids, c);
            }
            memberIds[i] = m;
            subs[i] = sub;
            canon[i++] = c;
        }
        long total = 0;
        for (Uuid id : subscribed) {
            total += Math.max(0, topics.numPartitions(id));
        }
        boolean useWeights = total <= maxWeighted;
        Set<String> racks = new TreeSet<>();
        // Each present topic's id as the problem's topic key, encoded once: Uuid.toString()
        // is a base64 encoding, and members x topics plus every owned partition asked for it.
        Map<Uuid, Present> present = new HashMap<>();
        RackSets rackSets = new RackSets();
        for (Uuid id : subscribed) {
            int count = topics.numPartitions(id);
            if (count < 0) {
                continue; // deleted or not yet known: nobody can be given it
            }
            String key = id.toString();
            present.put(id, new Present(key, count));
            String name = names.get(id);
            List<PartitionSpec> parts = new ArrayList<>(count);
            for (int p = 0; p < count; p++) {
                List<String> sorted = rackSets.sorted(topics.racksForPartition(id, p), racks);
                String leader = name == null ? null : advice.leaderRack(name, p);
                double weight = name == null || !useWeights ? 1.0 : advice.weight(name, p);
                parts.add(new PartitionSpec(sorted, leader, weight));
            }
            b.topic(key, parts);
        }
        b.racks(racks);
        // One topic set per distinct subscription, shared by its members (most groups have a
        // few subscriptions and many members): built and sorted once, not once per member.
        Map<Set<Uuid>, Set<String>> topicSets = new IdentityHashMap<>();
        for (int k = 0; k < n; k++) {
            String m = memberIds[k];
            MemberSubscription sub = subs[k];
            String rack = sub.rackId().filter(r -> !r.isEmpty()).orElse(null);
            Set<String> mine = topicSets.computeIfAbsent(canon[k], ids -> {
                List<String> keys = new ArrayList<>(ids.size());
                for (Uuid id : ids) {
                    Present t = present.get(id);
                    if (t != null) {
                        keys.add(t.key);
                    }
                }
                return MemberSpec.topicSet(keys);
            });
            b.member(m, rack, followerFetching && rack != null, mine);
        }
        // The current target is the previous owner; the first member by id wins a (malformed) tie.
        // Owners go in per topic as arrays, then to the builder a topic at a time.
        for (String m : spec.memberIds()) {
            for (Map.Entry<Uuid, Set<Integer>> e : spec.memberAssignment(m).partitions().entrySet()) {
                Present t = present.get(e.getKey());
                if (t == null) {
                    continue;
                }
                String[] owners = t.owners();
                for (int p : e.getValue()) {
                    if (p >= 0 && p < owners.length && (owners[p] == null || m.compareTo(owners[p]) < 0)) {
                        owners[p] = m;
                    }
                }
            }
        }
        present.values().forEach(t -> {
            if (t.owners != null) {
                b.previousOwners(t.key, t.owners);
            }
        });
        return b.build();
    }

    /** A topic the describer knows: its key in the problem and, once any, its previous owners. */
    private static final class Present {
        final String key;
        final int count;
        String[] owners;

        Present(String key, int count) {
            this.key = key;
            this.count = count;
        }

        String[] owners() {
            if (owners == null) {
                owners = new String[count];
            }
            return owners;
        }
    }

    /**
     * Each partition's replica racks as one shared sorted list per distinct rack set. The
     * describer hands over a new set per partition; its racks are the metadata image's own
     * strings, so a set is matched by a bit mask of rack ids found by identity (equality for a
     * string not seen before), not by hashing and comparing sets.
     */
    private static final class RackSets {
        private final Map<String, Integer> byIdentity = new IdentityHashMap<>();
        private final Map<String, Integer> byValue = new HashMap<>();
        /** Up to this many rack sets a scan of the masks finds one; past it, byMask. */
        private static final int SCAN = 16;
        private final Map<Long, List<String>> byMask = new HashMap<>();
        private final long[] masks = new long[SCAN];
        private final List<String>[] lists = newListArray(SCAN);
        private int size;

        /** The sorted list of {@code set}; a new rack set's racks are added to {@code seen}. */
        List<String> sorted(Set<String> set, Set<String> seen) {
            long mask = 0;
            for (String r : set) {
                int bit = bit(r);
                if (bit >= 63) {
                    seen.addAll(set); // more racks than bits: no sharing, still correct
                    return BrokerProblem.sorted(set);
                }
                mask |= 1L << bit;
            }
            if (size <= SCAN) {
                for (int i = 0; i < size; i++) { // size <= SCAN: all of them are in the arrays
                    if (masks[i] == mask) {
                        return lists[i];
                    }
                }
            } else {
                List<String> known = byMask.get(mask);
                if (known != null) {
                    return known;
                }
            }
            List<String> sorted = BrokerProblem.sorted(set);
            seen.addAll(set);
            if (size < SCAN) {
                masks[size] = mask;
                lists[size] = sorted;
            } else if (size == SCAN) { // many rack sets (many racks): a hash of masks from here on
                for (int i = 0; i < SCAN; i++) {
                    byMask.put(masks[i], lists[i]);
                }
            }
            if (size >= SCAN) {
                byMask.put(mask, sorted);
            }
            size++;
            return sorted;
        }

        private int bit(String rack) {
            Integer b = byIdentity.get(rack);
            if (b == null) {
                b = byValue.computeIfAbsent(rack, r -> byValue.size());
                if (byIdentity.size() < 1024) {
                    byIdentity.put(rack, b);
                }
            }
            return b;
        }

        @SuppressWarnings("unchecked")
        private static List<String>[] newListArray(int n) {
            return (List<String>[]) new List<?>[n];
        }
    }

    /** One member's partitions by topic id; (topic, partition) order, so a topic is one run. */
    private static Map<Uuid, Set<Integer>> partitions(List<TopicPartition> mine, Map<String, Uuid> ids) {
        Map<Uuid, Set<Integer>> parts = new HashMap<>();
        PartitionList fast = mine instanceof PartitionList pl ? pl : null;
        for (int i = 0, n = mine.size(); i < n;) {
            String topic = fast != null ? fast.topic(i) : mine.get(i).topic();
            int j = i + 1;
            while (j < n && (fast != null ? fast.topic(j) : mine.get(j).topic()).equals(topic)) {
                j++;
            }
            int[] ps = new int[j - i];
            for (int k = i; k < j; k++) {
                ps[k - i] = fast != null ? fast.partition(k) : mine.get(k).partition();
            }
            parts.put(ids.computeIfAbsent(topic, Uuid::fromString), new PartitionSet(ps));
            i = j;
        }
        return parts;
    }

    @SuppressWarnings("unchecked")
    private static Set<Uuid>[] newSetArray(int n) {
        return (Set<Uuid>[]) new Set<?>[n];
    }

    /** A partition's replica racks, sorted (a set of one or two needs no TreeSet). */
    private static List<String> sorted(Set<String> racks) {
        if (racks.size() <= 1) {
            return List.copyOf(racks);
        }
        if (racks.size() == 2) {
            java.util.Iterator<String> it = racks.iterator();
            String x = it.next();
            String y = it.next();
            return x.compareTo(y) <= 0 ? List.of(x, y) : List.of(y, x);
        }
        return List.copyOf(new TreeSet<>(racks));
    }

    /** The solution as the coordinator's target assignment: every member present, ids as Uuids. */
    public static GroupAssignment assignment(GroupSpec spec, Solution solution) {
        Map<String, Uuid> ids = new HashMap<>();
        Map<String, MemberAssignment> out = new HashMap<>();
        // The solution (of this spec's problem) lists exactly the spec's members, in id order:
        // walk it once, no lookup per member.
        for (Map.Entry<String, List<TopicPartition>> e : solution.assignment().entrySet()) {
            out.put(e.getKey(), new TargetAssignment(partitions(e.getValue(), ids)));
        }
        for (String m : spec.memberIds()) {
            out.computeIfAbsent(m, k -> new TargetAssignment(new HashMap<>()));
        }
        return new GroupAssignment(out);
    }
}
