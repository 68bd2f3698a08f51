package dev.rackwise.plugins.classic;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import dev.rackwise.core.IndexedProblem;
import dev.rackwise.core.IndexedSolution;
import dev.rackwise.core.MemberSpec;
import dev.rackwise.core.PartitionSpec;
import dev.rackwise.core.Problem;
import dev.rackwise.core.Solution;
import dev.rackwise.plugins.advice.AdviceView;
import dev.rackwise.plugins.advice.GroupCosts;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Assignment;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.GroupAssignment;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Subscription;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;

/**
 * A classic group's subscriptions and the leader's metadata as a rack-optimal {@link Problem},
 * and the solution back as Kafka's GroupAssignment.
 *
 * <p>Replica and leader racks come from the metadata the leader already holds; previous owners
 * from the members' owned partitions by Kafka's generation rules ({@link Ownership}). Under the
 * cooperative protocol a partition never goes to a new owner while another member still lists
 * it as owned: it is withheld this round, the owner revokes it, and Kafka's follow-up rebalance
 * hands it over (what CooperativeStickyAssignor does, and what the coordinator checks).
 *
 * <p>Example: c1 (az1) owned t-0 and the plan gives t-0 to c2: under cooperative t-0 goes to
 * nobody this round; c1 revokes it and the next round gives it to c2.
 */
public final class ClassicProblem {
    private ClassicProblem() {
    }

    /**
     * One assign() call's problem as the core's indices, read straight from the leader's
     * metadata and the subscriptions (no {@link Problem} of strings in between; docs/rack-optimal.md
     * § 7), with what the answer needs to go back: each topic index's name, each partition's
     * offset, and who lists each partition as owned. States the same problem {@link #of} does,
     * and the core gives the same assignment for both.
     *
     * @param problem  the core's input (members in the subscriptions' iteration order)
     * @param memberIds member index to id
     * @param topicNames topic index to name
     * @param topicStart topic index to the offset of its partition 0 in the per-partition arrays
     * @param firstLister per partition, the member (index) with the smallest id that lists it as
     *                 owned, or -1
     * @param listers  the members that list it, for the few partitions listed by more than one
     */
    public record Indexed(IndexedProblem problem, String[] memberIds, String[] topicNames, int[] topicStart,
                          int[] firstLister, Map<Integer, List<Integer>> listers) {
        /** The problem as a {@link Problem} (plan reports, off the assignment path). */
        public Problem toProblem() {
            return problem.toProblem();
        }
    }

