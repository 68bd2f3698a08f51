package dev.rackwise.plugins.streams;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;

import dev.rackwise.tasks.ClientAssignment;
import dev.rackwise.tasks.TaskId;
import dev.rackwise.tasks.TaskPlan;
import org.apache.kafka.streams.processor.assignment.KafkaStreamsAssignment;
import org.apache.kafka.streams.processor.assignment.KafkaStreamsAssignment.AssignedTask;
import org.apache.kafka.streams.processor.assignment.ProcessId;
import org.apache.kafka.streams.processor.assignment.TaskAssignor.TaskAssignment;

/**
 * The core's {@link TaskPlan} as Kafka's {@link TaskAssignment}: actives as ACTIVE, standbys and
 * warm-ups as STANDBY (a warm-up is a standby in Kafka's model: a copy of the state that is not
 * processing). When the plan needs a probing follow-up (KIP-441: a warm-up is catching up), the
 * process first in Kafka's order (the smallest process id) carries
 * {@code withFollowupRebalance(now + probing.rebalance.interval.ms)}: Kafka Streams encodes it as
 * {@code nextRebalanceMs} for one of that process's consumers, whose rejoin is the probing
 * rebalance of the whole group, as with Kafka's own HA assignor.
 *
 * <p>Every process of the application gets an entry, with no task if the plan gives it none.
 */
public final class TaskAssignments {
    private TaskAssignments() {
    }

    public static TaskAssignment of(TaskPlan plan, SortedMap<String, ProcessId> processes, long probingIntervalMs,
                                    Instant now) {
        List<KafkaStreamsAssignment> out = new ArrayList<>();
        boolean followupPlaced = false;
        List<ProcessId> order = new ArrayList<>(processes.values());
        order.sort(null); // ProcessId is Comparable: Kafka's order
        for (ProcessId pid : order) {
            ClientAssignment given = plan.client(pid.id().toString());
            Set<AssignedTask> tasks = new HashSet<>();
            if (given != null) {
                add(tasks, given.active(), AssignedTask.Type.ACTIVE);
                add(tasks, given.allStandbys(), AssignedTask.Type.STANDBY);
            }
            KafkaStreamsAssignment a = KafkaStreamsAssignment.of(pid, tasks);
            if (plan.followupNeeded() && !followupPlaced) {
                a = a.withFollowupRebalance(now.plusMillis(probingIntervalMs));
                followupPlaced = true;
            }
            out.add(a);
        }
        return new TaskAssignment(out);
    }

    /**
     * What Kafka's {@code validateTaskAssignment} does not check: every task of the application is
     * active on exactly one process, and the plan names only the application's processes and tasks.
     * Null when the assignment is whole, else what is wrong.
     */
    public static String incomplete(TaskPlan plan, SortedMap<String, ProcessId> processes, Set<TaskId> tasks) {
        Map<TaskId, Integer> active = new HashMap<>();
        for (Map.Entry<String, ClientAssignment> e : plan.clients().entrySet()) {
            if (!processes.containsKey(e.getKey())) {
                return "the plan names process " + e.getKey() + ", which is not in the application";
            }
            for (TaskId t : e.getValue().active()) {
                active.merge(t, 1, Integer::sum);
            }
            for (TaskId t : e.getValue().allStandbys()) {
                if (!tasks.contains(t)) {
                    return "the plan names task " + t + ", which is not in the application";
                }
            }
        }
        for (TaskId t : tasks) {
            int n = active.getOrDefault(t, 0);
            if (n != 1) {
                return "task " + t + " is active on " + n + " processes";
            }
        }
        if (!tasks.containsAll(active.keySet())) {
            return "the plan names a task that is not in the application";
        }
        return null;
    }

    private static void add(Set<AssignedTask> into, List<TaskId> tasks, AssignedTask.Type type) {
        for (TaskId t : tasks) {
            into.add(new AssignedTask(TaskProblems.kafkaTaskId(t), type));
        }
    }

    /** Per process: the tasks of an assignment as "active=[..] standby=[..]" (for logs and tests). */
    public static String describe(TaskAssignment assignment) {
        StringBuilder sb = new StringBuilder();
        List<KafkaStreamsAssignment> all = new ArrayList<>(assignment.assignment());
        all.sort((a, b) -> a.processId().compareTo(b.processId()));
        for (KafkaStreamsAssignment a : all) {
            List<String> active = new ArrayList<>();
            List<String> standby = new ArrayList<>();
            for (Map.Entry<org.apache.kafka.streams.processor.TaskId, AssignedTask> e
                : new java.util.TreeMap<>(a.tasks()).entrySet()) {
                (e.getValue().type() == AssignedTask.Type.ACTIVE ? active : standby).add(e.getKey().toString());
            }
            sb.append(sb.length() == 0 ? "" : "; ").append(a.processId().id()).append(" active=").append(active)
                .append(" standby=").append(standby);
        }
        return sb.toString();
    }
}
