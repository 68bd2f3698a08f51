package dev.rackwise.plugins.classic;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.TreeMap;

import dev.rackwise.core.IndexedSolution;
import dev.rackwise.core.Problem;
import dev.rackwise.core.RackOptimal;
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
import org.junit.jupiter.api.Test;

/**
 * The classic adapter's indexed path ({@link ClassicProblem#indexed}, what assign() runs) states
 * the problem the plain path of strings ({@link ClassicProblem#of}) states: on seeded random
 * groups with every oddity a leader can see (brokers without racks, partitions missing from the
 * metadata or without a leader, unknown and repeated topics in a subscription, empty rack ids,
 * claims on unknown topics, out of range, by two members of one generation or of two), both give
 * the same assignment, cost, moves and withheld partitions, and the indexed problem reads back as
 * the same problem.
 */
class IndexedClassicProblemTest {
    private static final long SEED = 20261129L;

    @Test
    void theIndexedPathGivesThePlainPathsAnswerOnRandomGroups() {
        System.out.println("IndexedClassicProblemTest seed " + SEED);
        Random rnd = new Random(SEED);
        for (int round = 0; round < 300; round++) {
            Case c = randomCase(rnd);
            Problem plain = ClassicProblem.of(c.cluster, c.subs, c.advice, GroupCosts.DEFAULT, c.followers);
            Solution want = RackOptimal.solve(plain);
            ClassicProblem.Indexed indexed = ClassicProblem.indexed(c.cluster, c.subs, c.advice, GroupCosts.DEFAULT,
                c.followers);
            IndexedSolution got = RackOptimal.solve(indexed.problem());
            String where = "round " + round + " (seed " + SEED + ")";
            assertEquals(want.assignment(), got.toSolution().assignment(), where);
            assertEquals(want.cost(), got.cost(), 1e-9 * Math.max(1, Math.abs(want.cost())), where);
            assertEquals(want.moved(), got.moved(), where);
            assertEquals(RackOptimal.solve(indexed.toProblem()).assignment(), want.assignment(), where);
            Map<TopicPartition, String> withheld = ClassicProblem.withheld(c.subs, want);
            assertEquals(withheld, ClassicProblem.withheld(indexed, got), where);
            assertEquals(lists(ClassicProblem.assignment(c.subs, want, withheld)),
                lists(ClassicProblem.assignment(indexed, got, withheld)), where);
        }
    }

    private static Map<String, List<TopicPartition>> lists(GroupAssignment a) {
        Map<String, List<TopicPartition>> out = new TreeMap<>();
        for (Map.Entry<String, Assignment> e : a.groupAssignment().entrySet()) {
            out.put(e.getKey(), e.getValue().partitions());
        }
        return out;
    }

    private record Case(Cluster cluster, Map<String, Subscription> subs, AdviceView advice, boolean followers) {
    }

    private static Case randomCase(Random rnd) {
        int racks = 1 + rnd.nextInt(4);
        List<Node> nodes = new ArrayList<>();
        for (int i = 0; i < 2 * racks + 1; i++) {
            // the last broker has no rack; one in five rounds, another one neither
            String rack = i == 2 * racks || rnd.nextInt(5) == 0 ? null : "az" + (i % racks);
            nodes.add(new Node(i, "h" + i, 9092, rack));
        }
        int topics = 1 + rnd.nextInt(4);
        List<PartitionInfo> parts = new ArrayList<>();
        Map<String, Integer> counts = new HashMap<>();
        for (int t = 0; t < topics; t++) {
            String topic = "t" + t;
            int count = 1 + rnd.nextInt(12);
            counts.put(topic, count);
            for (int p = 0; p < count; p++) {
                if (rnd.nextInt(15) == 0 && p > 0) {
                    continue; // missing from the metadata
                }
                Node[] replicas = new Node[1 + rnd.nextInt(3)];
                for (int r = 0; r < replicas.length; r++) {
                    replicas[r] = nodes.get(rnd.nextInt(nodes.size()));
                }
                Node leader = rnd.nextInt(6) == 0 ? null : replicas[0];
                parts.add(new PartitionInfo(topic, p, leader, replicas, replicas));
            }
        }
        java.util.Collections.shuffle(parts, rnd);
        Cluster cluster = new Cluster("c", nodes, parts, java.util.Set.of(), java.util.Set.of());
        int members = 1 + rnd.nextInt(8);
        Map<String, Subscription> subs = new HashMap<>();
        List<List<String>> shared = new ArrayList<>();
        for (int m = 0; m < members; m++) {
            List<String> ts;
            if (!shared.isEmpty() && rnd.nextBoolean()) {
                ts = shared.get(rnd.nextInt(shared.size()));
            } else {
                ts = new ArrayList<>();
                for (int t = 0; t < topics; t++) {
                    if (rnd.nextInt(3) > 0) {
                        ts.add("t" + t);
                    }
                }
                if (rnd.nextInt(6) == 0) {
                    ts.add("unknown");
                }
                if (rnd.nextInt(8) == 0 && !ts.isEmpty()) {
                    ts.add(ts.get(0)); // a topic listed twice
                }
                java.util.Collections.shuffle(ts, rnd);
                shared.add(ts);
            }
            List<TopicPartition> owned = new ArrayList<>();
            for (int t = 0; t < topics; t++) {
                for (int p = 0; p < counts.get("t" + t) + 1; p++) {
                    if (rnd.nextInt(members + 1) == 0) {
                        owned.add(new TopicPartition("t" + t, p)); // p == count: out of range
                    }
                }
            }
            if (rnd.nextInt(5) == 0) {
                owned.add(new TopicPartition("gone", 0));
            }
            String rack = switch (rnd.nextInt(6)) {
                case 0 -> null;
                case 1 -> "";
                default -> "az" + rnd.nextInt(racks + 1); // az{racks}: a rack no broker has
            };
            Optional<Integer> gen = rnd.nextInt(5) == 0 ? Optional.empty() : Optional.of(1 + rnd.nextInt(3));
            subs.put(String.format("c-%02d-%s", rnd.nextInt(100), Integer.toHexString(m)),
                new Subscription(ts, (ByteBuffer) null, owned, gen.orElse(-1), Optional.ofNullable(rack)));
        }
        boolean weighted = rnd.nextBoolean();
        boolean leaders = rnd.nextBoolean();
        AdviceView advice = new AdviceView() {
            @Override
            public double weight(String topic, int partition) {
                return weighted ? 0.5 + ((topic.hashCode() * 31 + partition) & 7) : 1.0;
            }

            @Override
            public String leaderRack(String topic, int partition) {
                return leaders && partition % 3 == 0 ? "az" + (partition % racks) : null;
            }
        };
        return new Case(cluster, subs, advice, rnd.nextBoolean());
    }
}
