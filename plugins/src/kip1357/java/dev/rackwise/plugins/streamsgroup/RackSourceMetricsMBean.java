package dev.rackwise.plugins.streamsgroup;

/** JMX view of {@link RackSourceMetrics} (a standard MBean: the attribute names are the getters'). */
public interface RackSourceMetricsMBean {
    long getFromCoordinator();

    long getFromLearnt();

    long getFromNone();

    long getRackAware();

    long getRackBlind();

    String getLastSource();
}
