package dev.rackwise.tasks;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Standby placement before rack optimisation: Kafka's {@code DefaultStandbyTaskAssignor}
 * and the KIP-708 {@code ClientTagAwareStandbyTaskAssignor}, each copy on the least-loaded
 * client that does not hold the task yet (docs/streams-assignor.md § 4.2).
 *
 * <p>Example: clients a, b, c in zones z1, z1, z2, task 0_0 active on a, one standby: the
 * default assignor picks the less loaded of b and c; the tag-aware one must pick c.
 */
final class StandbyPlacement {
    private StandbyPlacement() {
    }

    private static PrioritySet leastLoaded(ClientState[] clients) {
        return new PrioritySet(clients, ClientState::assignedLoad, (c, t) -> !c.holds(t));
    }

    private static List<Integer> order(ClientState[] clients) {
        List<Integer> out = new ArrayList<>(clients.length);
        for (int i = 0; i < clients.length; i++) {
            out.add(i);
        }
        return out;
    }

    private static int fill(PrioritySet pset, ClientState[] clients, TaskId task, int remaining) {
        while (remaining > 0) {
            int c = pset.poll(task);
            if (c < 0) {
                break; // Kafka logs a WARN and leaves the copy out: not enough clients
            }
            clients[c].standby.add(task);
            remaining--;
            pset.offer(c);
        }
        return remaining;
    }

    static void assignDefault(ClientState[] clients, List<TaskId> stateful, int replicas) {
        PrioritySet pset = leastLoaded(clients);
        pset.offerAll(order(clients));
        for (TaskId task : stateful) {
            fill(pset, clients, task, replicas);
        }
    }

    static void assignTagAware(ClientState[] clients, List<TaskId> stateful, TaskConfig config) {
        int replicas = config.numStandbyReplicas();
        Set<String> tagKeys = new HashSet<>(config.rackAwareTags());
        List<Integer> order = order(clients);
        Map<String, Set<String>> valuesOf = new HashMap<>();
        Map<List<String>, Set<Integer>> clientsOf = new HashMap<>();
        for (int i = 0; i < clients.length; i++) {
            for (Map.Entry<String, String> e : clients[i].tags.entrySet()) {
                valuesOf.computeIfAbsent(e.getKey(), k -> new HashSet<>()).add(e.getValue());
                clientsOf.computeIfAbsent(List.of(e.getKey(), e.getValue()), k -> new HashSet<>())
                        .add(i);
            }
        }
        PrioritySet pset = leastLoaded(clients);
        Map<TaskId, Integer> owner = new HashMap<>();
        for (int i = 0; i < clients.length; i++) {
            for (TaskId t : clients[i].active) {
                owner.put(t, i);
            }
        }
        Map<TaskId, Integer> pending = new HashMap<>();
        for (TaskId task : stateful) {
            Integer activeClient = owner.get(task);
            if (activeClient == null) {
                pending.put(task, replicas);
                continue;
            }
            pset.offerAll(order);
            int usedCount = 1;
            int remaining = replicas;
            Map<List<String>, Set<Integer>> used = new HashMap<>();
            int last = activeClient;
            while (true) {
                for (Map.Entry<String, String> e : clients[last].tags.entrySet()) {
                    String key = e.getKey();
                    if (!tagKeys.contains(key)) {
                        continue; // Kafka ignores tags not listed in rack.aware.assignment.tags
                    }
                    if (valuesOf.get(key).size() <= usedCount) {
                        for (String value : valuesOf.get(key)) {
                            used.remove(List.of(key, value));
                        }
                    } else {
                        List<String> entry = List.of(key, e.getValue());
                        used.put(entry, clientsOf.get(entry));
                    }
                }
                Set<Integer> excluded = new HashSet<>();
                used.values().forEach(excluded::addAll);
                int chosen = pset.poll(task, c -> !excluded.contains(c.rank));
                if (chosen < 0) {
                    break;
                }
                usedCount++;
                remaining--;
                clients[chosen].standby.add(task);
                last = chosen;
                if (remaining <= 0) {
                    break;
                }
            }
            if (remaining > 0) {
                pending.put(task, remaining);
            }
        }
        if (!pending.isEmpty()) {
            // Kafka walks its tasksToRemainingStandbys HashMap (every stateful task put in
            // sorted order, finished ones removed): a real HashMap filled the same way
            // iterates in that order.
            pset.offerAll(order);
            for (TaskId task : javaHashOrder(stateful, pending.keySet())) {
                fill(pset, clients, task, pending.get(task));
            }
        }
    }

    /** Kafka's {@code TaskId}: hashCode is {@code Objects.hash(subtopology, partition, null)}. */
    private record KafkaTaskKey(int subtopology, int partition) {
        @Override
        public int hashCode() {
            return Objects.hash(subtopology, partition, null);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof KafkaTaskKey k && k.subtopology == subtopology
                    && k.partition == partition;
        }
    }

    /**
     * The iteration order of a {@code java.util.HashMap} after putting {@code inserted} (in
     * order) and removing every key not in {@code kept}: the real HashMap, keyed by Kafka's
     * TaskId hash.
     */
    static List<TaskId> javaHashOrder(List<TaskId> inserted, Set<TaskId> kept) {
        HashMap<KafkaTaskKey, TaskId> map = new HashMap<>();
        for (TaskId t : inserted) {
            map.put(new KafkaTaskKey(t.subtopology(), t.partition()), t);
        }
        map.values().removeIf(t -> !kept.contains(t));
        return new ArrayList<>(map.values());
    }

    /** The 2-argument {@code isAllowedTaskMovement}: every tag of the source equals the destination's. */
    static boolean tagsAllowBalanceMove(ClientState source, ClientState destination) {
        for (Map.Entry<String, String> e : source.tags.entrySet()) {
            if (!e.getValue().equals(destination.tags.get(e.getKey()))) {
                return false;
            }
        }
        return true;
    }

    /**
     * A client's full tag set (its class), flattened to key, value, key, value ... in key
     * order: tag-aware standbys only move within one class. Empty when tags are off.
     */
    static List<String> tagClass(ClientState c, boolean tagAware) {
        List<String> out = new ArrayList<>();
        if (tagAware) {
            for (Map.Entry<String, String> e : c.tags.entrySet()) {
                out.add(e.getKey());
                out.add(e.getValue());
            }
        }
        return List.copyOf(out);
    }
}
