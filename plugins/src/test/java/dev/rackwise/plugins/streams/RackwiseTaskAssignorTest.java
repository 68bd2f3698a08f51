package dev.rackwise.plugins.streams;

import static dev.rackwise.plugins.streams.FakeApplicationState.pid;
import static dev.rackwise.plugins.streams.FakeApplicationState.task;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.function.Supplier;

import dev.rackwise.plugins.config.PluginConfig;
import dev.rackwise.plugins.RackwiseTaskAssignor;
import dev.rackwise.plugins.advice.AdviceView;
import dev.rackwise.plugins.publish.PlanGenerations;
import dev.rackwise.plugins.publish.PlanJson;
import dev.rackwise.plugins.publish.PlanPublisher;
import dev.rackwise.plugins.publish.PublishedPlan;
import dev.rackwise.tasks.ClientAssignment;
import dev.rackwise.tasks.TaskCore;
import dev.rackwise.tasks.TaskId;
import dev.rackwise.tasks.TaskInputException;
import dev.rackwise.tasks.TaskPlan;
import dev.rackwise.tasks.TaskProblem;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.streams.processor.assignment.KafkaStreamsAssignment;
import org.apache.kafka.streams.processor.assignment.KafkaStreamsAssignment.AssignedTask;
import org.apache.kafka.streams.processor.assignment.ProcessId;
import org.apache.kafka.streams.processor.assignment.TaskAssignmentUtils;
import org.apache.kafka.streams.processor.assignment.TaskAssignor.AssignmentError;
import org.apache.kafka.streams.processor.assignment.TaskAssignor.TaskAssignment;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

class RackwiseTaskAssignorTest {
    static String p(int n) {
        return pid(n).id().toString();
    }

    static ClientAssignment client(int n, List<TaskId> active, List<TaskId> standby, List<TaskId> warmup) {
        return new ClientAssignment(p(n), active, standby, warmup);
    }

    static TaskId t(int s, int q) {
        return new TaskId(s, q);
    }

    /** A plan for FakeApplicationState.sample(): every task active once, a standby each, a warm-up of 0_0 on p3. */
    static TaskPlan samplePlan(boolean followup) {
        TreeMap<String, ClientAssignment> clients = new TreeMap<>();
        clients.put(p(1), client(1, List.of(t(0, 0), t(1, 0)), List.of(t(0, 2)), List.of()));
        clients.put(p(2), client(2, List.of(t(0, 1)), List.of(t(0, 0)), List.of()));
        clients.put(p(3), client(3, List.of(t(0, 2)), List.of(t(0, 1)), List.of(t(0, 0))));
        return new TaskPlan(clients, followup, true, "enabled", OptionalLong.of(0), OptionalLong.of(0), OptionalLong.empty());
    }

    /** Reports that publish to a MockProducer (never started: offers stay queued). */
    static StreamsPlanReports reports() {
        Supplier<org.apache.kafka.clients.producer.Producer<byte[], byte[]>> producers = MockProducer::new;
        return new StreamsPlanReports(10, new PlanPublisher("rackwise.plans", 10, producers, 1000, t -> true), AdviceView.NONE);
    }

    static RackwiseTaskAssignor assignor(String app, StreamsPlanReports reports, Function<TaskProblem, TaskPlan> core) {
        RackwiseTaskAssignor a = new RackwiseTaskAssignor(c -> new StreamsLookups(AdviceView.NONE, null, reports), core);
        Map<String, Object> configs = new HashMap<>();
        configs.put("application.id", app);
        configs.put("bootstrap.servers", "localhost:1");
        a.configure(configs);
        return a;
    }

    static Map<ProcessId, Map<String, List<String>>> byProcess(TaskAssignment a) {
        Map<ProcessId, Map<String, List<String>>> out = new HashMap<>();
        for (KafkaStreamsAssignment k : a.assignment()) {
            Map<String, List<String>> m = new TreeMap<>();
            m.put("active", new ArrayList<>());
            m.put("standby", new ArrayList<>());
            new TreeMap<>(k.tasks()).forEach((id, at) ->
                m.get(at.type() == AssignedTask.Type.ACTIVE ? "active" : "standby").add(id.toString()));
            out.put(k.processId(), m);
        }
        return out;
    }

