package dev.rackwise.plugins.streams;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.assignment.KafkaStreamsAssignment;
import org.apache.kafka.streams.processor.assignment.KafkaStreamsAssignment.AssignedTask;
import org.apache.kafka.streams.processor.assignment.ProcessId;
import org.apache.kafka.streams.processor.assignment.TaskAssignor.TaskAssignment;

/**
 * A validated plan as Kafka's {@link TaskAssignment}: actives as ACTIVE, standbys and warm-ups as
 * STANDBY (a warm-up is a standby in Kafka's model: a copy of the state that is not processing).
 * When the plan asks for a follow-up, the process first in Kafka's order (the smallest process id)
 * carries {@code withFollowupRebalance(now + followup_ms)}: Kafka Streams encodes it for one of
 * that process's consumers, whose rejoin makes the probing rebalance for the whole group (the
 * same as Kafka's own HA assignor, which picks the leader's process).
 */
public final class StreamsTranslator {
    private StreamsTranslator() {
    }

    public static TaskAssignment assignment(StreamsRequest request, StreamsPlan plan, Instant now) {
        List<KafkaStreamsAssignment> out = new ArrayList<>();
        boolean followupPlaced = false;
        for (ProcessId pid : request.processes().keySet()) {
            StreamsPlan.Tasks tasks = plan.processes().get(pid.id().toString());
            Set<AssignedTask> assigned = new HashSet<>();
            if (tasks != null) {
                add(assigned, tasks.active(), AssignedTask.Type.ACTIVE);
                add(assigned, tasks.standby(), AssignedTask.Type.STANDBY);
                add(assigned, tasks.warmup(), AssignedTask.Type.STANDBY);
            }
            KafkaStreamsAssignment a = KafkaStreamsAssignment.of(pid, assigned);
            if (plan.followupMs() != null && !followupPlaced) {
                a = a.withFollowupRebalance(now.plusMillis(plan.followupMs()));
                followupPlaced = true;
            }
            out.add(a);
        }
        return new TaskAssignment(out);
    }

    private static void add(Set<AssignedTask> into, List<TaskId> tasks, AssignedTask.Type type) {
        for (TaskId t : tasks) {
            into.add(new AssignedTask(t, type));
        }
    }

    /** Per process: the tasks of an assignment as "active=[..] standby=[..]" (for logs and tests). */
    public static String describe(TaskAssignment assignment) {
        StringBuilder sb = new StringBuilder();
        for (KafkaStreamsAssignment a : assignment.assignment()) {
            List<String> active = new ArrayList<>();
            List<String> standby = new ArrayList<>();
            for (Map.Entry<TaskId, AssignedTask> e : new java.util.TreeMap<>(a.tasks()).entrySet()) {
                (e.getValue().type() == AssignedTask.Type.ACTIVE ? active : standby).add(e.getKey().toString());
            }
            sb.append(sb.length() == 0 ? "" : "; ").append(a.processId().id()).append(" active=").append(active)
                .append(" standby=").append(standby);
        }
        return sb.toString();
    }
}
