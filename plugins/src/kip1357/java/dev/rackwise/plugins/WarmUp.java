package dev.rackwise.plugins;

import java.util.List;

import dev.rackwise.core.TopicPartition;
import dev.rackwise.tasks.ClientSpec;
import dev.rackwise.tasks.RackStrategy;
import dev.rackwise.tasks.TaskConfig;
import dev.rackwise.tasks.TaskId;
import dev.rackwise.tasks.TaskProblem;
import dev.rackwise.tasks.TaskSpec;

/** A small streams problem (3 racks, stateful tasks, 1 standby) that runs every step of the task core. */
final class WarmUp {
    private WarmUp() {
    }

    static TaskProblem problem(int seed) {
        TaskProblem.Builder b = TaskProblem.builder();
        int tasks = 12 + seed % 7;
        for (int p = 0; p < tasks; p++) {
            TopicPartition in = new TopicPartition("warm-up", p);
            TopicPartition log = new TopicPartition("warm-up-changelog", p);
            b.task(new TaskSpec(new TaskId(0, p), true, List.of(in), List.of(log)));
            b.replicaRacks(in, List.of("az" + ((p + seed) % 3 + 1)));
            b.replicaRacks(log, List.of("az1", "az2", "az3"));
        }
        for (int c = 0; c < 3; c++) {
            b.client(ClientSpec.of("p" + c, 1 + (seed + c) % 2, "az" + (c + 1)));
        }
        return b.config(TaskConfig.defaults().withNumStandbyReplicas(1)
            .withRackAwareStrategy(RackStrategy.MIN_TRAFFIC)).build();
    }
}
