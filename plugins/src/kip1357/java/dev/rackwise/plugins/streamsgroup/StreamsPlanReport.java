package dev.rackwise.plugins.streamsgroup;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import dev.rackwise.core.TopicPartition;
import dev.rackwise.plugins.advice.AdviceView;
import dev.rackwise.plugins.publish.PlanGenerations;
import dev.rackwise.plugins.publish.PlanJson;
import dev.rackwise.plugins.publish.PublishedPlan;
import dev.rackwise.tasks.TaskId;
import dev.rackwise.tasks.TaskProblem;
import dev.rackwise.tasks.TaskSpec;
import org.apache.kafka.coordinator.group.api.streams.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.api.streams.assignor.GroupSpec;
import org.apache.kafka.coordinator.group.api.streams.assignor.MemberAssignment;

/**
 * One streams-group assignment the plug-in computed, as the plan contract's view (kind
 * {@code streams}, reason {@code assigned}): per member its process, rack, task ids and its
 * actives' source partitions with replica racks and cross-rack flags. Built on the background
 * thread from the immutable inputs assign() captured (the spec, the problem, the result).
 *
 * @param memberRacks   member id to its rack (null: none), captured in assign()
 * @param memberProcess member id to its process id
 * @param previousOwner task to the member that held it as active before this assignment
 */
public record StreamsPlanReport(String groupId, Map<String, String> memberRacks, Map<String, String> memberProcess,
                                Map<TaskId, String> previousOwner, StreamsGroupProblem problem,
                                GroupAssignment assignment, RackSource source, boolean weighted, long assignMicros,
                                long createdAtMs) {
    /** Captures what the background conversion needs from the coordinator's inputs. */
    public static StreamsPlanReport of(String groupId, GroupSpec spec, StreamsGroupProblem problem,
                                       GroupAssignment assignment, RackSource source, boolean weighted,
                                       long assignMicros) {
        Map<String, String> racks = new TreeMap<>();
        Map<String, String> process = new TreeMap<>();
        Map<TaskId, String> owner = new TreeMap<>();
        for (String m : spec.memberIds()) {
            racks.put(m, spec.memberMetadata(m).rackId().filter(r -> !r.isEmpty()).orElse(null));
            process.put(m, spec.memberMetadata(m).processId());
            Map<String, Set<Integer>> active = spec.memberAssignmentState(m).activeTasks();
            if (active != null) {
                active.forEach((sub, parts) -> {
                    if (problem.ids().contains(sub) && parts != null) {
                        parts.forEach(p -> owner.put(new TaskId(problem.ids().toInt(sub), p), m));
                    }
                });
            }
        }
        return new StreamsPlanReport(groupId, racks, process, owner, problem, assignment, source, weighted,
            assignMicros, System.currentTimeMillis());
    }

    /** The plan contract's view; {@code group} is the group id (learnt later when it was not known). */
    public PublishedPlan toPlan(String group, AdviceView advice, PlanGenerations generations) {
        TaskProblem tp = problem.problem();
        List<PublishedPlan.Member> members = new ArrayList<>();
        int moved = 0;
        for (Map.Entry<String, MemberAssignment> e : new TreeMap<>(assignment.members()).entrySet()) {
            String member = e.getKey();
            String rack = memberRacks.get(member);
            List<String> active = new ArrayList<>();
            List<PublishedPlan.Partition> parts = new ArrayList<>();
            for (TaskId t : tasks(e.getValue().activeTasks())) {
                active.add(problem.ids().toId(t.subtopology()) + "_" + t.partition());
                String before = previousOwner.get(t);
                if (before != null && !before.equals(member)) {
                    moved++; // a new task is placed, not moved
                }
                TaskSpec spec = tp.tasks().get(t);
                if (spec == null) {
                    continue;
                }
                for (TopicPartition p : spec.sourcePartitions()) {
                    List<String> replicaRacks = new ArrayList<>();
                    for (String r : tp.replicaRacks().getOrDefault(p, List.of())) {
                        if (r != null) {
                            replicaRacks.add(r);
                        }
                    }
                    boolean cross = rack != null && !replicaRacks.isEmpty() && !replicaRacks.contains(rack);
                    double weight = weighted ? tp.weight(p) / (double) StreamsGroupProblem.WEIGHT_SCALE : 1.0;
                    parts.add(new PublishedPlan.Partition(p.topic(), p.partition(), replicaRacks, cross, weight,
                        advice.bytesPerSecond(p.topic(), p.partition())));
                }
            }
            List<String> standby = new ArrayList<>();
            for (TaskId t : tasks(e.getValue().standbyTasks())) {
                standby.add(problem.ids().toId(t.subtopology()) + "_" + t.partition());
            }
            members.add(new PublishedPlan.Member(member, rack, parts,
                new PublishedPlan.Tasks(memberProcess.get(member), active, standby, List.of())));
        }
        Map<String, Object> config = new LinkedHashMap<>();
        config.put("num_standby_replicas", tp.config().numStandbyReplicas());
        config.put("rack_aware_assignment_strategy", tp.config().rackAwareStrategy().configValue());
        config.put("traffic_cost", tp.config().effectiveTrafficCost());
        config.put("non_overlap_cost", tp.config().effectiveNonOverlapCost());
        config.put("protocol", "streams");
        config.put("racks_from", source.label());
        config.put("assign_us", assignMicros);
        return new PublishedPlan(group, generations.next(group, createdAtMs), PlanJson.REASON, "rackwise",
            config, createdAtMs, members, null, moved, List.of(), PublishedPlan.STREAMS, null, null);
    }

    private TreeSet<TaskId> tasks(Map<String, Set<Integer>> bySub) {
        TreeSet<TaskId> out = new TreeSet<>();
        if (bySub != null) {
            bySub.forEach((sub, parts) -> {
                if (problem.ids().contains(sub) && parts != null) {
                    parts.forEach(p -> out.add(new TaskId(problem.ids().toInt(sub), p)));
                }
            });
        }
        return out;
    }
}
