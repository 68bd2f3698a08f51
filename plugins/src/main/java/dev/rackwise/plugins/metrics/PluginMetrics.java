package dev.rackwise.plugins.metrics;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

import javax.management.Attribute;
import javax.management.AttributeList;
import javax.management.AttributeNotFoundException;
import javax.management.DynamicMBean;
import javax.management.InstanceAlreadyExistsException;
import javax.management.JMException;
import javax.management.MBeanAttributeInfo;
import javax.management.MBeanInfo;
import javax.management.MBeanServer;
import javax.management.ObjectName;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One plug-in instance's figures, exposed over JMX as {@code kafka.rackwise:type=<type>,name=<name>}
 * for Prometheus' JMX exporter (or any JMX client): assignments computed, {@code assign()} time
 * (average and max, ms), fallbacks by reason, advice age, plans published / dropped / failed,
 * and (broker assignors) topics whose replica racks were kept or read, and members whose current
 * targets were kept or read.
 *
 * <p>Why JMX and not KIP-877 {@code Monitorable}: in Kafka 4.3.1 only serializers,
 * deserializers, interceptors, partitioners and a few broker plug-ins are wrapped so that they
 * receive {@code PluginMetrics}; the consumer's {@code ConsumerPartitionAssignor}, the broker's
 * {@code ConsumerGroupPartitionAssignor} and Streams' {@code TaskAssignor} are not, so a
 * {@code Monitorable} assignor would never be called. JMX works at all three points, and
 * reaches the same exporters Kafka's own metrics go through.
 *
 * <p>Recording is lock-free (atomics and adders) because it happens inside {@code assign()}.
 * Fallback reasons are fixed at construction; another reason is counted under {@code other}.
 * Example: after {@code recordAssign(2 ms)} and {@code recordAssign(4 ms)}, AssignTimeAvgMs is
 * 3.0 and AssignTimeMaxMs 4.0.
 */
