package dev.rackwise.tasks;

import java.util.List;
import java.util.Objects;

/**
 * Kafka Streams' assignment configs, by their Kafka names, with Kafka's defaults
 * ({@link #defaults()}) and validators (checked by {@link TaskProblem.Builder#build()}).
 *
 * @param acceptableRecoveryLag       {@code acceptable.recovery.lag} (10000), {@code >= 0}
 * @param maxWarmupReplicas           {@code max.warmup.replicas} (2), {@code >= 1}
 * @param numStandbyReplicas          {@code num.standby.replicas} (0), {@code >= 0}
 * @param probingRebalanceIntervalMs  {@code probing.rebalance.interval.ms} (600000),
 *                                    {@code >= 60000}
 * @param rackAwareStrategy           {@code rack.aware.assignment.strategy} (none)
 * @param trafficCost                 {@code rack.aware.assignment.traffic_cost}, or null for
 *                                    Kafka's default (10 for stateful tasks)
 * @param nonOverlapCost              {@code rack.aware.assignment.non_overlap_cost}, or null
 *                                    for Kafka's default (1 for stateful tasks)
 * @param rackAwareTags               {@code rack.aware.assignment.tags} (KIP-708), at most 5
 */
public record TaskConfig(long acceptableRecoveryLag, int maxWarmupReplicas, int numStandbyReplicas,
                         long probingRebalanceIntervalMs, RackStrategy rackAwareStrategy,
                         Integer trafficCost, Integer nonOverlapCost, List<String> rackAwareTags) {
    /** Kafka's default traffic cost of the high-availability assignor. */
    public static final int DEFAULT_TRAFFIC_COST = 10;
    /** Kafka's default non-overlap cost of the high-availability assignor. */
    public static final int DEFAULT_NON_OVERLAP_COST = 1;
    /** Stateless tasks always use traffic cost 1 and non-overlap cost 0 (Kafka's constants). */
    public static final int STATELESS_TRAFFIC_COST = 1;
    public static final int STATELESS_NON_OVERLAP_COST = 0;

    public TaskConfig {
        Objects.requireNonNull(rackAwareStrategy, "rackAwareStrategy");
        rackAwareTags = List.copyOf(rackAwareTags == null ? List.of() : rackAwareTags);
    }

    /** Kafka Streams' defaults. */
    public static TaskConfig defaults() {
        return new TaskConfig(10_000L, 2, 0, 600_000L, RackStrategy.NONE, null, null, List.of());
    }

    /** The traffic cost the stateful steps use: the configured one or the default. */
    public int effectiveTrafficCost() {
        return trafficCost == null ? DEFAULT_TRAFFIC_COST : trafficCost;
    }

    /** The non-overlap cost the stateful steps use: the configured one or the default. */
    public int effectiveNonOverlapCost() {
        return nonOverlapCost == null ? DEFAULT_NON_OVERLAP_COST : nonOverlapCost;
    }

    public TaskConfig withAcceptableRecoveryLag(long v) {
        return new TaskConfig(v, maxWarmupReplicas, numStandbyReplicas, probingRebalanceIntervalMs,
                rackAwareStrategy, trafficCost, nonOverlapCost, rackAwareTags);
    }

    public TaskConfig withMaxWarmupReplicas(int v) {
        return new TaskConfig(acceptableRecoveryLag, v, numStandbyReplicas, probingRebalanceIntervalMs,
                rackAwareStrategy, trafficCost, nonOverlapCost, rackAwareTags);
    }

    public TaskConfig withNumStandbyReplicas(int v) {
        return new TaskConfig(acceptableRecoveryLag, maxWarmupReplicas, v, probingRebalanceIntervalMs,
                rackAwareStrategy, trafficCost, nonOverlapCost, rackAwareTags);
    }

    public TaskConfig withProbingRebalanceIntervalMs(long v) {
        return new TaskConfig(acceptableRecoveryLag, maxWarmupReplicas, numStandbyReplicas, v,
                rackAwareStrategy, trafficCost, nonOverlapCost, rackAwareTags);
    }

    public TaskConfig withRackAwareStrategy(RackStrategy v) {
        return new TaskConfig(acceptableRecoveryLag, maxWarmupReplicas, numStandbyReplicas,
                probingRebalanceIntervalMs, v, trafficCost, nonOverlapCost, rackAwareTags);
    }

    public TaskConfig withTrafficCost(Integer v) {
        return new TaskConfig(acceptableRecoveryLag, maxWarmupReplicas, numStandbyReplicas,
                probingRebalanceIntervalMs, rackAwareStrategy, v, nonOverlapCost, rackAwareTags);
    }

    public TaskConfig withNonOverlapCost(Integer v) {
        return new TaskConfig(acceptableRecoveryLag, maxWarmupReplicas, numStandbyReplicas,
                probingRebalanceIntervalMs, rackAwareStrategy, trafficCost, v, rackAwareTags);
    }

    public TaskConfig withRackAwareTags(List<String> v) {
        return new TaskConfig(acceptableRecoveryLag, maxWarmupReplicas, numStandbyReplicas,
                probingRebalanceIntervalMs, rackAwareStrategy, trafficCost, nonOverlapCost, v);
    }
}
