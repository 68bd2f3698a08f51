package dev.rackwise.plugins.streams;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.assignment.ProcessId;

/**
 * Checks a Streams plan against the request it answers before anything uses it:
 *
 * <ul>
 * <li>it is for this application and of kind streams;</li>
 * <li>its processes are exactly the request's processes (Kafka fails the rebalance on an unknown
 *     process, MISSING_PROCESS_ID on a left-out one);</li>
 * <li>every task it names is one of the application's tasks;</li>
 * <li>every task is active on exactly one process;</li>
 * <li>no task appears twice on one process (active, standby and warm-up together);</li>
 * <li>standbys and warm-ups are only of stateful tasks (Kafka: INVALID_STANDBY_TASK);</li>
 * <li>{@code followup_ms}, when set, is not negative.</li>
 * </ul>
 */
public final class StreamsPlanValidator {
    private StreamsPlanValidator() {
    }

    /** Empty when the plan can be handed to Kafka Streams as it is, else what is wrong. */
    public static Optional<String> problem(StreamsRequest request, StreamsPlan plan) {
        if (!request.applicationId().equals(plan.groupId())) {
            return Optional.of("plan is for \"" + plan.groupId() + "\", not application \""
                + request.applicationId() + "\"");
        }
        if (!"streams".equals(plan.kind())) {
            return Optional.of("plan is of kind \"" + plan.kind() + "\", not streams");
        }
        Set<String> known = new HashSet<>();
        for (ProcessId id : request.processes().keySet()) {
            known.add(id.id().toString());
        }
        for (String pid : plan.processes().keySet()) {
            if (!known.contains(pid)) {
                return Optional.of("plan names process " + pid + ", which is not in the application");
            }
        }
        for (String pid : known) {
            if (!plan.processes().containsKey(pid)) {
                return Optional.of("plan leaves out process " + pid);
            }
        }
        Map<TaskId, String> activeOn = new HashMap<>();
        for (Map.Entry<String, StreamsPlan.Tasks> e : plan.processes().entrySet()) {
            String pid = e.getKey();
            Set<TaskId> here = new HashSet<>();
            for (List<TaskId> list : List.of(e.getValue().active(), e.getValue().standby(), e.getValue().warmup())) {
                boolean active = list == e.getValue().active();
                for (TaskId task : list) {
                    StreamsRequest.Task info = request.tasks().get(task);
                    if (info == null) {
                        return Optional.of("plan names task " + task + ", which the application does not have");
                    }
                    if (!here.add(task)) {
                        return Optional.of("task " + task + " appears twice on process " + pid);
                    }
                    if (active) {
                        String other = activeOn.put(task, pid);
                        if (other != null) {
                            return Optional.of("task " + task + " is active on both " + other + " and " + pid);
                        }
                    } else if (!info.stateful()) {
                        return Optional.of("stateless task " + task + " has a standby on " + pid);
                    }
                }
            }
        }
        for (TaskId task : request.tasks().keySet()) {
            if (!activeOn.containsKey(task)) {
                return Optional.of("task " + task + " is active nowhere");
            }
        }
        if (plan.followupMs() != null && plan.followupMs() < 0) {
            return Optional.of("followup_ms " + plan.followupMs() + " is negative");
        }
        return Optional.empty();
    }
}
