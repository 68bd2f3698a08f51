package dev.rackwise.plugins.classic;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

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

    /** The problem of one assign() call. */
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
        Map<String, Integer> counts = new TreeMap<>();
        for (Subscription s : subscriptions.values()) {
            for (String t : s.topics()) {
                Integer n = metadata.partitionCountForTopic(t);
                if (n != null && n > 0) {
                    counts.put(t, n);
                }
            }
        }
        return counts;
    }

    /**
     * The partitions to withhold this round under cooperative: given to a member that does not
     * list it as owned while another member does. Value: that other member (the first by id).
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

    /** The solution as Kafka's GroupAssignment, less {@code withheld}; every member present. */
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
