package dev.rackwise.plugins.broker;

import java.util.Map;
import java.util.Set;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.coordinator.group.api.assignor.MemberAssignment;

/** One member's target partitions by topic id, as the group coordinator takes them. */
public record TargetAssignment(Map<Uuid, Set<Integer>> partitions) implements MemberAssignment {
}
