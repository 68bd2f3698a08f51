package dev.rackwise.core;

import java.util.List;
import java.util.SortedMap;

/**
 * An optimal assignment: every member's partitions in (topic, partition) order (members with
 * none are listed too), its cost summed from the unrounded weights (docs/rack-optimal.md § 2),
 * the same cost in the solver's exact integer units, and how many partitions left their
 * previous owner. {@code perturbationBits} and {@code levelsUsed} say how the flow's levels
 * were combined (§ 4.2): with bits &gt; 0 and every level used the answer is the one stated
 * (both implementations return it); with 0 bits it is optimal but may differ from the
 * Python reference's.
 */
public record Solution(SortedMap<String, List<TopicPartition>> assignment, double cost, long objective, int moved,
                       int perturbationBits, int levelsUsed) {
    public Solution(SortedMap<String, List<TopicPartition>> assignment, double cost, long objective, int moved) {
        this(assignment, cost, objective, moved, -1, 0);
    }

    /** Whether the flow was solved with the perturbation and every level: the stated unique answer. */
    public boolean unique() {
        return perturbationBits > 0;
    }
}
