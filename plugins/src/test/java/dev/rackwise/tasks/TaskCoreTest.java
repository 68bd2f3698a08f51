package dev.rackwise.tasks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rackwise.core.TopicPartition;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** Hand-checked plans (docs/streams-assignor.md § 4). */
class TaskCoreTest {
    static TopicPartition tp(String topic, int p) {
        return new TopicPartition(topic, p);
    }

    static TaskSpec stateful(int sub, int p) {
        return new TaskSpec(new TaskId(sub, p), true, List.of(tp("src" + sub, p)),
                List.of(tp("log" + sub, p)));
    }

    static List<TaskId> ids(String... ids) {
        return java.util.Arrays.stream(ids).map(TaskId::parse).toList();
    }

    @Test
    void roundRobinOnFreshClientsWithStrategyNone() {
        TaskProblem.Builder b = TaskProblem.builder()
                .client(ClientSpec.of("p2", 1, "az2"))
                .client(ClientSpec.of("p1", 1, "az1"));
        for (int p = 0; p < 4; p++) {
            b.task(stateful(0, p));
        }
        TaskPlan plan = TaskCore.assign(b.build());
        assertEquals(ids("0_0", "0_2"), plan.client("p1").active());
        assertEquals(ids("0_1", "0_3"), plan.client("p2").active());
        assertFalse(plan.followupNeeded());
        assertFalse(plan.rackAware());
        assertEquals("strategy none", plan.rackAwareReason());
        assertEquals(OptionalLong.empty(), plan.activeStepCost());
        assertEquals(Map.of("p1", 2, "p2", 2), plan.activeCounts());
    }

    @Test
    void kafkaOrdersProcessUuidsBySignedBits() {
        // msb 0xffff... is -1 as a signed long: that client comes first and gets 0_0.
        String low = "00000000-0000-0000-0000-000000000001";
        String negative = "ffffffff-ffff-ffff-ffff-ffffffffffff";
        TaskPlan plan = TaskCore.assign(TaskProblem.builder()
                .client(ClientSpec.of(low, 1, null)).client(ClientSpec.of(negative, 1, null))
                .client(ClientSpec.of("not-a-uuid", 1, null))
                .task(stateful(0, 0)).task(stateful(0, 1)).task(stateful(0, 2)).build());
        assertEquals(ids("0_0"), plan.client(negative).active());
        assertEquals(ids("0_1"), plan.client(low).active());
        assertEquals(ids("0_2"), plan.client("not-a-uuid").active());
    }

    private static TaskProblem.Builder swapCase(RackStrategy strategy) {
        // Round robin puts 0_0 (source in az1 only) on a@az2 and 0_1 (az2 only) on b@az1.
        return TaskProblem.builder()
                .client(ClientSpec.of("a", 1, "az2")).client(ClientSpec.of("b", 1, "az1"))
                .task(stateful(0, 0)).task(stateful(0, 1))
                .replicaRacks(tp("src0", 0), List.of("az1"))
                .replicaRacks(tp("src0", 1), List.of("az2"))
                .config(TaskConfig.defaults().withRackAwareStrategy(strategy));
    }

    @Test
    void minTrafficSwapsTwoCrossRackTasks() {
        for (RackStrategy s : List.of(RackStrategy.MIN_TRAFFIC, RackStrategy.BALANCE_SUBTOPOLOGY)) {
            TaskPlan plan = TaskCore.assign(swapCase(s).build());
            assertTrue(plan.rackAware());
            assertEquals(ids("0_1"), plan.client("a").active());
            assertEquals(ids("0_0"), plan.client("b").active());
            assertEquals(OptionalLong.of(2), plan.activeStepCost()); // two moves, no traffic
        }
    }

