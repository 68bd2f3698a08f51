package dev.rackwise.tasks;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.rackwise.core.TopicPartition;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/** The same problem added in any order gives the same plan, on any number of threads. */
class DeterminismTest {
    /** One random problem as its parts, so a test can add them in any order. */
    record Parts(List<TaskSpec> tasks, List<ClientSpec> clients,
                 List<Map.Entry<TopicPartition, List<String>>> racks,
                 List<Map.Entry<TopicPartition, Long>> weights, TaskConfig config) {
        TaskProblem build(Random shuffle) {
            List<TaskSpec> t = new ArrayList<>(tasks);
            List<ClientSpec> c = new ArrayList<>(clients);
            List<Map.Entry<TopicPartition, List<String>>> r = new ArrayList<>(racks);
            List<Map.Entry<TopicPartition, Long>> w = new ArrayList<>(weights);
            if (shuffle != null) {
                Collections.shuffle(t, shuffle);
                Collections.shuffle(c, shuffle);
                Collections.shuffle(r, shuffle);
                Collections.shuffle(w, shuffle);
            }
            TaskProblem.Builder b = TaskProblem.builder().config(config);
            t.forEach(b::task);
            c.forEach(b::client);
            r.forEach(e -> b.replicaRacks(e.getKey(), e.getValue()));
            w.forEach(e -> b.weight(e.getKey(), e.getValue()));
            return b.build();
        }
    }

    static Parts random(Random rnd) {
        int racks = 1 + rnd.nextInt(4);
        int subs = 1 + rnd.nextInt(3);
        List<TaskSpec> tasks = new ArrayList<>();
        List<Map.Entry<TopicPartition, List<String>>> placement = new ArrayList<>();
        List<Map.Entry<TopicPartition, Long>> weights = new ArrayList<>();
        boolean weighted = rnd.nextBoolean();
        for (int s = 0; s < subs; s++) {
            boolean stateful = s == 0 || rnd.nextBoolean();
            int n = 1 + rnd.nextInt(8);
            for (int p = 0; p < n; p++) {
                TopicPartition src = new TopicPartition("src" + s, p);
                TopicPartition log = new TopicPartition("log" + s, p);
                tasks.add(new TaskSpec(new TaskId(s, p), stateful, List.of(src),
                        stateful ? List.of(log) : List.of()));
                for (TopicPartition tp : stateful ? List.of(src, log) : List.of(src)) {
                    List<String> r = new ArrayList<>();
                    for (int k = 0; k < 1 + rnd.nextInt(2); k++) {
                        r.add("az" + (1 + rnd.nextInt(racks)));
                    }
                    placement.add(Map.entry(tp, r));
                    if (weighted) {
                        weights.add(Map.entry(tp, (long) rnd.nextInt(100)));
                    }
                }
            }
        }
        List<ClientSpec> clients = new ArrayList<>();
        int n = 1 + rnd.nextInt(5);
        boolean tags = rnd.nextInt(4) == 0;
        for (int i = 0; i < n; i++) {
            TreeMap<TaskId, Long> lags = new TreeMap<>();
            TreeSet<TaskId> prev = new TreeSet<>();
            for (TaskSpec t : tasks) {
                int roll = rnd.nextInt(10);
                if (t.stateful() && roll == 0) {
                    lags.put(t.id(), -2L);
                    prev.add(t.id());
                } else if (t.stateful() && roll < 4) {
                    lags.put(t.id(), (long) List.of(0, 50, 5000).get(rnd.nextInt(3)));
                }
            }
            String rack = "az" + (1 + i % racks);
            TreeMap<String, String> tagMap = new TreeMap<>(tags
                    ? Map.of("zone", rack, "cluster", "k" + rnd.nextInt(2)) : Map.of());
            String pid = rnd.nextBoolean() ? new UUID(rnd.nextLong(), rnd.nextLong()).toString()
                    : "p" + i;
            clients.add(new ClientSpec(pid, 1 + rnd.nextInt(3), rack, tagMap, prev, null, lags));
        }
        RackStrategy strategy = RackStrategy.values()[rnd.nextInt(3)];
        TaskConfig config = TaskConfig.defaults().withNumStandbyReplicas(rnd.nextInt(3))
                .withAcceptableRecoveryLag(100).withRackAwareStrategy(strategy)
                .withRackAwareTags(tags ? List.of("zone", "cluster") : List.of());
        return new Parts(tasks, clients, placement, weights, config);
    }

    @Test
    void samePlanInAnyInsertionOrder() {
        long seed = Long.getLong("rackwise.seed", 20261127L);
        System.out.println("DeterminismTest seed=" + seed);
        Random rnd = new Random(seed);
        for (int round = 0; round < 300; round++) {
            Parts parts = random(rnd);
            TaskPlan first = TaskCore.assign(parts.build(null));
            for (int k = 0; k < 3; k++) {
                assertEquals(first, TaskCore.assign(parts.build(new Random(seed + round * 31L + k))),
                        "seed=" + seed + " round=" + round);
            }
        }
    }

    @Test
    void concurrentCallsAgree() throws Exception {
        Random rnd = new Random(7);
        List<Parts> problems = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            problems.add(random(rnd));
        }
        List<TaskPlan> expected = new ArrayList<>();
        for (Parts p : problems) {
            expected.add(TaskCore.assign(p.build(null)));
        }
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<List<TaskPlan>>> runs = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                runs.add(pool.submit(() -> {
                    List<TaskPlan> out = new ArrayList<>();
                    for (Parts p : problems) {
                        out.add(TaskCore.assign(p.build(null)));
                    }
                    return out;
                }));
            }
            for (Future<List<TaskPlan>> f : runs) {
                assertEquals(expected, f.get());
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