    @Test
    void theCoresPlanBecomesKafkasAssignmentWithWarmupsAsStandbysAndAProbingFollowup() {
        StreamsPlanReports reports = reports();
        FakeApplicationState state = FakeApplicationState.sample();
        Instant before = Instant.now();
        TaskAssignment a = assignor("app-ok", reports, pb -> samplePlan(true)).assign(state);
        assertEquals(AssignmentError.NONE, TaskAssignmentUtils.validateTaskAssignment(state, a));
        Map<ProcessId, Map<String, List<String>>> got = byProcess(a);
        assertEquals(Map.of("active", List.of("0_0", "1_0"), "standby", List.of("0_2")), got.get(pid(1)));
        assertEquals(Map.of("active", List.of("0_2"), "standby", List.of("0_0", "0_1")), got.get(pid(3)));
        for (KafkaStreamsAssignment k : a.assignment()) {
            if (k.processId().equals(pid(1))) {
                Instant at = k.followupRebalanceDeadline().orElseThrow();
                assertTrue(!at.isBefore(before.plusMillis(600_000)) && at.isBefore(Instant.now().plusMillis(600_001)), at.toString());
            } else {
                assertTrue(k.followupRebalanceDeadline().isEmpty(), "one process carries the follow-up");
            }
        }
        assertEquals(1, RackwiseTaskAssignor.statsFor("app-ok").computed());
        assertEquals(1, reports.queued(), "the plan is handed to the reports, not published in assign()");
    }

    @Test
    void withoutAFollowupNoProcessAsksForOne() {
        TaskAssignment a = assignor("app-nofollowup", null, pb -> samplePlan(false)).assign(FakeApplicationState.sample());
        a.assignment().forEach(k -> assertTrue(k.followupRebalanceDeadline().isEmpty()));
    }

    @Test
    void internalErrorsFallBackToStickyTaskAssignorAndAreCounted() {
        FakeApplicationState state = FakeApplicationState.sample();
        Map<String, Function<TaskProblem, TaskPlan>> cores = new TreeMap<>();
        cores.put("input", pb -> {
            throw new TaskInputException("a bad input");
        });
        cores.put("internal", pb -> {
            throw new UnsupportedOperationException("not yet");
        });
        cores.put("incomplete", pb -> {   // 1_0 active nowhere
            TreeMap<String, ClientAssignment> c = new TreeMap<>(samplePlan(false).clients());
            c.put(p(1), client(1, List.of(t(0, 0)), List.of(), List.of()));
            return new TaskPlan(c, false, true, "enabled", OptionalLong.empty(), OptionalLong.empty(), OptionalLong.empty());
        });
        cores.put("stateless standby", pb -> {   // Kafka refuses a standby of a stateless task
            TreeMap<String, ClientAssignment> c = new TreeMap<>(samplePlan(false).clients());
            c.put(p(2), client(2, List.of(t(0, 1)), List.of(t(1, 0)), List.of()));
            return new TaskPlan(c, false, true, "enabled", OptionalLong.empty(), OptionalLong.empty(), OptionalLong.empty());
        });
        for (Map.Entry<String, Function<TaskProblem, TaskPlan>> e : cores.entrySet()) {
            String app = "app-fallback-" + e.getKey().replace(' ', '-');
            StreamsPlanReports reports = reports();
            TaskAssignment a = assignor(app, reports, e.getValue()).assign(state);
            assertEquals(AssignmentError.NONE, TaskAssignmentUtils.validateTaskAssignment(state, a), e.getKey());
            List<String> actives = new ArrayList<>();
            byProcess(a).values().forEach(m -> actives.addAll(m.get("active")));
            actives.sort(null);
            assertEquals(List.of("0_0", "0_1", "0_2", "1_0"), actives, e.getKey());
            var stats = RackwiseTaskAssignor.statsFor(app);
            FallbackReason want = switch (e.getKey()) {
                case "input" -> FallbackReason.INPUT;
                case "stateless standby" -> FallbackReason.INVALID_ASSIGNMENT;
                default -> FallbackReason.INTERNAL;
            };
            assertEquals(1, stats.fallbacks(want), e.getKey() + ": " + stats);
            assertEquals(0, stats.computed());
            assertEquals(0, reports.queued(), "a fallback is not reported as rackwise's plan");
        }
    }

