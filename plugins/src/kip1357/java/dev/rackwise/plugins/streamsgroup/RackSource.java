package dev.rackwise.plugins.streamsgroup;

/**
 * Where one assignment's replica racks came from (logged once per change and counted per
 * source in JMX): the coordinator's own metadata image, what the plug-in learnt in the
 * background from an Admin, or nowhere (the assignment is then rack-blind, and says so).
 */
public enum RackSource {
    /** {@code TopologyMetadata.metadataImage()}: the coordinator's own view, current to the epoch. */
    COORDINATOR("coordinator"),
    /** describeStreamsGroups + describeTopics, learnt on the plug-in's background thread. */
    LEARNT("learnt"),
    /** Neither is available yet: Kafka's round robin and balance without racks. */
    NONE("none");

    private final String label;

    RackSource(String label) {
        this.label = label;
    }

    /** The name used in log lines, metrics and plans. */
    public String label() {
        return label;
    }
}
