package dev.rackwise.plugins.streams;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.kafka.streams.processor.TaskId;

/**
 * The parts of a Streams AssignmentPlan (docs/architecture.md § The plan) the task assignor acts
 * on: per process its active, standby and warm-up tasks, the generation, and the follow-up
 * (probing) delay in ms, null when none.
 */
public record StreamsPlan(String groupId, String kind, long generation, Map<String, Tasks> processes,
                          Long followupMs) {
    /** One process's tasks as the plan lists them. */
    public record Tasks(List<TaskId> active, List<TaskId> standby, List<TaskId> warmup) {
        public Tasks {
            active = List.copyOf(active);
            standby = List.copyOf(standby);
            warmup = List.copyOf(warmup);
        }
    }

    public StreamsPlan {
        processes = Collections.unmodifiableMap(new LinkedHashMap<>(processes));
    }

    public int activeCount() {
        return processes.values().stream().mapToInt(t -> t.active().size()).sum();
    }

    public int standbyCount() {
        return processes.values().stream().mapToInt(t -> t.standby().size()).sum();
    }

    public int warmupCount() {
        return processes.values().stream().mapToInt(t -> t.warmup().size()).sum();
    }
}
