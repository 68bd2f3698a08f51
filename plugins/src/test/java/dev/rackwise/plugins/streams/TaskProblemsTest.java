package dev.rackwise.plugins.streams;

import static dev.rackwise.plugins.streams.FakeApplicationState.pid;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;

import dev.rackwise.core.TopicPartition;
import dev.rackwise.plugins.advice.AdviceView;
import dev.rackwise.plugins.advice.GroupAdvice;
import dev.rackwise.tasks.ClientSpec;
import dev.rackwise.tasks.RackStrategy;
import dev.rackwise.tasks.TaskId;
import dev.rackwise.tasks.TaskInputException;
import dev.rackwise.tasks.TaskProblem;
import dev.rackwise.tasks.TaskSpec;
import org.apache.kafka.streams.processor.assignment.AssignmentConfigs;
import org.junit.jupiter.api.Test;

class TaskProblemsTest {
    static final TopicPartition IN0 = new TopicPartition("in", 0);
    static final TopicPartition IN1 = new TopicPartition("in", 1);
    static final TopicPartition LOG2 = new TopicPartition("app-store-changelog", 2);

    /** Measured advice: in-0 300 B/s, in-1 100 B/s (relative 1.5 and 0.5), and a rule for "app". */
    static class Advice implements AdviceView {
        GroupAdvice rule;

        @Override
        public double weight(String topic, int partition) {
            Double b = bytesPerSecond(topic, partition);
            return b == null ? 1.0 : b / 200.0;
        }

        @Override
        public Double bytesPerSecond(String topic, int partition) {
            if (!topic.equals("in")) {
                return null;
            }
            return partition == 0 ? Double.valueOf(300.0) : partition == 1 ? Double.valueOf(100.0) : null;
        }

        @Override
        public Optional<GroupAdvice> rule(String groupId) {
            return groupId.equals("app") ? Optional.ofNullable(rule) : Optional.empty();
        }

        @Override
        public boolean measured() {
            return true;
        }
    }

    @Test
    void translatesTasksClientsRacksAndConfigs() {
        TaskProblems.Translated t = TaskProblems.of(FakeApplicationState.sample(), "app", AdviceView.NONE,
            PartitionRacks.fresh());
        TaskProblem p = t.problem();
        assertEquals(List.of(new TaskId(0, 0), new TaskId(0, 1), new TaskId(0, 2), new TaskId(1, 0)),
            List.copyOf(p.tasks().keySet()));
        TaskSpec t00 = p.tasks().get(new TaskId(0, 0));
        assertTrue(t00.stateful());
        assertEquals(List.of(IN0), t00.sourcePartitions());
        assertEquals(List.of(new TopicPartition("app-store-changelog", 0)), t00.changelogPartitions());
        assertFalse(p.tasks().get(new TaskId(1, 0)).stateful());

        String p1 = pid(1).id().toString();
        String p3 = pid(3).id().toString();
        assertEquals(Set.of(p1, pid(2).id().toString(), p3), p.clients().keySet());
        assertEquals(pid(1), t.processes().get(p1));
        ClientSpec c1 = p.clients().get(p1);
        assertEquals(2, c1.threads());
        assertEquals("az1", c1.rack());
        assertEquals(Set.of(new TaskId(0, 0), new TaskId(1, 0)), c1.previousActive());
        assertEquals(-2L, c1.lags().get(new TaskId(0, 0)));
        assertEquals(500L, c1.lags().get(new TaskId(0, 1)));
        // no rack.aware.assignment.tags, a standby, every rack known: standbys spread over racks
        assertEquals(Map.of("zone", "c", TaskProblems.RACK_TAG, "az3"), p.clients().get(p3).tags());
        assertEquals(List.of(TaskProblems.RACK_TAG), p.config().rackAwareTags());
        assertTrue(t.rackTags());
        assertEquals(Set.of(new TaskId(0, 0)), p.clients().get(pid(2).id().toString()).previousStandby());

        assertEquals(List.of("az1", "az2"), p.replicaRacks().get(IN0));
        assertNull(p.replicaRacks().get(LOG2), "Kafka gave no racks and none were known");
        assertEquals(new TaskProblems.RackSources(6, 0, 1), t.rackSources());
        assertEquals(RackStrategy.MIN_TRAFFIC, p.config().rackAwareStrategy());
        assertEquals(1, p.config().numStandbyReplicas());
        assertNull(p.config().trafficCost());
        assertFalse(t.weighted());
        assertEquals(1L, p.weight(IN0));
    }

    @Test
    void aPartitionWithoutRacksThisTimeKeepsTheLastKnownOnes() {
        PartitionRacks known = PartitionRacks.fresh();
        known.remember(LOG2, List.of("az3"));
        TaskProblems.Translated t = TaskProblems.of(FakeApplicationState.sample(), "app", AdviceView.NONE, known);
        assertEquals(List.of("az3"), t.problem().replicaRacks().get(LOG2));
        assertEquals(new TaskProblems.RackSources(6, 1, 0), t.rackSources());
        // and what Kafka gives is remembered for next time
        assertEquals(List.of("az1", "az2"), known.last(IN0));
    }

