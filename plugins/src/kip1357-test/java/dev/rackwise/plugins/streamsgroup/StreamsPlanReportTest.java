package dev.rackwise.plugins.streamsgroup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.rackwise.plugins.advice.AdviceView;
import dev.rackwise.plugins.advice.GroupCosts;
import dev.rackwise.plugins.publish.PlanGenerations;
import dev.rackwise.plugins.publish.PlanJson;
import dev.rackwise.plugins.publish.PublishedPlan;
import dev.rackwise.tasks.TaskCore;
import org.apache.kafka.coordinator.group.api.streams.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.api.streams.assignor.GroupSpec;
import org.apache.kafka.coordinator.group.streams.TopologyMetadata;
import org.junit.jupiter.api.Test;

class StreamsPlanReportTest {
    @Test
    void aComputedAssignmentBecomesAStreamsPlan() {
        GroupSpec spec = Groups.spec(List.of(
            new Groups.Member("m1", "p1", "az1", Set.of(0, 1), Set.of(), Map.of(), Map.of(), Map.of()),
            Groups.Member.fresh("m2", "p2", "az2"), Groups.Member.fresh("m3", "p3", "az3")), 1);
        TopologyMetadata tm = Groups.topology("orders", Groups.oneRackEach(3), true);
        StreamsGroupProblem problem = StreamsGroupProblem.of(spec, tm,
            CoordinatorTopologyAccess.read(tm).orElseThrow(), AdviceView.NONE, GroupCosts.DEFAULT);
        GroupAssignment out = MemberSpread.assignment(spec, problem, TaskCore.assign(problem.problem()));
        PublishedPlan plan = StreamsPlanReport.of(null, spec, problem, out, RackSource.COORDINATOR, false, 42)
            .toPlan("app", AdviceView.NONE, new PlanGenerations());
        assertEquals("streams", plan.kind());
        assertEquals(3, plan.members().size());
        PublishedPlan.Member m3 = plan.members().get(2);
        assertEquals("p3", m3.tasks().processId());
        assertEquals(List.of("0_2"), m3.tasks().active());
        assertEquals(List.of("az3"), m3.partitions().get(0).replicaRacks());
        assertFalse(m3.partitions().get(0).crossRack());
        assertEquals(1, plan.movedPartitions(), "0_1 moved from m1 to m2; 0_0 stayed");
        String json = PlanJson.write(plan);
        assertTrue(json.contains("\"kind\":\"streams\""), json);
        assertTrue(json.contains("\"process_id\":\"p3\",\"active_tasks\":[\"0_2\"]"), json);
        assertTrue(json.contains("\"racks_from\":\"coordinator\""), json);
        assertTrue(json.contains("\"reason\":\"assigned\""), json);
    }
}