    /** As {@link #of}, as indices. */
    public static Indexed indexed(Cluster metadata, Map<String, Subscription> subscriptions, AdviceView advice,
                                  GroupCosts costs, boolean followerFetching) {
        Map<String, Integer> counts = partitionCounts(metadata, subscriptions);
        int topics = counts.size();
        String[] topicNames = new String[topics];
        int[] topicStart = new int[topics + 1];
        Map<String, Integer> topicIndex = new HashMap<>(2 * topics + 1);
        int t = 0;
        for (Map.Entry<String, Integer> e : counts.entrySet()) {
            topicNames[t] = e.getKey();
            topicIndex.put(e.getKey(), t);
            topicStart[t + 1] = topicStart[t] + e.getValue();
            t++;
        }
        int n = subscriptions.size();
        IndexedProblem.Builder b = IndexedProblem.builder(n, topics, topicStart[topics])
            .costs(costs.trafficCost(), costs.nonOverlapCost());
        for (t = 0; t < topics; t++) {
            b.topic(topicNames[t], topicStart[t + 1] - topicStart[t]);
        }
        // Members, one subscription per distinct topic list (by identity first: members of one
        // application often share theirs).
        Map<List<String>, Integer> subIds = new HashMap<>();
        Map<List<String>, Integer> sameList = new IdentityHashMap<>();
        String[] memberIds = new String[n];
        int[] gen = new int[n];
        Map<String, Integer> memberIndex = new HashMap<>(2 * n + 1);
        for (Map.Entry<String, Subscription> e : subscriptions.entrySet()) {
            Subscription sub = e.getValue();
            List<String> ts = sub.topics();
            Integer s = sameList.get(ts);
            if (s == null) {
                s = subIds.get(ts);
                if (s == null) {
                    int[] known = new int[ts.size()];
                    int k = 0;
                    for (String name : ts) {
                        Integer ti = topicIndex.get(name);
                        if (ti != null) {
                            known[k++] = ti;
                        }
                    }
                    Arrays.sort(known, 0, k);
                    int u = 0;
                    for (int i = 0; i < k; i++) {
                        if (u == 0 || known[u - 1] != known[i]) {
                            known[u++] = known[i];
                        }
                    }
                    s = b.subscription(Arrays.copyOf(known, u));
                    subIds.put(ts, s);
                }
                sameList.put(ts, s);
            }
            String rack = sub.rackId().filter(r -> !r.isEmpty()).orElse(null);
            int m = b.member(e.getKey(), rack, followerFetching && rack != null, s);
            memberIds[m] = e.getKey();
            gen[m] = sub.generationId().orElse(-1);
            memberIndex.put(e.getKey(), m);
        }
        // Racks: each broker's rack as a bit, each partition's replica racks as a mask, each
        // distinct mask one rack set of the problem.
        Set<String> racks = new TreeSet<>();
        Map<String, Integer> rackBit = new HashMap<>();
        Map<Node, Integer> nodeBit = new IdentityHashMap<>();
        for (Node node : metadata.nodes()) {
            if (node.hasRack()) {
                racks.add(node.rack());
                nodeBit.put(node, rackBit.computeIfAbsent(node.rack(), r -> rackBit.size()));
            }
        }
        Map<Long, Integer> rackSetOf = new HashMap<>();
        Map<String, Integer> leaders = new HashMap<>();
        PartitionInfo[] infos = new PartitionInfo[16];
        for (t = 0; t < topics; t++) {
            String topic = topicNames[t];
            int count = topicStart[t + 1] - topicStart[t];
            if (infos.length < count) {
                infos = new PartitionInfo[Math.max(count, 2 * infos.length)];
            }
            Arrays.fill(infos, 0, count, null);
            for (PartitionInfo info : metadata.partitionsForTopic(topic)) {
                if (info.partition() >= 0 && info.partition() < count) {
                    infos[info.partition()] = info;
                }
            }
            for (int p = 0; p < count; p++) {
                PartitionInfo info = infos[p];
                long mask = 0;
                boolean wide = false;
                String leader = null;
                if (info != null) {
                    for (Node r : info.replicas()) {
                        if (r == null || !r.hasRack()) {
                            continue;
                        }
                        Integer bit = nodeBit.get(r);
                        if (bit == null) { // a replica's Node not among metadata.nodes(): by its rack
                            racks.add(r.rack());
                            bit = rackBit.computeIfAbsent(r.rack(), x -> rackBit.size());
                        }
                        if (bit >= 63) {
                            wide = true;
                        } else {
                            mask |= 1L << bit;
                        }
                    }
                    Node l = info.leader();
                    leader = l != null && l.hasRack() ? l.rack() : null;
                }
                if (leader == null) {
                    leader = advice.leaderRack(topic, p);
                }
                int set;
                if (wide) { // more racks than a mask holds: this partition's own set
                    set = b.rackSet(replicaRacks(info));
                } else {
                    Integer known = rackSetOf.get(mask);
                    if (known == null) {
                        known = b.rackSet(replicaRacks(info));
                        rackSetOf.put(mask, known);
                    }
                    set = known;
                }
                int l = -1;
                if (leader != null) {
                    Integer li = leaders.get(leader);
                    if (li == null) {
                        li = b.leader(leader);
                        leaders.put(leader, li);
                    }
                    l = li;
                }
                b.partition(t, p, set, l, advice.weight(topic, p));
            }
        }
        b.racks(racks);
        // Previous owners by Kafka's generation rules ({@link Ownership}, the same visits), and
        // who lists each partition (for what cooperative withholds).
        int parts = topicStart[topics];
        int[] claimant = new int[parts];
        int[] owner = new int[parts];
        int[] firstLister = new int[parts];
        Arrays.fill(claimant, -1);
        Arrays.fill(owner, -1);
        Arrays.fill(firstLister, -1);
        Map<Integer, List<Integer>> listers = new HashMap<>();
        for (Map.Entry<String, Subscription> e : new HashMap<>(subscriptions).entrySet()) {
            int m = memberIndex.get(e.getKey());
            for (TopicPartition tp : e.getValue().ownedPartitions()) {
                Integer ti = topicIndex.get(tp.topic());
                if (ti == null || tp.partition() < 0 || tp.partition() >= topicStart[ti + 1] - topicStart[ti]) {
                    continue;
                }
                int at = topicStart[ti] + tp.partition();
                int first = firstLister[at];
                if (first < 0) {
                    firstLister[at] = m;
                } else {
                    List<Integer> all = listers.computeIfAbsent(at, x -> new ArrayList<>(List.of(first)));
                    all.add(m);
                    if (memberIds[m].compareTo(memberIds[first]) < 0) {
                        firstLister[at] = m;
                    }
                }
                int other = claimant[at];
                if (other < 0) {
                    claimant[at] = m;
                    owner[at] = m;
                } else if (gen[m] == gen[other]) {
                    owner[at] = -1;
                    claimant[at] = m;
                } else if (gen[m] > gen[other]) {
                    owner[at] = m;
                    claimant[at] = m;
                }
            }
        }
        for (t = 0; t < topics; t++) {
            for (int at = topicStart[t]; at < topicStart[t + 1]; at++) {
                if (owner[at] >= 0) {
                    b.owner(t, at - topicStart[t], owner[at]);
                }
            }
        }
        return new Indexed(b.build(), memberIds, topicNames, topicStart, firstLister, listers);
    }

