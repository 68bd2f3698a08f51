package dev.rackwise.plugins.streams;

import static dev.rackwise.plugins.streams.FakeApplicationState.pid;
import static dev.rackwise.plugins.streams.FakeApplicationState.task;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.function.Function;

import dev.rackwise.plugins.RackwiseTaskAssignor;
import dev.rackwise.plugins.streams.AssignStats;
import dev.rackwise.plugins.streams.FallbackReason;
import dev.rackwise.plugins.transport.ExchangeException;
import dev.rackwise.plugins.transport.Settings;
import dev.rackwise.plugins.transport.Transport;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.assignment.KafkaStreamsAssignment;
import org.apache.kafka.streams.processor.assignment.KafkaStreamsAssignment.AssignedTask;
import org.apache.kafka.streams.processor.assignment.ProcessId;
import org.apache.kafka.streams.processor.assignment.TaskAssignmentUtils;
import org.apache.kafka.streams.processor.assignment.TaskAssignor.AssignmentError;
import org.apache.kafka.streams.processor.assignment.TaskAssignor.TaskAssignment;
import org.junit.jupiter.api.Test;

class RackwiseTaskAssignorTest {
    /** A fake agent: answers every request with a function of the request JSON. */
    static final class Agent implements Transport {
        interface Reply {
            String reply(String json) throws ExchangeException;
        }

        final List<String> requests = new ArrayList<>();
        final List<String> kinds = new ArrayList<>();
        final List<String> keys = new ArrayList<>();
        /** One function per agent: the assignor keeps one client (and back-off) per settings and function. */
        final Function<Settings, Transport> transports = s -> this;
        Reply reply;

        Agent(Reply reply) {
            this.reply = reply;
        }

        @Override
        public byte[] exchange(String groupId, String kind, byte[] request, long timeoutMs) throws ExchangeException {
            String json = new String(request, StandardCharsets.UTF_8);
            requests.add(json);
            kinds.add(kind);
            keys.add(groupId);
            return reply.reply(json).getBytes(StandardCharsets.UTF_8);
        }

        @Override
        public void close() {
        }
    }

    static String uuid(int n) {
        return new UUID(0, n).toString();
    }

    static String member(int n, String active, String standby, String warmup) {
        return "{\"member_id\":\"" + uuid(n) + "\",\"process_id\":\"" + uuid(n) + "\",\"rack\":\"az" + n
            + "\",\"partitions\":[],\"active_tasks\":[" + active + "],\"standby_tasks\":[" + standby
            + "],\"warmup_tasks\":[" + warmup + "]}";
    }

    static String plan(String app, Long followup, String... members) {
        return "{\"schema_version\":1,\"group_id\":\"" + app + "\",\"kind\":\"streams\",\"generation\":7,"
            + "\"reason\":\"initial\",\"assignor\":\"high-availability\",\"members\":[" + String.join(",", members)
            + "],\"withheld\":[],\"followup_ms\":" + followup + ",\"summary\":{}}";
    }

    static final String GOOD_P1 = member(1, "\"0_0\",\"1_0\"", "", "");
    static final String GOOD_P2 = member(2, "\"0_1\"", "\"0_0\"", "");
    static final String GOOD_P3 = member(3, "\"0_2\"", "\"0_1\"", "\"0_0\"");

    static RackwiseTaskAssignor assignor(Agent agent, String app, Map<String, Object> extra) {
        RackwiseTaskAssignor a = new RackwiseTaskAssignor(agent.transports);
        Map<String, Object> configs = new HashMap<>();
        configs.put("application.id", app);
        configs.put("bootstrap.servers", "localhost:9092");
        configs.put("rackwise.timeout.ms", "3000");
        configs.putAll(extra);
        a.configure(configs);
        return a;
    }

    static Map<ProcessId, Map<TaskId, AssignedTask.Type>> tasks(TaskAssignment ta) {
        Map<ProcessId, Map<TaskId, AssignedTask.Type>> out = new HashMap<>();
        for (KafkaStreamsAssignment a : ta.assignment()) {
            Map<TaskId, AssignedTask.Type> m = new HashMap<>();
            a.tasks().forEach((id, t) -> m.put(id, t.type()));
            out.put(a.processId(), m);
        }
        return out;
    }

