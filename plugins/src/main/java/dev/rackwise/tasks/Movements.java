package dev.rackwise.tasks;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * KIP-441 task movements (Kafka's {@code TaskMovement}): keep an active on a caught-up
 * client while its balanced destination warms up, within a budget of
 * {@code max.warmup.replicas} shared by active and standby movements
 * (docs/streams-assignor.md § 4.3).
 *
 * <p>Example: task 0_0 balanced onto fresh client b (lag 5000 &gt; acceptable 100) while a
 * runs it (lag -2): a keeps the active, b gets a warm-up, and a probing rebalance follows.
 */
final class Movements {
    int remainingWarmups;
    int activeMoves;
    int standbyMoves;
    final Map<Integer, TreeSet<TaskId>> warmups = new TreeMap<>();

    private final ClientState[] clients;
    private final Set<TaskId> stateful;
    private final long acceptableLag;
    // The stateful tasks' shared index into every client's lags.
    private final Map<TaskId, Integer> lagIndex;
    private final Map<TaskId, List<Integer>> byLag = new HashMap<>();

    private record Move(int caughtUp, TaskId task, int destination) {
    }

    // Kafka's movement queue compares (caught-up client count, task) only: two movements of
    // one task tie and leave in java.util.PriorityQueue's own heap order, as in Kafka.
    private static final Comparator<Move> MOVE_ORDER =
            Comparator.comparingInt(Move::caughtUp).thenComparing(Move::task);

    Movements(ClientState[] clients, List<TaskId> stateful, long acceptableLag, int maxWarmups) {
        this.clients = clients;
        this.remainingWarmups = maxWarmups;
        this.stateful = new HashSet<>(stateful);
        this.acceptableLag = acceptableLag;
        this.lagIndex = clients.length == 0 ? Map.of() : clients[0].lagIndex;
    }

    /** Whether client {@code i} is caught up on stateful {@code task} (§ 4.3), read from its lag. */
    private boolean caughtUp(TaskId task, int i) {
        Integer k = lagIndex.get(task);
        if (k == null) {
            return false;
        }
        long lag = clients[i].lags[k];
        return lag == ClientSpec.LAG_RUNNING || acceptableLag == Long.MAX_VALUE
                || lag >= 0 && lag <= acceptableLag;
    }

    private int caughtUpCount(TaskId task) {
        int n = 0;
        for (int i = 0; i < clients.length; i++) {
            n += caughtUp(task, i) ? 1 : 0;
        }
        return n;
    }

    /** Clients by (lag, Kafka order); -3 sorts before -2, as in Kafka. */
    private List<Integer> byLag(TaskId task) {
        return byLag.computeIfAbsent(task, t -> {
            List<Integer> ranked = new ArrayList<>();
            for (int i = 0; i < clients.length; i++) {
                ranked.add(i);
            }
            ranked.sort(Comparator.<Integer>comparingLong(i -> clients[i].lag(t))
                    .thenComparingInt(i -> i));
            return ranked;
        });
    }

    private boolean needsMove(TaskId task, int client) {
        if (caughtUp(task, client)) {
            return false;
        }
        return clients[byLag(task).get(0)].lag(task) < clients[client].lag(task);
    }

    private int mostCaughtUp(TaskId task, int destination, boolean eligibleOnly) {
        for (int c : byLag(task)) {
            if (c == destination) {
                return -1;
            }
            if (!eligibleOnly || !clients[c].holds(task)) {
                return c;
            }
        }
        return -1;
    }

    private void moveActive(TaskId task, int source, int destination) {
        clients[source].active.add(task);
        clients[destination].active.remove(task);
        int budget = remainingWarmups;
        remainingWarmups--; // Kafka's counter goes negative (quirk 9)
        if (budget > 0) {
            clients[destination].standby.add(task);
            warmups.computeIfAbsent(destination, k -> new TreeSet<>()).add(task);
        }
    }

    private void swap(TaskId task, int source, int destination) {
        clients[source].standby.remove(task);
        clients[source].active.add(task);
        clients[destination].active.remove(task);
        clients[destination].standby.add(task);
    }

    private PrioritySet caughtUpSet() {
        return new PrioritySet(clients, ClientState::assignedLoad,
                (c, t) -> caughtUp(t, c.rank));
    }

    void assignActiveMovements() {
        PrioritySet pset = caughtUpSet();
        PriorityQueue<Move> queue = new PriorityQueue<>(MOVE_ORDER);
        for (int i = 0; i < clients.length; i++) {
            for (TaskId task : clients[i].active) {
                if (stateful.contains(task) && needsMove(task, i)) {
                    queue.add(new Move(caughtUpCount(task), task, i));
                }
            }
            pset.offer(i);
        }
        activeMoves = queue.size();
        while (!queue.isEmpty()) {
            Move m = queue.poll();
            TaskId task = m.task();
            int dest = m.destination();
            int src = pset.poll(task, c -> c.standby.contains(task));
            if (src >= 0) {
                swap(task, src, dest);
            } else {
                src = pset.poll(task);
                if (src >= 0) {
                    moveActive(task, src, dest);
                } else {
                    src = mostCaughtUp(task, dest, false);
                    if (src < 0) {
                        throw new IllegalStateException("no more caught-up client for " + task
                                + ", though one was seen");
                    }
                    if (clients[src].standby.contains(task)) {
                        swap(task, src, dest);
                    } else {
                        moveActive(task, src, dest);
                    }
                }
            }
            pset.offer(src);
            pset.offer(dest);
        }
    }

    /** Returns the (client, task) copies kept on as warm-ups. */
    List<Map.Entry<Integer, TaskId>> assignStandbyMovements() {
        PrioritySet pset = caughtUpSet();
        PriorityQueue<Move> queue = new PriorityQueue<>(MOVE_ORDER);
        for (int i = 0; i < clients.length; i++) {
            Set<TaskId> warm = warmups.getOrDefault(i, new TreeSet<>());
            for (TaskId task : clients[i].standby) {
                if (!warm.contains(task) && needsMove(task, i)) {
                    queue.add(new Move(caughtUpCount(task), task, i));
                }
            }
            pset.offer(i);
        }
        List<Map.Entry<Integer, TaskId>> kept = new ArrayList<>();
        while (!queue.isEmpty()) {
            Move m = queue.poll();
            TaskId task = m.task();
            int dest = m.destination();
            int src = pset.poll(task, c -> !c.holds(task));
            if (src < 0) {
                src = mostCaughtUp(task, dest, true);
            }
            if (src < 0) {
                continue; // Kafka: nothing more caught up can take it; not counted
            }
            clients[src].standby.add(task);
            int budget = remainingWarmups;
            remainingWarmups--;
            if (budget > 0) {
                kept.add(Map.entry(dest, task)); // the old copy stays on as a warm-up
            } else {
                clients[dest].standby.remove(task);
            }
            pset.offer(src);
            pset.offer(dest);
            standbyMoves++;
        }
        return kept;
    }
}
