package dev.rackwise.plugins.advice;

/**
 * What the plug-ins may know beyond Kafka's own inputs, read without waiting: the solver weight
 * and leader rack of each partition, and a group's costs. Every answer has a default that
 * keeps assignment rack-optimal by partition count: weight 1, leader unknown, KIP-925's costs.
 *
 * <p>Implementations answer from an immutable snapshot built on a background thread (the
 * agent's advice topic, the broker's metadata); {@link #NONE} is the view without any.
 */
public interface AdviceView {
    /** The view of a plug-in that holds no advice. */
    AdviceView NONE = new AdviceView() {
    };

    /**
     * The partition's solver weight: its measured bytes/s over the mean of every fresh
     * measured partition, at least 0.001 (as the agent's own weights); 1 when not measured.
     */
    default double weight(String topic, int partition) {
        return 1.0;
    }

    /** The partition's measured bytes/s, or null when not measured (or the advice is stale). */
    default Double bytesPerSecond(String topic, int partition) {
        return null;
    }

    /** The rack of the partition's leader, or null when not known. */
    default String leaderRack(String topic, int partition) {
        return null;
    }

    /** The group's costs from a {@code planner.rules} entry, or the defaults. */
    default GroupCosts costs(String groupId) {
        return GroupCosts.DEFAULT;
    }

    /** The winning {@code planner.rules} advice for the group, if any (fresh). */
    default java.util.Optional<GroupAdvice> rule(String groupId) {
        return java.util.Optional.empty();
    }

    /** True when some weight is measured (the plan then carries bytes figures). */
    default boolean measured() {
        return false;
    }
}
