package dev.rackwise.tasks;

import java.util.Map;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * What one client holds while the assignor runs; built fresh for every call. Loads are the
 * doubles Kafka computes ({@code (active + standby) / capacity}, {@code active / capacity}),
 * so ties break where Kafka's do.
 */
final class ClientState {
    final String processId;
    final int capacity;
    final String rack;
    final SortedMap<String, String> tags;
    /** The lag per stateful task, at the task's index in {@code lagIndex} (shared by all clients). */
    final long[] lags;
    final Map<TaskId, Integer> lagIndex;
    final int rank;
    final SortedSet<TaskId> prevActive;
    final SortedSet<TaskId> prevStandby;
    final TreeSet<TaskId> active = new TreeSet<>();
    final TreeSet<TaskId> standby = new TreeSet<>();

    ClientState(String processId, int capacity, String rack, SortedMap<String, String> tags,
                long[] lags, Map<TaskId, Integer> lagIndex, int rank, SortedSet<TaskId> prevActive,
                SortedSet<TaskId> prevStandby) {
        this.processId = processId;
        this.capacity = capacity;
        this.rack = rack;
        this.tags = tags;
        this.lags = lags;
        this.lagIndex = lagIndex;
        this.rank = rank;
        this.prevActive = prevActive;
        this.prevStandby = prevStandby;
    }

    long lag(TaskId task) {
        return lags[lagIndex.get(task)];
    }

    double assignedLoad() {
        return (double) (active.size() + standby.size()) / capacity;
    }

    double activeLoad() {
        return (double) active.size() / capacity;
    }

    int assignedCount() {
        return active.size() + standby.size();
    }

    boolean holds(TaskId task) {
        return active.contains(task) || standby.contains(task);
    }

    /** The rack, or "" when the client has none (racks are only compared when all have one). */
    String rackOrEmpty() {
        return rack == null ? "" : rack;
    }
}