public final class PluginMetrics implements DynamicMBean, AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(PluginMetrics.class);
    public static final String DOMAIN = "kafka.rackwise";
    public static final String OTHER = "other";

    private final LongAdder assignments = new LongAdder();
    private final LongAdder assignNanos = new LongAdder();
    private final AtomicLong maxAssignNanos = new AtomicLong();
    private final Map<String, LongAdder> fallbacks;
    private volatile LongSupplier adviceAgeMs = () -> -1;
    private volatile LongSupplier published = () -> 0;
    private volatile LongSupplier dropped = () -> 0;
    private volatile LongSupplier failed = () -> 0;
    private volatile LongSupplier racksKept = () -> 0;
    private volatile LongSupplier racksRead = () -> 0;
    private volatile LongSupplier targetsKept = () -> 0;
    private volatile LongSupplier targetsRead = () -> 0;
    private volatile ObjectName registered;
    private static final java.util.concurrent.ConcurrentMap<String, PluginMetrics> SHARED =
        new java.util.concurrent.ConcurrentHashMap<>();

    /**
     * The one registered instance for {@code type} and {@code name} in this JVM, made and
     * registered on the first call. For plug-ins Kafka instantiates many times for one role
     * (a broker configures an assignor for every KafkaConfig it builds and never closes them):
     * they all count into one MBean instead of leaving one per instance.
     */
    public static PluginMetrics shared(String type, String name, List<String> fallbackReasons) {
        return SHARED.computeIfAbsent(type + "/" + name, k -> {
            PluginMetrics m = new PluginMetrics(fallbackReasons);
            m.register(type, name);
            return m;
        });
    }

    /** {@code fallbackReasons}: every reason the plug-in may fall back for (e.g. internal-error). */
    public PluginMetrics(List<String> fallbackReasons) {
        Map<String, LongAdder> map = new TreeMap<>();
        for (String r : fallbackReasons) {
            map.put(r, new LongAdder());
        }
        map.put(OTHER, new LongAdder());
        fallbacks = java.util.Collections.unmodifiableMap(map);
    }

    // ---- recording (inside assign(): lock-free) ---------------------------------------------

    /** One assignment computed, taking {@code nanos}. */
    public void recordAssign(long nanos) {
        assignments.increment();
        assignNanos.add(nanos);
        maxAssignNanos.accumulateAndGet(nanos, Math::max);
    }

    public void recordFallback(String reason) {
        LongAdder a = fallbacks.get(reason);
        (a != null ? a : fallbacks.get(OTHER)).increment();
    }

    /** Where the advice age comes from, e.g. {@code () -> now - reader.newestAdviceMs()}; -1: none held. */
    public void adviceAge(LongSupplier ageMs) {
        this.adviceAgeMs = ageMs;
    }

    /** Where the plan publisher's counters come from. */
    public void plans(LongSupplier published, LongSupplier dropped, LongSupplier failed) {
        this.published = published;
        this.dropped = dropped;
        this.failed = failed;
    }

    /**
     * Where the broker assignors' replica-rack counts come from: topics whose racks a call took
     * from those kept under the same metadata, and topics read from the describer partition by
     * partition.
     */
    public void racks(LongSupplier kept, LongSupplier read) {
        this.racksKept = kept;
        this.racksRead = read;
    }

    /**
     * Where the broker assignors' current-target counts come from: members whose target a call
     * took from an earlier call (the same stored assignment object) or read from Kafka's map.
     */
    public void targets(LongSupplier kept, LongSupplier read) {
        this.targetsKept = kept;
        this.targetsRead = read;
    }

    // ---- reading ----------------------------------------------------------------------------

    public long assignments() {
        return assignments.sum();
    }

    public double assignTimeAvgMs() {
        long n = assignments.sum();
        return n == 0 ? 0.0 : assignNanos.sum() / (double) n / 1e6;
    }

    public double assignTimeMaxMs() {
        return maxAssignNanos.get() / 1e6;
    }

    public long fallbacks(String reason) {
        LongAdder a = fallbacks.get(reason);
        return a == null ? 0 : a.sum();
    }

    /** Every figure by its JMX attribute name, in a stable order. */
    public Map<String, Object> values() {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("AssignmentsComputed", assignments());
        out.put("AssignTimeAvgMs", assignTimeAvgMs());
        out.put("AssignTimeMaxMs", assignTimeMaxMs());
        long total = 0;
        for (Map.Entry<String, LongAdder> e : fallbacks.entrySet()) {
            long n = e.getValue().sum();
            total += n;
            out.put("Fallbacks_" + e.getKey().replaceAll("[^A-Za-z0-9]", "_"), n);
        }
        out.put("FallbacksTotal", total);
        out.put("AdviceAgeMs", adviceAgeMs.getAsLong());
        out.put("PlansPublished", published.getAsLong());
        out.put("PlansDropped", dropped.getAsLong());
        out.put("PlansFailed", failed.getAsLong());
        out.put("RackTopicsKept", racksKept.getAsLong());
        out.put("RackTopicsRead", racksRead.getAsLong());
        out.put("TargetsKept", targetsKept.getAsLong());
        out.put("TargetsRead", targetsRead.getAsLong());
        return out;
    }

    // ---- JMX --------------------------------------------------------------------------------

    /**
     * Registers this instance once as {@code kafka.rackwise:type=<type>,name=<name>}; a name
     * already taken in this JVM (several consumers) gets {@code -2}, {@code -3} ... Returns the
     * name used, or null when JMX refused (logged; metrics are never worth failing a plug-in).
     */
    public synchronized ObjectName register(String type, String name) {
        if (registered != null) {
            return registered;
        }
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        String base = clean(name);
        for (int i = 1; i < 1000; i++) {
            try {
                ObjectName on = new ObjectName(DOMAIN + ":type=" + clean(type) + ",name=" + (i == 1 ? base : base + "-" + i));
                server.registerMBean(this, on);
                registered = on;
                return on;
            } catch (InstanceAlreadyExistsException e) {
                // taken by another instance in this JVM: try the next suffix
            } catch (JMException | RuntimeException e) {
                log.warn("rackwise metrics: cannot register with JMX: {}", e.toString());
                return null;
            }
        }
        return null;
    }

    /** Unregisters from JMX (if registered). Idempotent. */
    @Override
    public synchronized void close() {
        ObjectName on = registered;
        registered = null;
        if (on != null) {
            try {
                ManagementFactory.getPlatformMBeanServer().unregisterMBean(on);
            } catch (JMException e) {
                log.debug("rackwise metrics: unregister {} failed", on, e);
            }
        }
    }

    private static String clean(String s) {
        String c = s == null ? "" : s.replaceAll("[^A-Za-z0-9._-]", "_");
        return c.isEmpty() ? "unnamed" : c;
    }

    @Override
    public Object getAttribute(String attribute) throws AttributeNotFoundException {
        Object v = values().get(attribute);
        if (v == null) {
            throw new AttributeNotFoundException(attribute);
        }
        return v;
    }

    @Override
    public void setAttribute(Attribute attribute) throws AttributeNotFoundException {
        throw new AttributeNotFoundException(attribute.getName() + " is read-only");
    }

    @Override
    public AttributeList getAttributes(String[] attributes) {
        Map<String, Object> values = values();
        AttributeList list = new AttributeList();
        for (String a : attributes) {
            if (values.containsKey(a)) {
                list.add(new Attribute(a, values.get(a)));
            }
        }
        return list;
    }

    @Override
    public AttributeList setAttributes(AttributeList attributes) {
        return new AttributeList();
    }

    @Override
    public Object invoke(String actionName, Object[] params, String[] signature) {
        throw new UnsupportedOperationException("no operations");
    }

    @Override
    public MBeanInfo getMBeanInfo() {
        List<MBeanAttributeInfo> attrs = new ArrayList<>();
        for (Map.Entry<String, Object> e : values().entrySet()) {
            attrs.add(new MBeanAttributeInfo(e.getKey(), e.getValue().getClass().getName(), e.getKey(), true, false, false));
        }
        return new MBeanInfo(PluginMetrics.class.getName(), "rackwise plug-in figures",
            attrs.toArray(new MBeanAttributeInfo[0]), null, null, null);
    }
}
