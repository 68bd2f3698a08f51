package dev.rackwise.core;

import java.util.List;
import java.util.SortedMap;

/**
 * An optimal assignment: every member's partitions in (topic, partition) order (members with
 * none are listed too), its cost summed from the unrounded weights (docs/rack-optimal.md § 2),
 * the same cost in the solver's exact integer units, and how many partitions left their
 * previous owner.
 */
public record Solution(SortedMap<String, List<TopicPartition>> assignment, double cost, long objective, int moved) {
}
