package dev.rackwise.plugins.streamsgroup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.rackwise.core.TopicPartition;
import dev.rackwise.plugins.advice.AdviceView;
import dev.rackwise.plugins.advice.GroupCosts;
import dev.rackwise.tasks.ClientSpec;
import dev.rackwise.tasks.RackStrategy;
import dev.rackwise.tasks.TaskId;
import dev.rackwise.tasks.TaskProblem;
import org.apache.kafka.coordinator.group.api.streams.assignor.GroupSpec;
import org.apache.kafka.coordinator.group.streams.TopologyMetadata;
import org.junit.jupiter.api.Test;

class StreamsGroupProblemTest {
    /** A client's lag as the core reads it: listed, else -2 for a previous active, else 0. */
    static long lag(TaskProblem problem, String process, TaskId task) {
        ClientSpec c = problem.clients().get(process);
        Long listed = c.lags().get(task);
        return listed != null ? listed : c.previousActive().contains(task) ? ClientSpec.LAG_RUNNING : 0L;
    }

    @Test
    void membersOfOneProcessAreOneClientWithOneThreadEach() {
        GroupSpec spec = Groups.spec(List.of(Groups.Member.fresh("m1", "p1", "az1"),
            Groups.Member.fresh("m2", "p1", "az1"), Groups.Member.fresh("m3", "p2", "az2")), 1);
        TopologyMetadata tm = Groups.topology("orders", Groups.oneRackEach(6), true);
        StreamsGroupProblem p = StreamsGroupProblem.of(spec, tm, CoordinatorTopologyAccess.read(tm).orElseThrow(),
            AdviceView.NONE, GroupCosts.DEFAULT);
        TaskProblem problem = p.problem();
        assertEquals(2, problem.clients().get("p1").threads());
        assertEquals("az1", problem.clients().get("p1").rack());
        assertEquals(1, problem.clients().get("p2").threads());
        assertEquals(6, problem.tasks().size());
        assertEquals(List.of(new TopicPartition("orders", 4)), problem.tasks().get(new TaskId(0, 4)).sourcePartitions());
        assertEquals(List.of(new TopicPartition("orders-changelog", 4)),
            problem.tasks().get(new TaskId(0, 4)).changelogPartitions());
        assertEquals(List.of("az2"), problem.replicaRacks().get(new TopicPartition("orders", 4)));
        assertEquals(1, problem.config().numStandbyReplicas());
        assertEquals(RackStrategy.MIN_TRAFFIC, problem.config().rackAwareStrategy());
    }

    @Test
    void lagsComeFromOffsetsAndEndOffsets() {
        GroupSpec spec = Groups.spec(List.of(
            new Groups.Member("m1", "p1", "az1", Set.of(0), Set.of(), Map.of(0, -2L), Map.of(0, 500L), Map.of()),
            new Groups.Member("m2", "p2", "az2", Set.of(), Set.of(0), Map.of(0, 450L), Map.of(), Map.of()),
            Groups.Member.fresh("m3", "p3", "az3")), 1);
        TopologyMetadata tm = Groups.topology("orders", Groups.oneRackEach(2), true);
        TaskProblem problem = StreamsGroupProblem.of(spec, tm, CoordinatorTopologyAccess.read(tm).orElseThrow(),
            AdviceView.NONE, GroupCosts.DEFAULT).problem();
        TaskId t0 = new TaskId(0, 0);
        assertEquals(ClientSpec.LAG_RUNNING, lag(problem, "p1", t0));
        assertEquals(50L, lag(problem, "p2", t0));
        assertEquals(500L, problem.clients().get("p3").lags().get(t0), "no local state: restore it all");
        assertEquals(Set.of(t0), problem.clients().get("p1").previousActive());
        assertEquals(Set.of(t0), problem.clients().get("p2").previousStandby());
        // no end offset known for 0_1 yet (a new task): nobody is behind
        assertEquals(0L, lag(problem, "p3", new TaskId(0, 1)));
    }

