package dev.rackwise.core;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;

/** Seeded random problems for the tests, small enough for a brute force when asked. */
final class Gen {
    private Gen() {
    }

    static Problem tiny(Random rnd) {
        return random(rnd, 1 + rnd.nextInt(3), 1 + rnd.nextInt(3), 2, 3, rnd.nextBoolean());
    }

    /** racks (1..), members, topics, max partitions per topic; weighted or all weight 1. */
    static Problem random(Random rnd, int racks, int members, int topics, int maxParts, boolean weighted) {
        List<String> rackNames = new ArrayList<>();
        for (int r = 0; r < racks; r++) {
            rackNames.add("az" + (r + 1));
        }
        double alpha = new double[] {0, 1, 10, 2.5}[rnd.nextInt(4)];
        double beta = new double[] {0, 1, 3, 0.5}[rnd.nextInt(4)];
        Problem.Builder b = Problem.builder().racks(rackNames).costs(alpha, beta);
        List<String> ids = new ArrayList<>();
        for (int m = 0; m < members; m++) {
            String id = "m" + m;
            ids.add(id);
            String rack = rnd.nextInt(4) == 0 ? null : rackNames.get(rnd.nextInt(racks));
            Set<String> subs = new TreeSet<>();
            for (int t = 0; t < topics; t++) {
                if (rnd.nextInt(3) > 0) {
                    subs.add("t" + t);
                }
            }
            if (subs.isEmpty()) {
                subs.add("t" + rnd.nextInt(topics));
            }
            b.member(id, rack, rnd.nextBoolean(), subs);
        }
        for (int t = 0; t < topics; t++) {
            int parts = 1 + rnd.nextInt(maxParts);
            List<PartitionSpec> specs = new ArrayList<>();
            for (int p = 0; p < parts; p++) {
                List<String> replicas = new ArrayList<>(rackNames);
                Collections.shuffle(replicas, rnd);
                replicas = new ArrayList<>(replicas.subList(0, rnd.nextInt(racks + 1)));
                String leader = replicas.isEmpty() || rnd.nextInt(8) == 0 ? null : replicas.get(0);
                double w = weighted ? 1 + rnd.nextInt(5) : 1.0;
                specs.add(new PartitionSpec(replicas, leader, w));
                int who = rnd.nextInt(members + 2);
                if (who < members) {
                    b.previousOwner("t" + t, p, ids.get(who));
                } else if (who == members) {
                    b.previousOwner("t" + t, p, "gone");
                }
            }
            b.topic("t" + t, specs);
        }
        return b.build();
    }
}
