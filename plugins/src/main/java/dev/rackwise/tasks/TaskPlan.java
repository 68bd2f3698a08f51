package dev.rackwise.tasks;

import java.util.Collections;
import java.util.Map;
import java.util.OptionalLong;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The answer to a {@link TaskProblem}: per process id its tasks, whether Kafka Streams should
 * schedule a probing follow-up rebalance, and the exact cost of each optimised step
 * (docs/streams-assignor.md § 5): empty when the step did not run (rack awareness off, or the
 * step had nothing to place).
 *
 * @param clients              per process id (sorted), what that client is given
 * @param followupNeeded       true when a task is waiting for a warm-up to catch up (KIP-441's
 *                             probing rebalance, after {@code probing.rebalance.interval.ms})
 * @param rackAware            whether rack-aware optimisation ran
 * @param rackAwareReason      why it did or did not ("enabled", "strategy none", "a client has no rack" ...)
 * @param activeStepCost       the stateful active step's cost: traffic_cost · Σ weight of
 *                             source partitions read across racks + non_overlap_cost · moves
 * @param standbyStepCost      the standby step's cost: traffic_cost · Σ weight of changelog
 *                             partitions read across racks by the standbys + non_overlap_cost
 *                             per standby on a client that did not hold it before the step
 * @param statelessStepCost    the stateless active step's cost (costs 1 and 0)
 */
public record TaskPlan(SortedMap<String, ClientAssignment> clients, boolean followupNeeded,
                       boolean rackAware, String rackAwareReason, OptionalLong activeStepCost,
                       OptionalLong standbyStepCost, OptionalLong statelessStepCost) {
    public TaskPlan {
        clients = Collections.unmodifiableSortedMap(new TreeMap<>(clients));
    }

    /** The assignment of one process id, or null when it is not a client of the problem. */
    public ClientAssignment client(String processId) {
        return clients.get(processId);
    }

    /** Per process id, its number of active tasks. */
    public SortedMap<String, Integer> activeCounts() {
        SortedMap<String, Integer> out = new TreeMap<>();
        for (Map.Entry<String, ClientAssignment> e : clients.entrySet()) {
            out.put(e.getKey(), e.getValue().activeCount());
        }
        return Collections.unmodifiableSortedMap(out);
    }

    /** Per process id, its number of standby tasks (warm-ups not counted). */
    public SortedMap<String, Integer> standbyCounts() {
        SortedMap<String, Integer> out = new TreeMap<>();
        for (Map.Entry<String, ClientAssignment> e : clients.entrySet()) {
            out.put(e.getKey(), e.getValue().standbyCount());
        }
        return Collections.unmodifiableSortedMap(out);
    }
}
