package dev.rackwise.plugins.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import dev.rackwise.plugins.plan.Plan;
import dev.rackwise.plugins.plan.PlanReader;
import dev.rackwise.plugins.request.AssignRequest;
import dev.rackwise.plugins.request.RequestMember;
import dev.rackwise.plugins.request.RequestProtocol;
import dev.rackwise.plugins.request.RequestTopic;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Subscription;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class PlanValidatorTest {
    /** a owns t-0, b owns t-1; c subscribes to u only. */
    static AssignRequest request(RequestProtocol protocol) {
        return new AssignRequest(protocol, List.of(new RequestTopic("t", 3), new RequestTopic("u", 1)), List.of(
            new RequestMember("a", null, new Subscription(List.of("t"), null, List.of(new TopicPartition("t", 0)))),
            new RequestMember("b", null, new Subscription(List.of("t"), null, List.of(new TopicPartition("t", 1)))),
            new RequestMember("c", null, new Subscription(List.of("u"), null, List.of()))));
    }

    static Plan plan(String group, Object... memberThenParts) {
        Map<String, List<String>> members = new LinkedHashMap<>();
        for (int i = 0; i < memberThenParts.length; i += 2) {
            @SuppressWarnings("unchecked")
            List<String> parts = (List<String>) memberThenParts[i + 1];
            members.put((String) memberThenParts[i], parts);
        }
        return PlanReader.read(StubTransport.plan(group, 3, members));
    }

    static Optional<String> check(RequestProtocol protocol, Plan plan) {
        return PlanValidator.problem("g", request(protocol), plan);
    }

    @Test
    void acceptsAValidPlan() {
        Plan ok = plan("g", "a", List.of("t-0", "t-2"), "b", List.of("t-1"), "c", List.of("u-0"));
        assertEquals(Optional.empty(), check(RequestProtocol.CLASSIC_COOPERATIVE, ok));
    }

    @Test
    void withheldPartitionsAreSimplyUnassigned() {
        Plan ok = plan("g", "a", List.of("t-0"), "b", List.of(), "c", List.of("u-0"));
        assertEquals(Optional.empty(), check(RequestProtocol.CLASSIC_COOPERATIVE, ok));
    }

    @Test
    void rejects() {
        Map<String, Plan> bad = new LinkedHashMap<>();
        bad.put("for group", plan("other", "a", List.of(), "b", List.of(), "c", List.of()));
        bad.put("not in the group", plan("g", "a", List.of(), "b", List.of(), "c", List.of(), "d", List.of()));
        bad.put("leaves out member c", plan("g", "a", List.of(), "b", List.of()));
        bad.put("does not exist", plan("g", "a", List.of("t-3"), "b", List.of(), "c", List.of()));
        bad.put("topic the request does not have", plan("g", "a", List.of("x-0"), "b", List.of(), "c", List.of()));
        bad.put("not subscribed to u", plan("g", "a", List.of("u-0"), "b", List.of(), "c", List.of()));
        bad.put("more than once", plan("g", "a", List.of("t-2"), "b", List.of("t-2"), "c", List.of()));
        bad.put("still owns it", plan("g", "a", List.of("t-0", "t-1"), "b", List.of(), "c", List.of()));
        bad.forEach((why, p) -> {
            Optional<String> problem = check(RequestProtocol.CLASSIC_COOPERATIVE, p);
            assertTrue(problem.isPresent() && problem.get().contains(why), why + ": " + problem);
        });
    }

    @Test
    void ownershipRuleIsCooperativeOnly() {
        Plan moves = plan("g", "a", List.of("t-0", "t-1"), "b", List.of(), "c", List.of());
        assertEquals(Optional.empty(), check(RequestProtocol.CLASSIC_EAGER, moves));
        assertEquals(Optional.empty(), check(RequestProtocol.CONSUMER, moves));
    }
}
