package dev.rackwise.plugins.streamsgroup;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

import dev.rackwise.tasks.ClientAssignment;
import dev.rackwise.tasks.TaskId;
import dev.rackwise.tasks.TaskPlan;
import org.apache.kafka.coordinator.group.api.streams.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.api.streams.assignor.GroupSpec;
import org.apache.kafka.coordinator.group.api.streams.assignor.MemberAssignment;
import org.apache.kafka.coordinator.group.api.streams.assignor.MemberAssignmentState;

/**
 * Spreads each process's tasks over its members (stream threads), deterministically: a task
 * stays with the member that held it in the same role if that member has room, the rest go
 * one by one (task order) to the member with the fewest, ties by member id. A member holds at
 * most ⌈n / k⌉ of its process's n actives (and likewise standbys), as Kafka Streams' own
 * thread assignment balances them.
 *
 * <p>Warm-ups: the 4.4.0 API has no way to hand out a warm-up (the broker's refiner owns them,
 * and in 4.4.0 its {@code refine} returns the target unchanged), so a warm-up the core plans
 * goes out as a standby: exactly what a KIP-441 warm-up is on the classic protocol.
 *
 * <p>Example: process p1 with members m1, m2 given actives 0_0, 0_1, 0_2, m2 held 0_1 before:
 * m2 keeps 0_1, then 0_0 goes to m1 (fewest), 0_2 to m1 (tie, m1 first): m1 {0_0, 0_2}, m2 {0_1}.
 */
public final class MemberSpread {
    private MemberSpread() {
    }

    /** The coordinator's target assignment for {@code plan}; every member of the group is named. */
    public static GroupAssignment assignment(GroupSpec spec, StreamsGroupProblem problem, TaskPlan plan) {
        Map<String, MemberAssignment> out = new HashMap<>();
        for (Map.Entry<String, SortedSet<String>> e : problem.membersByProcess().entrySet()) {
            List<String> members = new ArrayList<>(e.getValue());
            ClientAssignment a = plan.client(e.getKey());
            List<TaskId> actives = a == null ? List.of() : a.active();
            List<TaskId> standbys = a == null ? List.of() : a.allStandbys();
            Map<String, Set<TaskId>> heldActive = new HashMap<>();
            Map<String, Set<TaskId>> heldStandby = new HashMap<>();
            for (String m : members) {
                MemberAssignmentState s = spec.memberAssignmentState(m);
                heldActive.put(m, tasks(s.activeTasks(), problem.ids()));
                Set<TaskId> st = tasks(s.standbyTasks(), problem.ids());
                st.addAll(tasks(s.warmupTasks(), problem.ids()));
                heldStandby.put(m, st);
            }
            Map<String, List<TaskId>> act = spread(members, actives, heldActive);
            Map<String, List<TaskId>> sby = spread(members, standbys, heldStandby);
            for (String m : members) {
                out.put(m, new MemberAssignment(bySubtopology(act.get(m), problem.ids()),
                    bySubtopology(sby.get(m), problem.ids())));
            }
        }
        return new GroupAssignment(out);
    }

    /** One role's tasks over the members: stay where held (within the cap), then the fewest first. */
    static Map<String, List<TaskId>> spread(List<String> members, List<TaskId> tasks, Map<String, Set<TaskId>> held) {
        Map<String, List<TaskId>> out = new TreeMap<>();
        for (String m : members) {
            out.put(m, new ArrayList<>());
        }
        if (members.isEmpty()) {
            return out;
        }
        int cap = (tasks.size() + members.size() - 1) / members.size();
        List<TaskId> rest = new ArrayList<>();
        for (TaskId t : new TreeSet<>(tasks)) {
            String keeper = null;
            for (String m : members) {
                if (held.getOrDefault(m, Set.of()).contains(t) && out.get(m).size() < cap) {
                    keeper = m;
                    break;
                }
            }
            if (keeper != null) {
                out.get(keeper).add(t);
            } else {
                rest.add(t);
            }
        }
        for (TaskId t : rest) {
            String least = members.get(0);
            for (String m : members) {
                if (out.get(m).size() < out.get(least).size()) {
                    least = m;
                }
            }
            out.get(least).add(t);
        }
        return out;
    }

    private static Set<TaskId> tasks(Map<String, Set<Integer>> bySub, SubtopologyIds ids) {
        Set<TaskId> out = new TreeSet<>();
        if (bySub == null) {
            return out;
        }
        bySub.forEach((sub, parts) -> {
            if (ids.contains(sub) && parts != null) {
                for (Integer p : parts) {
                    if (p != null && p >= 0) {
                        out.add(new TaskId(ids.toInt(sub), p));
                    }
                }
            }
        });
        return out;
    }

    static Map<String, Set<Integer>> bySubtopology(List<TaskId> tasks, SubtopologyIds ids) {
        Map<String, Set<Integer>> out = new TreeMap<>();
        for (TaskId t : tasks) {
            out.computeIfAbsent(ids.toId(t.subtopology()), k -> new TreeSet<>()).add(t.partition());
        }
        return out;
    }
}