    private static List<String> replicaRacks(PartitionInfo info) {
        List<String> out = new ArrayList<>();
        if (info != null) {
            for (Node n : info.replicas()) {
                if (n != null && n.hasRack() && !out.contains(n.rack())) {
                    out.add(n.rack());
                }
            }
        }
        return out;
    }

    /**
     * As {@link #withheld(Map, Solution)} on the indexed answer: the partitions given to a member
     * that does not list it as owned while another member does, each with that other member
     * (the first by id), in (topic, partition) order.
     */
    public static Map<TopicPartition, String> withheld(Indexed problem, IndexedSolution solution) {
        Map<TopicPartition, String> out = new TreeMap<>(ClassicProblem::compare);
        int[] ts = new int[solution.maxCount()];
        int[] ps = new int[ts.length];
        for (int m = 0; m < problem.memberIds().length; m++) {
            int size = solution.fill(m, ts, ps);
            for (int i = 0; i < size; i++) {
                int at = problem.topicStart()[ts[i]] + ps[i];
                int first = problem.firstLister()[at];
                if (first < 0 || first == m) {
                    continue;
                }
                List<Integer> all = problem.listers().get(at);
                if (all != null && all.contains(m)) {
                    continue;
                }
                out.put(new TopicPartition(problem.topicNames()[ts[i]], ps[i]), problem.memberIds()[first]);
            }
        }
        return out;
    }

    /** As {@link #assignment(Map, Solution, Map)} on the indexed answer. */
    public static GroupAssignment assignment(Indexed problem, IndexedSolution solution,
                                             Map<TopicPartition, String> withheld) {
        int n = problem.memberIds().length;
        Map<String, Assignment> out = new HashMap<>(2 * n + 1);
        int[] ts = new int[solution.maxCount()];
        int[] ps = new int[ts.length];
        for (int m = 0; m < n; m++) {
            int size = solution.fill(m, ts, ps);
            List<TopicPartition> mine = new ArrayList<>(size);
            for (int i = 0; i < size; i++) {
                TopicPartition tp = new TopicPartition(problem.topicNames()[ts[i]], ps[i]);
                if (withheld.isEmpty() || !withheld.containsKey(tp)) {
                    mine.add(tp);
                }
            }
            out.put(problem.memberIds()[m], new Assignment(mine));
        }
        return new GroupAssignment(out);
    }

    /**
     * The problem of one assign() call as a {@link Problem} of strings, read the plain way (the
     * reference the tests hold {@link #indexed} to).
     */
    public static Problem of(Cluster metadata, Map<String, Subscription> subscriptions, AdviceView advice,
                             GroupCosts costs, boolean followerFetching) {
        Problem.Builder b = Problem.builder().costs(costs.trafficCost(), costs.nonOverlapCost());
        Set<String> racks = new TreeSet<>();
        for (Node node : metadata.nodes()) {
            if (node.hasRack()) {
                racks.add(node.rack());
            }
        }
        Map<String, Integer> counts = partitionCounts(metadata, subscriptions);
        for (Map.Entry<String, Integer> t : counts.entrySet()) {
            List<PartitionSpec> parts = new ArrayList<>(t.getValue());
            for (int p = 0; p < t.getValue(); p++) {
                PartitionInfo info = metadata.partition(new TopicPartition(t.getKey(), p));
                List<String> replicaRacks = new ArrayList<>();
                String leader = null;
                if (info != null) {
                    for (Node n : info.replicas()) {
                        if (n != null && n.hasRack() && !replicaRacks.contains(n.rack())) {
                            replicaRacks.add(n.rack());
                        }
                    }
                    replicaRacks.sort(null);
                    Node l = info.leader();
                    leader = l != null && l.hasRack() ? l.rack() : null;
                }
                if (leader == null) {
                    leader = advice.leaderRack(t.getKey(), p);
                }
                racks.addAll(replicaRacks);
                parts.add(new PartitionSpec(replicaRacks, leader, advice.weight(t.getKey(), p)));
            }
            b.topic(t.getKey(), parts);
        }
        b.racks(racks);
        // One topic set per distinct subscription list, shared by its members.
        Map<List<String>, Set<String>> topicSets = new HashMap<>();
        for (Map.Entry<String, Subscription> e : subscriptions.entrySet()) {
            String rack = e.getValue().rackId().filter(r -> !r.isEmpty()).orElse(null);
            Set<String> mine = topicSets.computeIfAbsent(e.getValue().topics(), ts -> {
                List<String> known = new ArrayList<>(ts.size());
                for (String t : ts) {
                    if (counts.containsKey(t)) {
                        known.add(t);
                    }
                }
                return MemberSpec.topicSet(known);
            });
            b.member(e.getKey(), rack, followerFetching && rack != null, mine);
        }
        Ownership.previousOwners(subscriptions, counts)
            .forEach((tp, m) -> b.previousOwner(tp.topic(), tp.partition(), m));
        return b.build();
    }

