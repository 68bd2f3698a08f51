package dev.rackwise.plugins.publish;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

import dev.rackwise.core.PartitionSpec;
import dev.rackwise.core.Problem;
import dev.rackwise.core.RackOptimal;
import dev.rackwise.core.Solution;
import dev.rackwise.core.TopicPartition;
import dev.rackwise.plugins.advice.AdviceView;
import org.apache.kafka.clients.producer.MockProducer;
import org.junit.jupiter.api.Test;

class PlanReportsTest {
    /** t-0 only in az1, t-1 only in az2; a (az1) and b (no rack) read; b held t-1 before. */
    static Problem problem() {
        return Problem.builder().racks(List.of("az1", "az2")).costs(10, 1)
            .member("a", "az1", true, Set.of("id-t"))
            .member("b", null, false, Set.of("id-t"))
            .topic("id-t", List.of(new PartitionSpec(List.of("az1"), "az1", 1.0),
                new PartitionSpec(List.of("az2"), "az2", 1.0)))
            .previousOwner("id-t", 1, "b")
            .build();
    }

    @Test
    void aComputedPlanIsWrittenInTheContractWithNamesCrossRackAndItsBound() {
        Problem problem = problem();
        Solution solution = RackOptimal.solve(problem);
        ComputedPlan computed = new ComputedPlan(null, Set.of("a", "b"), problem, solution, Map.of(), "consumer",
            Map.of(), true, 42, 1_795_567_200_000L);
        Function<String, String> names = key -> key.equals("id-t") ? "orders" : null;
        PublishedPlan plan = PlanReports.convert(computed, "g1", names, AdviceView.NONE, new PlanGenerations());
        assertEquals("g1", plan.groupId());
        assertEquals(PlanJson.REASON, plan.reason());
        assertEquals(1_795_567_200_000L, plan.generation());
        Map<String, List<String>> got = new java.util.TreeMap<>();
        for (PublishedPlan.Member m : plan.members()) {
            got.put(m.memberId(), m.partitions().stream().map(p -> p.topic() + "-" + p.partition()
                + (p.crossRack() ? "x" : "")).toList());
        }
        // a reads t-0 in its rack; b has no rack: never "cross-rack" in a plan, only estimated
        assertEquals(Map.of("a", List.of("orders-0"), "b", List.of("orders-1")), got);
        assertEquals(solution.cost() >= 0, true);
        // the bound: the same balance at traffic 1 and no move cost; b's (R-1)/R share of t-1
        assertEquals(0.5, plan.lowerBound(), 1e-9);
        String json = PlanJson.write(plan);
        assertTrue(json.contains("\"group_id\":\"g1\""), json);
        assertTrue(json.contains("\"topic\":\"orders\""), json);
    }

    @Test
    void withheldPartitionsLeaveTheMembersAndNameOwnerAndTarget() {
        Problem problem = problem();
        Solution solution = RackOptimal.solve(problem);
        String target = solution.assignment().get("a").contains(new TopicPartition("id-t", 0)) ? "a" : "b";
        ComputedPlan computed = new ComputedPlan("g1", Set.of("a", "b"), problem, solution, Map.of("id-t", "orders"),
            "cooperative", Map.of(new TopicPartition("id-t", 0), "b"), true, 1, 1L);
        PublishedPlan plan = PlanReports.convert(computed, "g1", computed.topicNames()::get, AdviceView.NONE,
            new PlanGenerations());
        assertEquals(List.of(new PublishedPlan.Withheld("orders", 0, "b", target)), plan.withheld());
        assertFalse(plan.members().stream().anyMatch(m -> m.partitions().stream()
            .anyMatch(p -> p.partition() == 0)));
    }

    @Test
    void offerNeverBlocksAndAFullQueueDropsAndCounts() {
        PlanPublisher publisher = new PlanPublisher("rackwise.plans", 1, () -> new MockProducer<>(), 10, topic -> true);
        PlanReports reports = new PlanReports(1, publisher, new PlanReports.Names() {
            @Override
            public String topic(String key) {
                return null;
            }

            @Override
            public Optional<String> group(Set<String> memberIds) {
                return Optional.empty();
            }
        }, AdviceView.NONE); // not started: nothing drains the queue
        Problem problem = problem();
        ComputedPlan p = new ComputedPlan("g1", Set.of("a", "b"), problem, RackOptimal.solve(problem), Map.of(),
            "consumer", Map.of(), true, 1, 1L);
        assertTrue(reports.offer(p));
        assertFalse(reports.offer(p));
        assertFalse(reports.offer(p));
        assertEquals(2, reports.dropped());
    }
}
