package dev.rackwise.tasks;

import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.function.BiPredicate;
import java.util.function.Predicate;
import java.util.function.ToDoubleFunction;

/**
 * Kafka's {@code ConstrainedPrioritySet}: poll the least-weighted client (weight read when it
 * is offered, then Kafka's client order) that meets a constraint. Re-offering a client
 * replaces its entry; entries are ordered by (weight, rank, offer counter), a total order.
 */
final class PrioritySet {
    private record Entry(double weight, int rank, long version, int client) {
    }

    private final ClientState[] clients;
    private final ToDoubleFunction<ClientState> weight;
    private final BiPredicate<ClientState, TaskId> constraint;
    private final PriorityQueue<Entry> heap = new PriorityQueue<>((a, b) -> {
        int c = Double.compare(a.weight, b.weight);
        if (c == 0) {
            c = Integer.compare(a.rank, b.rank);
        }
        return c != 0 ? c : Long.compare(a.version, b.version);
    });
    private final long[] version;
    private long counter;

    PrioritySet(ClientState[] clients, ToDoubleFunction<ClientState> weight,
                BiPredicate<ClientState, TaskId> constraint) {
        this.clients = clients;
        this.weight = weight;
        this.constraint = constraint;
        this.version = new long[clients.length];
    }

    void offer(int client) {
        counter++;
        version[client] = counter;
        ClientState s = clients[client];
        heap.add(new Entry(weight.applyAsDouble(s), s.rank, counter, client));
    }

    void offerAll(Iterable<Integer> order) {
        for (int c : order) {
            offer(c);
        }
    }

    /** The chosen client's index, or -1; every client rejected on the way is offered again. */
    int poll(TaskId task, Predicate<ClientState> extra) {
        List<Integer> rejected = new ArrayList<>();
        int found = -1;
        while (!heap.isEmpty()) {
            Entry e = heap.poll();
            if (version[e.client] != e.version) {
                continue;
            }
            version[e.client] = 0;
            ClientState s = clients[e.client];
            if (constraint.test(s, task) && (extra == null || extra.test(s))) {
                found = e.client;
                break;
            }
            rejected.add(e.client);
        }
        offerAll(rejected);
        return found;
    }

    int poll(TaskId task) {
        return poll(task, null);
    }
}
