package dev.rackwise.core;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;

import org.junit.jupiter.api.Test;

/**
 * Groups too big for a brute force, against a plain per-partition flow (one node per
 * partition, one arc per member, costs from {@link Oracle}; no aggregation, no decode) with the
 * uniform balance: the optimum, and with equal weights the fewest moves among optima.
 */
class PerPartitionOracleTest {
    @Test
    void aggregateOptimumEqualsPerPartitionOptimum() {
        long seed = Long.getLong("rackwise.seed", 23L);
        System.out.println("PerPartitionOracleTest seed=" + seed);
        Random rnd = new Random(seed);
        for (int round = 0; round < 150; round++) {
            Problem pb = uniform(Gen.random(rnd, 1 + rnd.nextInt(4), 2 + rnd.nextInt(10), 1 + rnd.nextInt(3), 25,
                    rnd.nextInt(3) == 0));
            String label = "seed=" + seed + " round=" + round;
            Solution s = RackOptimal.solve(pb);
            RackOptimalTest.assertValid(pb, s);
            List<MemberSpec> ms = pb.members();
            List<TopicPartition> all = new ArrayList<>();
            for (Map.Entry<String, List<PartitionSpec>> t : pb.topics().entrySet()) {
                for (int p = 0; p < t.getValue().size(); p++) {
                    all.add(new TopicPartition(t.getKey(), p));
                }
            }
            int n = ms.size();
            int parts = all.size();
            long scale = parts + 1L;
            MinCostFlow f = new MinCostFlow();
            int sink = f.addNode();
            int[] member = new int[n];
            for (int m = 0; m < n; m++) {
                member[m] = f.addNode();
                f.addSupply(member[m], -(parts / n));
                if (parts % n != 0) {
                    f.addArc(member[m], sink, 1, 0);
                }
            }
            f.addSupply(sink, -(parts % n));
            for (TopicPartition tp : all) {
                int node = f.addNode();
                f.addSupply(node, 1);
                String prev = pb.previousOwners().get(tp);
                for (int m = 0; m < n; m++) {
                    boolean move = prev != null && !prev.equals(ms.get(m).id());
                    f.addArc(node, member[m], 1, Oracle.unit(pb, ms.get(m), tp) * scale + (move ? 1 : 0));
                }
            }
            long best = f.solve();
            assertEquals(best / scale, s.objective(), label + ": optimum");
            boolean sameWeights = pb.topics().values().stream().flatMap(List::stream)
                    .mapToDouble(PartitionSpec::weight).distinct().count() <= 1;
            if (sameWeights) {
                assertEquals(best % scale, s.moved(), label + ": fewest moves among the optima");
            }
        }
    }

    /** The same problem with every member subscribing every topic. */
    private static Problem uniform(Problem pb) {
        Problem.Builder b = Problem.builder().racks(pb.racks()).costs(pb.trafficCost(), pb.moveCost());
        Set<String> topics = new TreeSet<>(pb.topics().keySet());
        for (MemberSpec m : pb.members()) {
            b.member(m.id(), m.rack(), m.readsFollowers(), topics);
        }
        pb.topics().forEach(b::topic);
        pb.previousOwners().forEach((tp, m) -> b.previousOwner(tp.topic(), tp.partition(), m));
        return b.build();
    }
}