    @Test
    void anEndOffsetOfLongMaxIsUnknownNotFarBehind() {
        // what Kafka Streams 4.4 reports for standbys that have not fetched yet (testbed, 4.4.0)
        GroupSpec spec = Groups.spec(List.of(
            new Groups.Member("m1", "p1", "az1", Set.of(0), Set.of(1), Map.of(0, -2L, 1, 0L),
                Map.of(1, Long.MAX_VALUE), Map.of()),
            new Groups.Member("m2", "p2", "az2", Set.of(1), Set.of(0), Map.of(0, 0L),
                Map.of(0, Long.MAX_VALUE), Map.of()),
            Groups.Member.fresh("m3", "p3", "az3")), 1);
        TopologyMetadata tm = Groups.topology("orders", Groups.oneRackEach(2), true);
        TaskProblem problem = StreamsGroupProblem.of(spec, tm, CoordinatorTopologyAccess.read(tm).orElseThrow(),
            AdviceView.NONE, GroupCosts.DEFAULT).problem();
        assertEquals(0L, lag(problem, "p3", new TaskId(0, 0)));
        assertEquals(0L, lag(problem, "p2", new TaskId(0, 0)));
        assertEquals(0L, lag(problem, "p1", new TaskId(0, 1)));
    }

    @Test
    void onlyLagsTheCoreCannotDefaultAreListed() {
        GroupSpec spec = Groups.spec(List.of(
            new Groups.Member("m1", "p1", "az1", Set.of(0), Set.of(), Map.of(0, -2L), Map.of(0, 500L), Map.of()),
            Groups.Member.fresh("m2", "p2", "az2")), 0);
        TopologyMetadata tm = Groups.topology("orders", Groups.oneRackEach(4), true);
        TaskProblem problem = StreamsGroupProblem.of(spec, tm, CoordinatorTopologyAccess.read(tm).orElseThrow(),
            AdviceView.NONE, GroupCosts.DEFAULT).problem();
        assertEquals(Map.of(), problem.clients().get("p1").lags());
        assertEquals(Map.of(new TaskId(0, 0), 500L), problem.clients().get("p2").lags());
    }

    @Test
    void withoutTopicsTheProblemHasNoRacks() {
        GroupSpec spec = Groups.spec(List.of(Groups.Member.fresh("m1", "p1", "az1")), 0);
        TaskProblem problem = StreamsGroupProblem.of(spec, Groups.plain(3, true), TopologyView.NONE, AdviceView.NONE,
            GroupCosts.DEFAULT).problem();
        assertEquals(3, problem.tasks().size());
        assertTrue(problem.replicaRacks().isEmpty());
    }

    @Test
    void subtopologyIdsKeepTheirNumbersOrAreNumberedInOrder() {
        SubtopologyIds numeric = SubtopologyIds.of(List.of("10", "0", "2"));
        assertEquals(List.of("0", "2", "10"), numeric.sorted());
        assertEquals(10, numeric.toInt("10"));
        SubtopologyIds named = SubtopologyIds.of(List.of("b", "a", "01"));
        assertEquals(List.of("01", "a", "b"), named.sorted());
        assertEquals(2, named.toInt("b"));
        assertEquals("a", named.toId(1));
    }

    @Test
    void weightsFollowTheAdviceAndTheMoveCostKeepsItsRatio() {
        AdviceView advice = new AdviceView() {
            @Override
            public double weight(String topic, int partition) {
                return partition == 0 ? 3.0 : 0.5;
            }

            @Override
            public boolean measured() {
                return true;
            }
        };
        GroupSpec spec = Groups.spec(List.of(Groups.Member.fresh("m1", "p1", "az1")), 0);
        TopologyMetadata tm = Groups.topology("orders", Groups.oneRackEach(2), false);
        TaskProblem problem = StreamsGroupProblem.of(spec, tm, CoordinatorTopologyAccess.read(tm).orElseThrow(),
            advice, GroupCosts.DEFAULT).problem();
        assertEquals(300L, problem.weight(new TopicPartition("orders", 0)));
        assertEquals(50L, problem.weight(new TopicPartition("orders", 1)));
        assertEquals(100, problem.config().nonOverlapCost());
    }
}
