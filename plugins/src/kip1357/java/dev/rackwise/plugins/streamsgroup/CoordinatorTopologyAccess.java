package dev.rackwise.plugins.streamsgroup;

import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;

import org.apache.kafka.coordinator.common.runtime.CoordinatorMetadataImage;
import org.apache.kafka.coordinator.group.api.streams.assignor.TopologyDescriber;
import org.apache.kafka.coordinator.group.streams.TopologyMetadata;
import org.apache.kafka.coordinator.group.streams.topics.ConfiguredSubtopology;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Topics and replica racks from the coordinator's own describer, where the running Kafka hands
 * them over: in 4.4.0 the {@code TopologyDescriber} passed to {@code assign()} is the internal
 * record {@code org.apache.kafka.coordinator.group.streams.TopologyMetadata}, whose
 * {@code metadataImage()} has every partition's replica racks and whose {@code subtopologyMap()}
 * has each subtopology's source, repartition and changelog topics.
 *
 * <p>Not public API, so it is guarded twice: {@code instanceof} (a copy or another describer,
 * e.g. under KIP-1263 offload, is simply not used), and any {@link LinkageError} (a release that
 * renamed or reshaped those classes) switches this path off for the JVM, logged once. The
 * caller then uses what it learnt in the background.
 */
public final class CoordinatorTopologyAccess {
    private static final Logger log = LoggerFactory.getLogger(CoordinatorTopologyAccess.class);
    private static volatile boolean linkable = probe();

    private CoordinatorTopologyAccess() {
    }

    private static boolean probe() {
        try {
            TopologyMetadata.class.getMethod("metadataImage");
            TopologyMetadata.class.getMethod("subtopologyMap");
            ConfiguredSubtopology.class.getMethod("stateChangelogTopics");
            CoordinatorMetadataImage.TopicMetadata.class.getMethod("partitionRacks", int.class);
            return true;
        } catch (NoSuchMethodException | LinkageError | SecurityException e) {
            return false;
        }
    }

    /** Whether this release's coordinator classes have the 4.4.0 shape this path reads. */
    public static boolean linkable() {
        return linkable;
    }

    /** The coordinator's view, or empty when this describer is not the one this release hands over. */
    public static Optional<TopologyView> read(TopologyDescriber describer) {
        if (!linkable) {
            return Optional.empty();
        }
        try {
            if (describer instanceof TopologyMetadata tm) {
                return Optional.of(of(tm));
            }
            return Optional.empty();
        } catch (LinkageError e) {
            linkable = false;
            log.warn("rackwise streams assignor: this Kafka's TopologyMetadata is not the 4.4.0 shape ({}); "
                + "racks come from the plug-in's background lookups from now on", e.toString());
            return Optional.empty();
        }
    }

    private static TopologyView of(TopologyMetadata tm) {
        SortedMap<String, TopologyView.Topics> subs = new TreeMap<>();
        for (Map.Entry<String, ConfiguredSubtopology> e : tm.subtopologyMap().entrySet()) {
            ConfiguredSubtopology s = e.getValue();
            TreeSet<String> sources = new TreeSet<>(s.sourceTopics());
            sources.addAll(s.repartitionSourceTopics().keySet());
            subs.put(e.getKey(), new TopologyView.Topics(sources, s.stateChangelogTopics().keySet()));
        }
        CoordinatorMetadataImage image = tm.metadataImage();
        return new TopologyView(RackSource.COORDINATOR, subs, (topic, partition) ->
            image.topicMetadata(topic)
                .filter(t -> partition < t.partitionCount())
                .map(t -> t.partitionRacks(partition))
                .orElse(null));
    }
}
