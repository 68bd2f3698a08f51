package dev.rackwise.plugins.broker;

import java.util.Map;
import java.util.Set;

import org.apache.kafka.common.Uuid;

/** Topic names for the topic ids a GroupSpec uses (it carries ids only). */
public interface TopicNames {
    /** The names of those {@code ids} that can be resolved within {@code timeoutMs}; others are absent. */
    Map<Uuid, String> resolve(Set<Uuid> ids, long timeoutMs);
}
