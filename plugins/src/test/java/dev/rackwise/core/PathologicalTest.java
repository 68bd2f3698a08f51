package dev.rackwise.core;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

import org.junit.jupiter.api.Test;

/**
 * The coordinator thread's worst case (docs/rack-optimal.md § 7): 10,000 members,
 * every one with a subscription of its own, every weight distinct. It must finish, balanced and
 * at the optimum; how long it takes is printed, not asserted (a shared machine).
 *
 * <p>The input is built so both are known without the solver. Member m subscribes its own
 * topic {@code own-m} (1-3 partitions, one replica in a random rack) and the shared topic
 * {@code shared} (3 partitions a member, replicas in two racks, the three rack pairs equally
 * often), so every member's subscription differs (N + 1 classes). Members are spread evenly
 * over three racks and read followers.
 * <ul>
 * <li>Balance: a member's own partitions are its alone, so the least sum of squared loads is
 * water-filling of the shared partitions over the own counts: loads max(k_m, L) for a level
 * L, the last few one above it.</li>
 * <li>Cost: each shared partition has two racks of subscribers, and the rack pairs are even,
 * so every shared partition can be read locally whatever the per-member counts; the own
 * partitions have one subscriber. The optimum is therefore every partition at its cheapest
 * subscriber: Σ_p min_m unit(p, m), computed here with {@link Oracle}.</li>
 * </ul>
 * {@code -Drackwise.pathological.members=N} changes the size, {@code -Drackwise.seed} the seed.
 */
class PathologicalTest {
    @Test
    void tenThousandMembersEachWithItsOwnSubscriptionAndDistinctWeights() {
        long seed = Long.getLong("rackwise.seed", 28L);
        int n = Integer.getInteger("rackwise.pathological.members", 10_000);
        Random rnd = new Random(seed);
        List<String> racks = List.of("az1", "az2", "az3");
        int sharedParts = 3 * n;
        int[] own = new int[n];
        int total = sharedParts;
        for (int m = 0; m < n; m++) {
            own[m] = 1 + rnd.nextInt(3);
            total += own[m];
        }
        // every weight distinct: 1 + rank / P over a shuffled rank
        List<Integer> ranks = new ArrayList<>();
        for (int i = 0; i < total; i++) {
            ranks.add(i);
        }
        Collections.shuffle(ranks, rnd);
        int next = 0;
        Problem.Builder b = Problem.builder().racks(racks).costs(10.0, 1.0);
        for (int m = 0; m < n; m++) {
            b.member(String.format("m%05d", m), racks.get(m % 3), true, Set.of("own-" + m, "shared"));
            List<PartitionSpec> specs = new ArrayList<>();
            for (int k = 0; k < own[m]; k++) {
                String rack = racks.get(rnd.nextInt(3));
                specs.add(new PartitionSpec(List.of(rack), rack, 1 + (double) ranks.get(next++) / total));
            }
            b.topic("own-" + m, specs);
        }
        List<PartitionSpec> shared = new ArrayList<>();
        for (int p = 0; p < sharedParts; p++) {
            List<String> pair = List.of(racks.get(p % 3), racks.get((p + 1) % 3));
            shared.add(new PartitionSpec(pair, pair.get(0), 1 + (double) ranks.get(next++) / total));
        }
        b.topic("shared", shared);
        Problem pb = b.build();

        long start = System.nanoTime();
        Solution s = RackOptimal.solve(pb);
        long millis = (System.nanoTime() - start) / 1_000_000;
        System.out.printf("PathologicalTest seed=%d: %d members, %d classes, %d partitions solved in %d ms%n",
            seed, n, n + 1, total, millis);

        RackOptimalTest.assertValid(pb, s);
        // balance: the water-filled loads, compared as sorted vectors
        List<Integer> expected = waterFilled(own, sharedParts);
        List<Integer> got = new ArrayList<>();
        for (List<TopicPartition> tps : s.assignment().values()) {
            got.add(tps.size());
        }
        Collections.sort(got);
        assertEquals(expected, got, "seed=" + seed + ": the least sum of squared loads");
        // cost: every partition at its cheapest subscriber
        Map<String, List<MemberSpec>> subscribers = new HashMap<>();
        for (MemberSpec m : pb.members()) {
            for (String t : m.topics()) {
                subscribers.computeIfAbsent(t, x -> new ArrayList<>()).add(m);
            }
        }
        long best = 0;
        for (Map.Entry<String, List<PartitionSpec>> t : pb.topics().entrySet()) {
            for (int p = 0; p < t.getValue().size(); p++) {
                long cheapest = Long.MAX_VALUE;
                for (MemberSpec m : subscribers.get(t.getKey())) {
                    cheapest = Math.min(cheapest, Oracle.unit(pb, m, new TopicPartition(t.getKey(), p)));
                    if (cheapest == 0) {
                        break;
                    }
                }
                best += cheapest;
            }
        }
        assertEquals(best, s.objective(), "seed=" + seed + ": the optimum");
        assertEquals(best, Oracle.objective(pb, s.assignment()), "seed=" + seed + ": the optimum, recomputed");
    }

    /** The loads of least sum of squares when member m must take own[m] and the shared are free. */
    static List<Integer> waterFilled(int[] own, int shared) {
        // raise the lowest members one level at a time: a level's cost is how many sit below it
        int[] sorted = own.clone();
        java.util.Arrays.sort(sorted);
        int left = shared;
        int level = sorted[0];
        int below = 0; // members at or under `level`
        while (true) {
            while (below < sorted.length && sorted[below] <= level) {
                below++;
            }
            if (left < below) {
                break;
            }
            left -= below;
            level++;
        }
        List<Integer> out = new ArrayList<>();
        int extra = left; // the first `extra` members at the level take one more
        for (int m = 0; m < sorted.length; m++) {
            if (sorted[m] <= level) {
                out.add(level + (extra-- > 0 ? 1 : 0));
            } else {
                out.add(sorted[m]);
            }
        }
        Collections.sort(out);
        return out;
    }
}
