package dev.rackwise.plugins.streams;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import dev.rackwise.core.TopicPartition;

/**
 * The last replica racks Kafka Streams gave for each partition of an application, kept across
 * rebalances in this JVM: a partition whose racks Kafka Streams could not learn this time (its
 * describe of an internal topic failed) is planned on the racks it had last time rather than
 * turning rack awareness off. Reads and writes never block (a concurrent map per application).
 *
 * <p>Where do racks come from? Kafka Streams 3.8.1 and 4.4.0 fill {@code TaskTopicPartition.rackIds()}
 * on its first call whatever {@code rack.aware.assignment.strategy} says (read from both jars:
 * {@code DefaultTaskTopicPartition.rackIds()} runs the leader's
 * {@code RackUtils.annotateTopicPartitionsWithRackInfo} once per rebalance: source topics from
 * the leader's metadata, internal topics by a describe), so no Admin of the plug-in's own is
 * needed.
 */
public final class PartitionRacks {
    private static final Map<String, Map<TopicPartition, List<String>>> BY_APPLICATION = new ConcurrentHashMap<>();

    private final Map<TopicPartition, List<String>> known;

    private PartitionRacks(Map<TopicPartition, List<String>> known) {
        this.known = known;
    }

    /** The racks remembered for {@code applicationId} in this JVM. */
    public static PartitionRacks of(String applicationId) {
        return new PartitionRacks(BY_APPLICATION.computeIfAbsent(String.valueOf(applicationId),
            k -> new ConcurrentHashMap<>()));
    }

    /** A store of its own (tests). */
    public static PartitionRacks fresh() {
        return new PartitionRacks(new ConcurrentHashMap<>());
    }

    public void remember(TopicPartition tp, List<String> racks) {
        known.put(tp, List.copyOf(racks));
    }

    /** The last racks seen for {@code tp}, or null. */
    public List<String> last(TopicPartition tp) {
        return known.get(tp);
    }
}
