package dev.rackwise.core;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import org.junit.jupiter.api.Test;

/** Same input in any order, from any thread: the same result. */
class DeterminismTest {
    /** The same problem with members, topics, racks, replica racks and owners added in another order. */
    static Problem shuffled(Problem pb, Random rnd) {
        Problem.Builder b = Problem.builder().costs(pb.trafficCost(), pb.moveCost());
        List<String> racks = new ArrayList<>(pb.racks());
        racks.addAll(pb.racks()); // duplicates merge
        Collections.shuffle(racks, rnd);
        b.racks(racks);
        List<MemberSpec> ms = new ArrayList<>(pb.members());
        Collections.shuffle(ms, rnd);
        ms.forEach(b::member);
        List<String> topics = new ArrayList<>(pb.topics().keySet());
        Collections.shuffle(topics, rnd);
        for (String t : topics) {
            List<PartitionSpec> parts = new ArrayList<>();
            for (PartitionSpec s : pb.topics().get(t)) {
                List<String> rr = new ArrayList<>(s.replicaRacks());
                Collections.shuffle(rr, rnd);
                parts.add(new PartitionSpec(rr, s.leaderRack(), s.weight()));
            }
            b.topic(t, parts);
        }
        List<Map.Entry<TopicPartition, String>> owners = new ArrayList<>(pb.previousOwners().entrySet());
        Collections.shuffle(owners, rnd);
        owners.forEach(e -> b.previousOwner(e.getKey().topic(), e.getKey().partition(), e.getValue()));
        return b.build();
    }

    @Test
    void anyInputOrderGivesTheSameResult() {
        long seed = Long.getLong("rackwise.seed", 11L);
        System.out.println("DeterminismTest seed=" + seed);
        Random rnd = new Random(seed);
        for (int round = 0; round < 60; round++) {
            Problem pb = Gen.random(rnd, 1 + rnd.nextInt(4), 1 + rnd.nextInt(12), 1 + rnd.nextInt(4), 12, rnd.nextBoolean());
            Solution s = RackOptimal.solve(pb);
            RackOptimalTest.assertValid(pb, s);
            for (int k = 0; k < 3; k++) {
                assertEquals(s, RackOptimal.solve(shuffled(pb, rnd)), "seed=" + seed + " round=" + round);
            }
        }
    }

    @Test
    void concurrentSolvesAgree() throws Exception {
        long seed = Long.getLong("rackwise.seed", 13L);
        System.out.println("DeterminismTest concurrent seed=" + seed);
        Random rnd = new Random(seed);
        List<Problem> problems = new ArrayList<>();
        List<Solution> expected = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
            Problem pb = Gen.random(rnd, 3, 20, 3, 40, i % 2 == 0);
            problems.add(pb);
            expected.add(RackOptimal.solve(pb));
        }
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<List<Solution>>> futures = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                int shift = t;
                futures.add(pool.submit(() -> {
                    List<Solution> out = new ArrayList<>(Collections.nCopies(problems.size(), (Solution) null));
                    for (int r = 0; r < 5; r++) {
                        for (int i = 0; i < problems.size(); i++) {
                            int j = (i + shift) % problems.size();
                            out.set(j, RackOptimal.solve(problems.get(j)));
                        }
                    }
                    return out;
                }));
            }
            for (Future<List<Solution>> f : futures) {
                assertEquals(expected, f.get());
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