    @Test
    void badRackwiseSettingsNeverThrowAndStillAssignInProcess() {
        RackwiseTaskAssignor a = new RackwiseTaskAssignor(c -> {
            throw new AssertionError("no lookups without settings");
        }, pb -> samplePlan(false));
        a.configure(Map.of("application.id", "app-bad-settings", "bootstrap.servers", "localhost:1",
            "rackwise.backoff.ms", "soon"));
        FakeApplicationState state = FakeApplicationState.sample();
        TaskAssignment out = a.assign(state);
        assertEquals(AssignmentError.NONE, TaskAssignmentUtils.validateTaskAssignment(state, out));
        assertEquals(1, RackwiseTaskAssignor.statsFor("app-bad-settings").computed());
    }

    @Test
    void theReportIsAStreamsPlanOfTheContract() throws java.io.IOException {
        FakeApplicationState state = FakeApplicationState.sample();
        TaskProblems.Translated in = TaskProblems.of(state, "app", AdviceView.NONE, PartitionRacks.fresh());
        PublishedPlan plan = StreamsPlanReports.convert(new ComputedTaskPlan("app", in, samplePlan(true), 42, 1_795_567_200_000L),
            AdviceView.NONE, new PlanGenerations());
        String json = PlanJson.write(plan);
        // the golden streams plan: tests/unit/test_plugin_plan_json.py reads it as a plan of the contract
        java.nio.file.Path golden = java.nio.file.Path.of("src/test/resources/publish/plugin-plan-streams.json");
        if (System.getenv("RACKWISE_WRITE_GOLDEN") != null) {
            java.nio.file.Files.writeString(golden, json + "\n");
        }
        assertEquals(java.nio.file.Files.readString(golden).strip(), json);
        assertTrue(json.contains("\"kind\":\"streams\""), json);
        assertTrue(json.contains("\"reason\":\"assigned\""), json);
        assertTrue(json.contains("\"followup_ms\":600000"), json);
        assertTrue(json.contains("\"process_id\":\"" + p(3) + "\",\"active_tasks\":[\"0_2\"],\"standby_tasks\":[\"0_1\"],"
            + "\"warmup_tasks\":[\"0_0\"]"), json);
        // p1 (az1) reads in-0 (az1, az2) and other-0 (az1); p2 (az2) in-1 (az2, az3); p3 (az3) in-2 (az3, az1)
        assertTrue(json.contains("\"cross_rack_partitions\":0"), json);
        assertTrue(json.contains("\"lower_bound\":0.0"), json);
        // 0_0 moved from p1? no: p1 ran 0_0 and 1_0; p2 ran 0_1; 0_2 was nobody's: nothing moved
        assertTrue(json.contains("\"moved_partitions\":0"), json);
        // copies: 0_0 az1+az2, 0_1 az2+az3, 0_2 az3+az1: 2 racks each
        assertTrue(json.contains("\"standby_rack_diversity\":2.0"), json);
    }

    @Test
    void theLowerBoundIsTheTransportationOptimum() {
        // a, b only in az1; c only in az2; one active per rack az1, az2, az3
        int[][] costs = {{0, 1, 1}, {0, 1, 1}, {1, 0, 1}};
        assertEquals(1, ActiveBound.solve(costs, new int[] {1, 1, 1}));
        assertEquals(0, ActiveBound.solve(costs, new int[] {2, 1, 0}));
        assertEquals(2, ActiveBound.solve(costs, new int[] {0, 1, 2}));
    }

    @Test
    void withTheRealCoreEveryTaskIsActiveOnceAndKafkaAccepts() {
        FakeApplicationState state = FakeApplicationState.sample();
        TaskProblem problem = TaskProblems.of(state, "app", AdviceView.NONE, PartitionRacks.fresh()).problem();
        try {
            TaskCore.assign(problem);
        } catch (UnsupportedOperationException e) {
            Assumptions.abort("the task core is not implemented on this branch yet");
        }
        TaskAssignment a = assignor("app-real-core", null, TaskCore::assign).assign(state);
        assertEquals(AssignmentError.NONE, TaskAssignmentUtils.validateTaskAssignment(state, a));
        assertEquals(1, RackwiseTaskAssignor.statsFor("app-real-core").computed());
        assertNotNull(a);
        assertNull(RackwiseTaskAssignor.statsFor("app-real-core").fallbacks(FallbackReason.INTERNAL) > 0 ? "fell back" : null);
    }
}
