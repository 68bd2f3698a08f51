package dev.rackwise.plugins.streamsgroup;

import java.lang.management.ManagementFactory;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

import javax.management.JMException;
import javax.management.ObjectName;

import dev.rackwise.plugins.metrics.PluginMetrics;
import org.slf4j.LoggerFactory;

/**
 * Where the streams assignor's racks came from, counted per assignment, and whether the core
 * could be rack-aware with them: {@code kafka.rackwise:type=RackwiseStreamsGroupAssignorRacks,
 * name=broker-<id>} (FromCoordinator, FromLearnt, FromNone, RackAware, RackBlind, LastSource).
 * Lock-free: recorded inside assign().
 */
public final class RackSourceMetrics implements RackSourceMetricsMBean {
    private static final Map<String, RackSourceMetrics> SHARED = new ConcurrentHashMap<>();
    private final Map<RackSource, LongAdder> bySource = new EnumMap<>(RackSource.class);
    private final LongAdder aware = new LongAdder();
    private final LongAdder blind = new LongAdder();
    private volatile RackSource last;

    public RackSourceMetrics() {
        for (RackSource s : RackSource.values()) {
            bySource.put(s, new LongAdder());
        }
    }

    /** The one registered instance for this broker name in the JVM. */
    public static RackSourceMetrics shared(String name) {
        return SHARED.computeIfAbsent(name, n -> {
            RackSourceMetrics m = new RackSourceMetrics();
            try {
                ManagementFactory.getPlatformMBeanServer().registerMBean(m, new ObjectName(PluginMetrics.DOMAIN
                    + ":type=RackwiseStreamsGroupAssignorRacks,name=" + n.replaceAll("[^A-Za-z0-9._-]", "_")));
            } catch (JMException | RuntimeException e) {
                LoggerFactory.getLogger(RackSourceMetrics.class).warn("rackwise metrics: cannot register with JMX: {}",
                    e.toString());
            }
            return m;
        });
    }

    /** One assignment: its racks' source and whether the core ran rack-aware. */
    public void record(RackSource source, boolean rackAware) {
        bySource.get(source).increment();
        (rackAware ? aware : blind).increment();
        last = source;
    }

    public long count(RackSource source) {
        return bySource.get(source).sum();
    }

    @Override
    public long getFromCoordinator() {
        return count(RackSource.COORDINATOR);
    }

    @Override
    public long getFromLearnt() {
        return count(RackSource.LEARNT);
    }

    @Override
    public long getFromNone() {
        return count(RackSource.NONE);
    }

    @Override
    public long getRackAware() {
        return aware.sum();
    }

    @Override
    public long getRackBlind() {
        return blind.sum();
    }

    @Override
    public String getLastSource() {
        RackSource s = last;
        return s == null ? "" : s.label();
    }
}
