package dev.rackwise.plugins.broker;

import java.util.Map;
import java.util.Set;

import org.apache.kafka.common.Uuid;

/** Topic names for the topic ids a GroupSpec uses (it carries ids only), answered without waiting. */
public interface TopicNames {
    /** The names already known among {@code ids}; the others are looked up in the background. */
    Map<Uuid, String> known(Set<Uuid> ids);
}
