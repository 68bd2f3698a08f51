package dev.rackwise.plugins.broker;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.coordinator.group.api.assignor.GroupSpec;

/**
 * Whether this broker's group coordinator gives assignors what rackwise decides with. Kafka 4.0's
 * coordinator answers {@code SubscribedTopicDescriber.racksForPartition} with an empty set and
 * does not re-plan a group when replica racks change; both arrive in 4.1 (KIP-1101), together
 * with {@code GroupSpec.isPartitionAssignable}, which is how the API tells them apart (the
 * version string of a patched or vendor build may not). Checked once per JVM.
 *
 * <p>Example: on a 4.0.2 broker {@link #requireRackAwareApi()} throws a ConfigException naming
 * 4.0.2, so the broker (and {@code kafka-storage format}) stops at start-up with that message.
 */
public final class BrokerApi {
    private static final boolean RACK_AWARE = probe();
    /** KIP-1357's public streams task assignor API (group-coordinator-api 4.4.0+). */
    static final String STREAMS_ASSIGNOR_API = "org.apache.kafka.coordinator.group.api.streams.assignor.TaskAssignor";
    static final String STREAMS_GROUP_ASSIGNOR = "dev.rackwise.plugins.RackwiseStreamsGroupAssignor";

    private BrokerApi() {
    }

    private static boolean probe() {
        try {
            GroupSpec.class.getMethod("isPartitionAssignable", Uuid.class, int.class);
            return true;
        } catch (NoSuchMethodException | SecurityException e) {
            return false;
        }
    }

    /** True from Kafka 4.1: replica racks in racksForPartition and KIP-1101's re-plan. */
    public static boolean rackAware() {
        return RACK_AWARE;
    }

    /** Throws a ConfigException naming the broker's Kafka version unless {@link #rackAware()}. */
    public static void requireRackAwareApi() {
        check(RACK_AWARE, kafkaVersion());
    }

    /**
     * The kafka-clients release on this class path, read from the resource AppInfoParser reads
     * (AppInfoParser itself moved to an internals package in 4.4, so the jar does not link it).
     */
    public static String kafkaVersion() {
        try (InputStream in = Uuid.class.getResourceAsStream("/kafka/kafka-version.properties")) {
            if (in == null) {
                return "unknown";
            }
            Properties props = new Properties();
            props.load(in);
            return props.getProperty("version", "unknown").trim();
        } catch (IOException | IllegalArgumentException e) {
            return "unknown";
        }
    }

    /** True from Kafka 4.4.0: brokers load custom streams-group task assignors (KIP-1357). */
    public static boolean streamsAssignors() {
        try {
            Class.forName(STREAMS_ASSIGNOR_API, false, GroupSpec.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    /**
     * Refuses a broker config that lists the streams-group assignor in {@code group.streams.assignors}
     * on a release without KIP-1357: Kafka 4.1-4.3 do not know that setting, would ignore it with
     * a one-line "unknown config" warning and serve every streams group with the built-in, rack-blind
     * sticky: silent half-service. Called from the consumer-group plug-in's configure(), the one
     * rackwise class such a broker does load.
     */
    public static void requireStreamsAssignorApiIfListed(java.util.Map<String, ?> configs) {
        checkStreamsListed(configs.get("group.streams.assignors"), streamsAssignors(), kafkaVersion());
    }

    static void checkStreamsListed(Object listed, boolean supported, String version) {
        if (supported || listed == null || !String.valueOf(listed).contains(STREAMS_GROUP_ASSIGNOR)) {
            return;
        }
        throw new ConfigException("rackwise: group.streams.assignors lists " + STREAMS_GROUP_ASSIGNOR + ", but this "
            + "broker runs Kafka " + version + ", which loads no custom streams-group assignors (KIP-1357 arrives in "
            + "Kafka 4.4.0): it would ignore the setting and serve every streams group with its built-in sticky "
            + "assignor, which reads no racks. Upgrade the brokers to 4.4 or newer, or take the setting out.");
    }

    static void check(boolean rackAware, String version) {
        if (!rackAware) {
            throw new ConfigException("rackwise: this broker runs Kafka " + version + ", whose group coordinator "
                + "gives assignors no replica racks (racksForPartition is empty before 4.1) and does not re-plan "
                + "groups when replica racks change (KIP-1101, 4.1). dev.rackwise.plugins.RackwiseGroupAssignor "
                + "needs Kafka 4.1 or newer on the brokers: upgrade them, or take it out of group.consumer.assignors "
                + "(Java consumers can still use dev.rackwise.plugins.RackwiseAssignor on the classic protocol).");
        }
    }
}
