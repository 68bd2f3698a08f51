package dev.rackwise.plugins.plan;

import java.util.List;
import java.util.Map;

import org.apache.kafka.common.TopicPartition;

/**
 * The parts of an AssignmentPlan (DESIGN §3) a plug-in acts on: each member's partitions in plan
 * order, the withheld partitions, the generation and the follow-up delay (null when none).
 */
public record Plan(String groupId, String kind, long generation, Map<String, List<TopicPartition>> members,
                   List<TopicPartition> withheld, Long followupMs) {
    public Plan {
        members = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(members));
        withheld = List.copyOf(withheld);
    }

    /** Number of partitions the plan gives out. */
    public int assignedCount() {
        return members.values().stream().mapToInt(List::size).sum();
    }
}
