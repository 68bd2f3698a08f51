package dev.rackwise.tasks;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.rackwise.core.TopicPartition;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The task core's plans with {@code LexFlow.uniqueFlowFirst()} (the fast solver, kept only when
 * its flow is provably the unique optimum) against the same calls with it turned off
 * ({@code rackwise.core.noUniqueFlow}, the solver as before): identical on seeded random
 * problems, up to a few hundred tasks (narrower perturbations, so more ties) and with 0-2
 * standbys, sticky starts and lags.
 */
class UniqueFlowDifferentialTest {
    static TaskProblem random(Random rnd) {
        int racks = 1 + rnd.nextInt(4);
        int subs = 1 + rnd.nextInt(6);
        int perSub = 1 + rnd.nextInt(rnd.nextBoolean() ? 10 : 60);
        int clients = 1 + rnd.nextInt(rnd.nextBoolean() ? 8 : 40);
        TaskProblem.Builder b = TaskProblem.builder();
        List<TaskSpec> tasks = new ArrayList<>();
        for (int s = 0; s < subs; s++) {
            boolean stateful = s == 0 || rnd.nextInt(4) > 0;
            for (int p = 0; p < perSub; p++) {
                TopicPartition src = new TopicPartition("src" + s, p);
                TopicPartition log = new TopicPartition("log" + s, p);
                TaskSpec t = new TaskSpec(new TaskId(s, p), stateful, List.of(src),
                        stateful ? List.of(log) : List.of());
                tasks.add(t);
                b.task(t);
                for (TopicPartition tp : stateful ? List.of(src, log) : List.of(src)) {
                    List<String> r = new ArrayList<>();
                    for (int k = 0; k < 1 + rnd.nextInt(2); k++) {
                        r.add("az" + (1 + rnd.nextInt(racks)));
                    }
                    b.replicaRacks(tp, r);
                }
            }
        }
        for (int i = 0; i < clients; i++) {
            TreeMap<TaskId, Long> lags = new TreeMap<>();
            TreeSet<TaskId> prev = new TreeSet<>();
            for (TaskSpec t : tasks) {
                int roll = rnd.nextInt(4 * clients);
                if (t.stateful() && roll == 0) {
                    lags.put(t.id(), -2L);
                    prev.add(t.id());
                } else if (t.stateful() && roll < 3) {
                    lags.put(t.id(), 0L);
                }
            }
            b.client(new ClientSpec("p" + (1000 + i), 1 + rnd.nextInt(3), "az" + (1 + i % racks),
                    new TreeMap<>(), prev, null, lags));
        }
        RackStrategy strategy = rnd.nextBoolean() ? RackStrategy.MIN_TRAFFIC
                : RackStrategy.BALANCE_SUBTOPOLOGY;
        b.config(TaskConfig.defaults().withNumStandbyReplicas(rnd.nextInt(3))
                .withAcceptableRecoveryLag(100).withRackAwareStrategy(strategy));
        return b.build();
    }

    @Test
    void samePlansWithAndWithoutTheFastSolver() {
        long seed = Long.getLong("rackwise.seed", 20261128L);
        System.out.println("UniqueFlowDifferentialTest seed=" + seed);
        Random rnd = new Random(seed);
        for (int round = 0; round < 120; round++) {
            TaskProblem p = random(rnd);
            TaskPlan fast = TaskCore.assign(p);
            TaskPlan slow;
            System.setProperty("rackwise.core.noUniqueFlow", "true");
            try {
                slow = TaskCore.assign(p);
            } finally {
                System.clearProperty("rackwise.core.noUniqueFlow");
            }
            assertEquals(slow, fast, "seed=" + seed + " round=" + round);
        }
    }
}
