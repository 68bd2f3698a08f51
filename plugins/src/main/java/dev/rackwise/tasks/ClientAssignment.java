package dev.rackwise.tasks;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.TreeSet;

/**
 * What one client (process) is given: active, standby and warm-up task ids, each sorted by
 * task order (subtopology, then partition). Warm-ups are not listed among the standbys;
 * Kafka sends both as standby tasks ({@link #allStandbys()}).
 */
public record ClientAssignment(String processId, List<TaskId> active, List<TaskId> standby,
                               List<TaskId> warmup) {
    public ClientAssignment {
        Objects.requireNonNull(processId, "processId");
        active = List.copyOf(new TreeSet<>(active));
        standby = List.copyOf(new TreeSet<>(standby));
        warmup = List.copyOf(new TreeSet<>(warmup));
    }

    /** Standbys and warm-ups together, sorted: what Kafka hands the client as standby tasks. */
    public List<TaskId> allStandbys() {
        TreeSet<TaskId> all = new TreeSet<>(standby);
        all.addAll(warmup);
        return List.copyOf(new ArrayList<>(all));
    }

    public int activeCount() {
        return active.size();
    }

    public int standbyCount() {
        return standby.size();
    }

    public int warmupCount() {
        return warmup.size();
    }
}
