package dev.rackwise.tasks;

import dev.rackwise.core.TopicPartition;
import java.util.List;
import java.util.Map;

/** The checks {@link TaskProblem.Builder#build()} runs; each adds one message per fault. */
final class Validation {
    private Validation() {
    }

    static void check(Map<TaskId, TaskSpec> tasks, Map<String, ClientSpec> clients,
                      Map<TopicPartition, Long> weights, TaskConfig config, List<String> bad) {
        if (clients.isEmpty()) {
            bad.add("a Streams application needs at least one client");
        }
        for (TaskSpec t : tasks.values()) {
            if (t.sourcePartitions().isEmpty()) {
                bad.add("task " + t.id() + " reads no source partition");
            }
            if (t.stateful() && t.changelogPartitions().isEmpty()) {
                bad.add("task " + t.id() + " is stateful but has no changelog partition"
                        + " (Kafka treats only logged stores as stateful)");
            }
        }
        for (ClientSpec c : clients.values()) {
            String who = "client " + c.processId();
            if (c.processId().isEmpty()) {
                bad.add("a client has an empty process id");
            }
            if (c.threads() < 1) {
                bad.add(who + " has " + c.threads() + " threads; need >= 1");
            }
            if (c.tags().containsValue(null)) {
                bad.add(who + " has a client tag without value");
            }
            for (Map.Entry<TaskId, Long> e : c.lags().entrySet()) {
                if (e.getValue() == null) {
                    bad.add(who + " reports no lag value for task " + e.getKey());
                    continue;
                }
                long lag = e.getValue();
                if (lag < 0 && lag != ClientSpec.LAG_RUNNING && lag != ClientSpec.LAG_UNKNOWN
                        && lag != ClientSpec.LAG_NOT_REPORTED) {
                    bad.add(who + " reports lag " + lag + " for task " + e.getKey()
                            + ": only -2 (running), -3 (unknown) and -4 (not reported) are sentinels");
                }
            }
            for (String tag : config.rackAwareTags()) {
                if (!c.tags().containsKey(tag)) {
                    bad.add(who + " lacks tag " + tag + " listed in rack.aware.assignment.tags");
                }
            }
        }
        if (config.numStandbyReplicas() < 0) {
            bad.add("num.standby.replicas must be >= 0");
        }
        if (config.acceptableRecoveryLag() < 0) {
            bad.add("acceptable.recovery.lag must be >= 0");
        }
        if (config.maxWarmupReplicas() < 1) {
            bad.add("max.warmup.replicas must be >= 1");
        }
        if (config.probingRebalanceIntervalMs() < 60_000L) {
            bad.add("probing.rebalance.interval.ms must be >= 60000");
        }
        if (config.trafficCost() != null && config.trafficCost() < 0
                || config.nonOverlapCost() != null && config.nonOverlapCost() < 0) {
            bad.add("rack-aware traffic_cost and non_overlap_cost must be >= 0");
        }
        if (config.rackAwareTags().size() > 5) {
            bad.add("at most 5 rack.aware.assignment.tags");
        }
    }
}
