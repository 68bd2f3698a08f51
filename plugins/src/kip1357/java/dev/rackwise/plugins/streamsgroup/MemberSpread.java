package dev.rackwise.plugins.streamsgroup;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
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
        int k = members.size();
        int cap = (tasks.size() + k - 1) / k;
        // Each task's holders in member order, so the first with room keeps it.
        Map<TaskId, List<Integer>> holders = new HashMap<>();
        for (int i = 0; i < k; i++) {
            for (TaskId t : held.getOrDefault(members.get(i), Set.of())) {
                holders.computeIfAbsent(t, x -> new ArrayList<>(1)).add(i);
            }
        }
        List<List<TaskId>> given = new ArrayList<>(k);
        for (String m : members) {
            given.add(out.get(m));
        }
        List<TaskId> rest = new ArrayList<>();
        for (TaskId t : new TreeSet<>(tasks)) {
            int keeper = -1;
            for (int i : holders.getOrDefault(t, List.of())) {
                if (given.get(i).size() < cap) {
                    keeper = i;
                    break;
                }
            }
            if (keeper >= 0) {
                given.get(keeper).add(t);
            } else {
                rest.add(t);
            }
        }
        // The member with the fewest, ties by member order: a heap of (count, position).
        PriorityQueue<int[]> fewest = new PriorityQueue<>(
                (a, b) -> a[0] != b[0] ? Integer.compare(a[0], b[0]) : Integer.compare(a[1], b[1]));
        for (int i = 0; i < k; i++) {
            fewest.add(new int[] {given.get(i).size(), i});
        }
        for (TaskId t : rest) {
            int[] least = fewest.poll();
            given.get(least[1]).add(t);
            least[0]++;
            fewest.add(least);
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
