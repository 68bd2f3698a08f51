package dev.rackwise.tasks;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/** Bad problems fail in the builder with a message that says what is wrong. */
class ValidationTest {
    private static void fails(String expected, Executable build) {
        TaskInputException e = assertThrows(TaskInputException.class, build);
        assertTrue(e.getMessage().contains(expected), e.getMessage());
    }

    private static TaskProblem.Builder ok() {
        return TaskProblem.builder().task(TaskCoreTest.stateful(0, 0))
                .client(ClientSpec.of("a", 1, "az1"));
    }

    @Test
    void eachFaultIsNamed() {
        fails("at least one client", () -> TaskProblem.builder().build());
        fails("listed twice", () -> ok().client(ClientSpec.of("a", 2, null)).build());
        fails("task 0_0 is listed twice", () -> ok().task(TaskCoreTest.stateful(0, 0)).build());
        fails("has 0 threads", () -> ok().client(ClientSpec.of("b", 0, null)).build());
        fails("no changelog partition", () -> ok().task(new TaskSpec(new TaskId(1, 0), true,
                List.of(TaskCoreTest.tp("s", 0)), List.of())).build());
        fails("reads no source partition", () -> ok().task(new TaskSpec(new TaskId(1, 0), false,
                List.of(), List.of())).build());
        fails("reports lag -7", () -> ok().client(new ClientSpec("b", 1, null, null, null, null,
                new TreeMap<>(Map.of(new TaskId(0, 0), -7L)))).build());
        fails("weights must be >= 0", () -> ok().weight(TaskCoreTest.tp("s", 0), -1).build());
        fails("max.warmup.replicas", () -> ok().config(TaskConfig.defaults().withMaxWarmupReplicas(0)).build());
        fails("probing.rebalance.interval.ms",
                () -> ok().config(TaskConfig.defaults().withProbingRebalanceIntervalMs(1000)).build());
        fails("num.standby.replicas", () -> ok().config(TaskConfig.defaults().withNumStandbyReplicas(-1)).build());
        fails("acceptable.recovery.lag", () -> ok().config(TaskConfig.defaults().withAcceptableRecoveryLag(-1)).build());
        fails("non_overlap_cost", () -> ok().config(TaskConfig.defaults().withTrafficCost(-1)).build());
        fails("lacks tag zone", () -> ok().config(TaskConfig.defaults().withRackAwareTags(List.of("zone"))).build());
        fails("at most 5", () -> ok().config(TaskConfig.defaults()
                .withRackAwareTags(List.of("a", "b", "c", "d", "e", "f"))).build());
        fails("unknown", () -> RackStrategy.fromConfig("fastest"));
        fails("is not '<subtopology>_<partition>'", () -> TaskId.parse("0-1"));
        fails("is not '<subtopology>_<partition>'", () -> TaskId.parse("a_1"));
    }

    @Test
    void everyFaultIsReportedAtOnce() {
        TaskInputException e = assertThrows(TaskInputException.class, () -> ok()
                .client(ClientSpec.of("b", 0, null))
                .config(TaskConfig.defaults().withMaxWarmupReplicas(0)).build());
        assertTrue(e.getMessage().contains("0 threads") && e.getMessage().contains("max.warmup"),
                e.getMessage());
    }
}