    @Test
    void weightsCountInsteadOfPartitions() {
        // a@az1 and b@az2, both sources live in az2: one task must read across racks.
        TaskProblem.Builder b = TaskProblem.builder()
                .client(ClientSpec.of("a", 1, "az1")).client(ClientSpec.of("b", 1, "az2"))
                .task(stateful(0, 0)).task(stateful(0, 1))
                .replicaRacks(tp("src0", 0), List.of("az2"))
                .replicaRacks(tp("src0", 1), List.of("az2"))
                .config(TaskConfig.defaults().withRackAwareStrategy(RackStrategy.MIN_TRAFFIC));
        TaskPlan unweighted = TaskCore.assign(b.build());
        assertEquals(OptionalLong.of(10), unweighted.activeStepCost()); // 0_0 stays on a
        assertEquals(ids("0_0"), unweighted.client("a").active());
        // 0_0 weighs 7: keeping it costs 70; swapping costs 10 (0_1 weighs 1) + 2 moves.
        TaskPlan weighted = TaskCore.assign(b.weight(tp("src0", 0), 7).build());
        assertEquals(OptionalLong.of(12), weighted.activeStepCost());
        assertEquals(ids("0_1"), weighted.client("a").active());
    }

    @Test
    void standbysNeverBesideTheirActive() {
        TaskProblem.Builder b = TaskProblem.builder()
                .client(ClientSpec.of("a", 2, "az1")).client(ClientSpec.of("b", 1, "az2"))
                .config(TaskConfig.defaults().withNumStandbyReplicas(1)
                        .withRackAwareStrategy(RackStrategy.MIN_TRAFFIC));
        for (int p = 0; p < 3; p++) {
            b.task(stateful(0, p));
            b.replicaRacks(tp("src0", p), List.of("az1", "az2"));
            b.replicaRacks(tp("log0", p), List.of(p == 0 ? "az1" : "az2"));
        }
        TaskPlan plan = TaskCore.assign(b.build());
        for (ClientAssignment c : plan.clients().values()) {
            Set<TaskId> both = new TreeSet<>(c.active());
            both.retainAll(c.standby());
            assertTrue(both.isEmpty(), c.toString());
        }
        assertEquals(3, plan.standbyCounts().values().stream().mapToInt(Integer::intValue).sum());
        assertTrue(plan.standbyStepCost().isPresent());
    }

    @Test
    void laggingDestinationGetsAWarmupAndAFollowup() {
        TreeMap<TaskId, Long> running = new TreeMap<>(Map.of(new TaskId(0, 0), -2L,
                new TaskId(0, 1), -2L));
        TreeMap<TaskId, Long> behind = new TreeMap<>(Map.of(new TaskId(0, 0), 5000L,
                new TaskId(0, 1), 5000L));
        TaskPlan plan = TaskCore.assign(TaskProblem.builder()
                .task(stateful(0, 0)).task(stateful(0, 1))
                .client(new ClientSpec("a", 1, null, null, new TreeSet<>(ids("0_0", "0_1")),
                        null, running))
                .client(new ClientSpec("b", 1, null, null, null, null, behind))
                .config(TaskConfig.defaults().withAcceptableRecoveryLag(100)).build());
        assertEquals(ids("0_0", "0_1"), plan.client("a").active());
        assertEquals(ids("0_1"), plan.client("b").warmup());
        assertEquals(ids("0_1"), plan.client("b").allStandbys());
        assertTrue(plan.client("b").standby().isEmpty());
        assertTrue(plan.followupNeeded());
    }

    @Test
    void statelessTasksGoToTheLeastActiveLoad() {
        TaskPlan plan = TaskCore.assign(TaskProblem.builder()
                .client(ClientSpec.of("a", 2, null)).client(ClientSpec.of("b", 1, null))
                .task(stateful(0, 0))
                .task(new TaskSpec(new TaskId(1, 0), false, List.of(tp("src1", 0)), List.of()))
                .task(new TaskSpec(new TaskId(1, 1), false, List.of(tp("src1", 1)), List.of()))
                .build());
        assertEquals(ids("0_0", "1_1"), plan.client("a").active()); // 1_0 went to b (load 0)
        assertEquals(ids("1_0"), plan.client("b").active());
    }
}