    @Test
    void usesAValidPlanWithWarmupsAndAFollowup() {
        Agent agent = new Agent(json -> plan("app-ok", 60000L, GOOD_P1, GOOD_P2, GOOD_P3));
        RackwiseTaskAssignor a = assignor(agent, "app-ok", Map.of());
        FakeApplicationState state = FakeApplicationState.sample();
        Instant before = Instant.now();
        TaskAssignment ta = a.assign(state);
        assertEquals(AssignmentError.NONE, TaskAssignmentUtils.validateTaskAssignment(state, ta));
        Map<ProcessId, Map<TaskId, AssignedTask.Type>> got = tasks(ta);
        assertEquals(Map.of(task(0, 0), AssignedTask.Type.ACTIVE, task(1, 0), AssignedTask.Type.ACTIVE), got.get(pid(1)));
        assertEquals(Map.of(task(0, 1), AssignedTask.Type.ACTIVE, task(0, 0), AssignedTask.Type.STANDBY), got.get(pid(2)));
        // the warm-up is a standby in Kafka's model
        assertEquals(Map.of(task(0, 2), AssignedTask.Type.ACTIVE, task(0, 1), AssignedTask.Type.STANDBY,
            task(0, 0), AssignedTask.Type.STANDBY), got.get(pid(3)));
        // one process (the first in Kafka's order) carries the probing follow-up
        int withFollowup = 0;
        for (KafkaStreamsAssignment k : ta.assignment()) {
            if (k.followupRebalanceDeadline().isPresent()) {
                withFollowup++;
                assertEquals(pid(1), k.processId());
                Instant due = k.followupRebalanceDeadline().get();
                assertFalse(due.isBefore(before.plusMillis(60000)));
                assertTrue(due.isBefore(Instant.now().plusMillis(61000)));
            }
        }
        assertEquals(1, withFollowup);
        assertEquals(List.of("streams"), agent.kinds);
        assertEquals(List.of("app-ok"), agent.keys);
        assertTrue(agent.requests.get(0).startsWith("{\"version\":1,\"application_id\":\"app-ok\""));
        AssignStats stats = RackwiseTaskAssignor.statsFor("app-ok");
        assertNotNull(stats);
        assertEquals(1, stats.plansUsed());
    }

    @Test
    void invalidPlansFallBackToKafkasStickyAssignor() {
        Map<String, String> bad = new java.util.LinkedHashMap<>();
        bad.put("wrong application", plan("someone-else", null, GOOD_P1, GOOD_P2, GOOD_P3));
        bad.put("a task active nowhere", plan("app-bad", null, member(1, "\"0_0\"", "", ""), GOOD_P2, GOOD_P3));
        bad.put("a task active twice", plan("app-bad", null, member(1, "\"0_0\",\"1_0\",\"0_1\"", "", ""), GOOD_P2, GOOD_P3));
        bad.put("a task twice on one process", plan("app-bad", null, member(1, "\"0_0\",\"1_0\"", "\"0_0\"", ""),
            GOOD_P2, GOOD_P3));
        bad.put("a standby of a stateless task", plan("app-bad", null, GOOD_P1, member(2, "\"0_1\"", "\"1_0\"", ""),
            GOOD_P3));
        bad.put("an unknown task", plan("app-bad", null, GOOD_P1, GOOD_P2, member(3, "\"0_2\",\"0_9\"", "", "")));
        bad.put("an unknown process", plan("app-bad", null, GOOD_P1, GOOD_P2, GOOD_P3, member(4, "", "", "")));
        bad.put("a left-out process", plan("app-bad", null, GOOD_P1, member(2, "\"0_1\",\"0_2\"", "", "")));
        bad.put("not a plan", "{\"group_id\":\"app-bad\"");
        bad.put("a bad task id", plan("app-bad", null, GOOD_P1, GOOD_P2, member(3, "\"0_2\",\"x_1\"", "", "")));
        Agent agent = new Agent(json -> "");
        RackwiseTaskAssignor a = assignor(agent, "app-bad", Map.of());
        for (Map.Entry<String, String> e : bad.entrySet()) {
            agent.reply = json -> e.getValue();
            FakeApplicationState state = FakeApplicationState.sample();
            TaskAssignment ta = a.assign(state);
            assertEquals(AssignmentError.NONE, TaskAssignmentUtils.validateTaskAssignment(state, ta), e.getKey());
            Set<TaskId> active = new TreeSet<>();
            for (KafkaStreamsAssignment k : ta.assignment()) {
                k.tasks().values().stream().filter(t -> t.type() == AssignedTask.Type.ACTIVE).forEach(t -> active.add(t.id()));
            }
            assertEquals(state.allTasks().keySet(), active, e.getKey());
        }
        AssignStats stats = RackwiseTaskAssignor.statsFor("app-bad");
        assertEquals(0, stats.plansUsed());
        assertEquals(8, stats.fallbacks(FallbackReason.INVALID_PLAN));
        assertEquals(2, stats.fallbacks(FallbackReason.BAD_PLAN));
    }