    /** Topics someone subscribes to that the metadata knows with at least one partition. */
    static Map<String, Integer> partitionCounts(Cluster metadata, Map<String, Subscription> subscriptions) {
        // each distinct topic list once (by identity, then by content), each topic asked once
        Map<List<String>, Boolean> sameList = new IdentityHashMap<>();
        Set<List<String>> lists = new HashSet<>();
        Map<String, Integer> counts = new HashMap<>();
        for (Subscription s : subscriptions.values()) {
            List<String> ts = s.topics();
            if (sameList.put(ts, Boolean.TRUE) != null || !lists.add(ts)) {
                continue;
            }
            for (String t : ts) {
                if (!counts.containsKey(t)) {
                    Integer n = metadata.partitionCountForTopic(t);
                    counts.put(t, n == null ? 0 : n);
                }
            }
        }
        Map<String, Integer> known = new TreeMap<>();
        counts.forEach((t, n) -> {
            if (n > 0) {
                known.put(t, n);
            }
        });
        return known;
    }

    /**
     * The partitions to withhold this round under cooperative: given to a member that does not
     * list it as owned while another member does. Value: that other member (the first by id).
     * The plain path's form, with {@link #of}: assign() runs {@link #withheld(Indexed, IndexedSolution)}.
     */
    public static Map<TopicPartition, String> withheld(Map<String, Subscription> subscriptions, Solution solution) {
        Map<TopicPartition, List<String>> listedBy = new HashMap<>();
        for (Map.Entry<String, Subscription> e : new TreeMap<>(subscriptions).entrySet()) {
            for (TopicPartition tp : e.getValue().ownedPartitions()) {
                listedBy.computeIfAbsent(tp, k -> new ArrayList<>()).add(e.getKey());
            }
        }
        Map<TopicPartition, String> out = new TreeMap<>(ClassicProblem::compare);
        solution.assignment().forEach((member, tps) -> {
            for (dev.rackwise.core.TopicPartition core : tps) {
                TopicPartition tp = new TopicPartition(core.topic(), core.partition());
                List<String> owners = listedBy.getOrDefault(tp, List.of());
                if (owners.contains(member)) {
                    continue; // not new to this member: nothing to hand over
                }
                if (!owners.isEmpty()) {
                    out.put(tp, owners.get(0));
                }
            }
        });
        return out;
    }

    /**
     * The solution as Kafka's GroupAssignment, less {@code withheld}; every member present. The
     * plain path's form, with {@link #of}: assign() runs {@link #assignment(Indexed, IndexedSolution, Map)}.
     */
    public static GroupAssignment assignment(Map<String, Subscription> subscriptions, Solution solution,
                                             Map<TopicPartition, String> withheld) {
        Map<String, Assignment> out = new HashMap<>();
        for (String member : subscriptions.keySet()) {
            List<TopicPartition> mine = new ArrayList<>();
            for (dev.rackwise.core.TopicPartition core : solution.assignment().getOrDefault(member, List.of())) {
                TopicPartition tp = new TopicPartition(core.topic(), core.partition());
                if (!withheld.containsKey(tp)) {
                    mine.add(tp);
                }
            }
            out.put(member, new Assignment(mine));
        }
        return new GroupAssignment(out);
    }

    static int compare(TopicPartition a, TopicPartition b) {
        int c = a.topic().compareTo(b.topic());
        return c != 0 ? c : Integer.compare(a.partition(), b.partition());
    }
}