    @Test
    void strategyNoneMeansMinTrafficAndTheOthersAreKept() {
        FakeApplicationState s = FakeApplicationState.sample();
        s.configs = configs("none", OptionalInt.empty(), OptionalInt.empty());
        assertEquals(RackStrategy.MIN_TRAFFIC, TaskProblems.of(s, "app", AdviceView.NONE, PartitionRacks.fresh())
            .problem().config().rackAwareStrategy());
        s.configs = configs("balance_subtopology", OptionalInt.empty(), OptionalInt.empty());
        TaskProblems.Translated t = TaskProblems.of(s, "app", AdviceView.NONE, PartitionRacks.fresh());
        assertEquals(RackStrategy.BALANCE_SUBTOPOLOGY, t.problem().config().rackAwareStrategy());
        assertEquals("balance_subtopology", t.strategy());
    }

    @Test
    void adviceBecomesWeightsInHundredthsAndScalesTheMoveCost() {
        TaskProblems.Translated t = TaskProblems.of(FakeApplicationState.sample(), "app", new Advice(),
            PartitionRacks.fresh());
        TaskProblem p = t.problem();
        assertTrue(t.weighted());
        assertEquals(150L, p.weight(IN0));
        assertEquals(50L, p.weight(IN1));
        assertEquals(100L, p.weight(new TopicPartition("in", 2)), "unmeasured: weight 1, in hundredths");
        assertEquals(10, p.config().trafficCost());
        assertEquals(100, p.config().nonOverlapCost());
    }

    @Test
    void theApplicationsRuleFillsCostsTheApplicationLeftUnset() {
        FakeApplicationState s = FakeApplicationState.sample();
        Advice advice = new Advice() {
            @Override
            public boolean measured() {
                return false;
            }
        };
        advice.rule = new GroupAdvice("app*", 0, "rack-optimal", Map.of("traffic_cost", 5.0, "non_overlap_cost", 2L), 1);
        TaskProblem p = TaskProblems.of(s, "app", advice, PartitionRacks.fresh()).problem();
        assertEquals(5, p.config().trafficCost());
        assertEquals(2, p.config().nonOverlapCost());
        s.configs = configs("min_traffic", OptionalInt.of(7), OptionalInt.empty());
        p = TaskProblems.of(s, "app", advice, PartitionRacks.fresh()).problem();
        assertEquals(7, p.config().trafficCost(), "the application's own setting wins");
        assertEquals(2, p.config().nonOverlapCost());
        assertNull(TaskProblems.of(s, "other-app", advice, PartitionRacks.fresh()).problem().config().nonOverlapCost());
    }

    @Test
    void namedTagsAreUsedAsGivenAndARacklessClientGetsNoRackTag() {
        FakeApplicationState s = FakeApplicationState.sample();
        s.configs = new AssignmentConfigs(10_000L, 2, 1, 600_000L, List.of("zone"), OptionalInt.empty(),
            OptionalInt.empty(), "min_traffic");
        for (var e : new java.util.ArrayList<>(s.processes.entrySet())) {
            var proc = (FakeApplicationState.Proc) e.getValue();
            s.processes.put(e.getKey(), new FakeApplicationState.Proc(proc.processId(), proc.numProcessingThreads(),
                proc.rackId(), FakeApplicationState.tags("zone", proc.rackId().orElse("?")), proc.previousActiveTasks(),
                proc.previousStandbyTasks(), proc.statefulTasksToLagSums()));
        }
        TaskProblems.Translated t = TaskProblems.of(s, "app", AdviceView.NONE, PartitionRacks.fresh());
        assertEquals(List.of("zone"), t.problem().config().rackAwareTags());
        assertFalse(t.rackTags());

        FakeApplicationState racklessOne = FakeApplicationState.sample();
        racklessOne.process(4, 1, null, Set.of(), Set.of(), Map.of(new org.apache.kafka.streams.processor.TaskId(0, 0), 0L,
            new org.apache.kafka.streams.processor.TaskId(0, 1), 0L, new org.apache.kafka.streams.processor.TaskId(0, 2), 0L));
        t = TaskProblems.of(racklessOne, "app", AdviceView.NONE, PartitionRacks.fresh());
        assertEquals(List.of(), t.problem().config().rackAwareTags());
        assertFalse(t.rackTags());
    }

    @Test
    void namedTopologiesAreRefused() {
        FakeApplicationState s = FakeApplicationState.sample();
        org.apache.kafka.streams.processor.TaskId named = new org.apache.kafka.streams.processor.TaskId(0, 9, "t1");
        s.tasks.put(named, new FakeApplicationState.Task(named, false, Set.of(new FakeApplicationState.Part(
            new org.apache.kafka.common.TopicPartition("x", 9), true, false, Set.of("az1")))));
        assertThrows(TaskInputException.class,
            () -> TaskProblems.of(s, "app", AdviceView.NONE, PartitionRacks.fresh()));
    }

    static AssignmentConfigs configs(String strategy, OptionalInt traffic, OptionalInt nonOverlap) {
        return new AssignmentConfigs(10_000L, 2, 1, 600_000L, List.of(), traffic, nonOverlap, strategy);
    }
}