    @Test
    void timeoutsBackOffAndErrorRepliesDoNot() {
        Agent agent = new Agent(json -> {
            throw new ExchangeException(ExchangeException.Failure.TIMEOUT, "no reply within 3000 ms");
        });
        RackwiseTaskAssignor a = assignor(agent, "app-down", Map.of("rackwise.backoff.ms", "60000"));
        FakeApplicationState state = FakeApplicationState.sample();
        assertEquals(AssignmentError.NONE, TaskAssignmentUtils.validateTaskAssignment(state, a.assign(state)));
        // Kafka Streams builds a new assignor every rebalance: the back-off must survive that
        RackwiseTaskAssignor again = assignor(agent, "app-down", Map.of("rackwise.backoff.ms", "60000"));
        assertEquals(AssignmentError.NONE, TaskAssignmentUtils.validateTaskAssignment(state, again.assign(state)));
        assertEquals(1, agent.requests.size());
        AssignStats stats = RackwiseTaskAssignor.statsFor("app-down");
        assertEquals(1, stats.fallbacks(FallbackReason.TIMEOUT));
        assertEquals(1, stats.fallbacks(FallbackReason.BACKING_OFF));

        Agent rejecting = new Agent(json -> {
            throw new ExchangeException(ExchangeException.Failure.ERROR_REPLY, "plan-failed", "bad topology", null);
        });
        RackwiseTaskAssignor r = assignor(rejecting, "app-rejected", Map.of());
        r.assign(state);
        assignor(rejecting, "app-rejected", Map.of()).assign(state);
        assertEquals(2, rejecting.requests.size());
        assertEquals(2, RackwiseTaskAssignor.statsFor("app-rejected").fallbacks(FallbackReason.ERROR_REPLY));
    }

    @Test
    void badSettingsNeverThrow() {
        Agent agent = new Agent(json -> plan("app-cfg", null, GOOD_P1, GOOD_P2, GOOD_P3));
        RackwiseTaskAssignor a = assignor(agent, "app-cfg", Map.of("rackwise.timeout.ms", "soon"));
        FakeApplicationState state = FakeApplicationState.sample();
        assertEquals(AssignmentError.NONE, TaskAssignmentUtils.validateTaskAssignment(state, a.assign(state)));
        assertTrue(agent.requests.isEmpty());

        RackwiseTaskAssignor unconfigured = new RackwiseTaskAssignor(s -> agent);
        assertEquals(AssignmentError.NONE, TaskAssignmentUtils.validateTaskAssignment(state, unconfigured.assign(state)));
    }

    @Test
    void theFallbackIsValidWithoutLags() {
        FakeApplicationState state = FakeApplicationState.sample();
        FakeApplicationState broken = new FakeApplicationState();
        broken.tasks.putAll(state.tasks);
        broken.process(1, 1, "az1", Set.of(), Set.of(), Map.of()).process(2, 1, "az2", Set.of(), Set.of(), Map.of());
        Agent agent = new Agent(json -> {
            throw new ExchangeException(ExchangeException.Failure.ERROR_REPLY, "x", "no", null);
        });
        TaskAssignment ta = assignor(agent, "app-broken", Map.of()).assign(broken);
        assertEquals(AssignmentError.NONE, TaskAssignmentUtils.validateTaskAssignment(broken, ta));
    }
}
