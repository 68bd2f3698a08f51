package dev.rackwise.plugins;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;

import dev.rackwise.plugins.broker.BrokerLookups;
import dev.rackwise.plugins.config.PluginConfig;
import org.apache.kafka.common.config.ConfigException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The drop-in for Kafka's {@code uniform}: {@link RackwiseGroupAssignor} (the same
 * rack-optimal assignment, advice, plans and fallback) answering to the name {@code uniform}.
 * Listed in {@code group.consumer.assignors} <em>instead of</em> the built-in {@code uniform},
 * it serves every KIP-848 group that names no assignor (when listed first) or names
 * {@code uniform}, with no client change:
 *
 * <pre>
 * group.consumer.assignors=dev.rackwise.plugins.RackwiseUniformAssignor,range,dev.rackwise.plugins.RackwiseGroupAssignor
 * </pre>
 *
 * <p>What the brokers do with it (read from the released group-coordinator jars):
 * 4.1.x-4.3.x do not check names ({@code GroupCoordinatorConfig.consumerGroupAssignors}),
 * 4.4.0 checks only that no two configured assignors share a name (apache/kafka PR 23473
 * removed a reserved-name check before the release). Every release then maps assignors by
 * {@code name()} and takes the first listed as the default. Listing it <em>beside</em> the
 * built-in {@code uniform} is refused here, at start-up, on every release: 4.4.0 refuses it
 * itself, but 4.1-4.3 would start and then fail to load coordinator shards (their
 * {@code GroupMetadataManager} maps the names with {@code Collectors.toMap}, which throws on a
 * duplicate key).
 */
public class RackwiseUniformAssignor extends RackwiseGroupAssignor {
    public static final String NAME = "uniform";
    static final String ASSIGNORS = "group.consumer.assignors";
    static final String KAFKA_UNIFORM_CLASS = "org.apache.kafka.coordinator.group.assignor.UniformAssignor";
    private static final Logger log = LoggerFactory.getLogger(RackwiseUniformAssignor.class);
    private static final AtomicBoolean ANNOUNCED = new AtomicBoolean();
    private static final AtomicBoolean WARNED_NOT_FIRST = new AtomicBoolean();

    public RackwiseUniformAssignor() {
        super();
    }

    /** For tests: {@code lookups} supplies topic names, group ids and advice (null: not ready yet). */
    public RackwiseUniformAssignor(Function<PluginConfig, BrokerLookups> lookups) {
        super(lookups);
    }

    /**
     * Refuses a broker config that lists Kafka's own {@code uniform} as well (one name, two
     * assignors), then configures as {@link RackwiseGroupAssignor} does. Logs once when it is not
     * first in the list: groups naming no assignor then get the first entry, not rackwise.
     */
    @Override
    public void configure(Map<String, ?> configs) {
        List<String> listed = entries(configs.get(ASSIGNORS));
        for (String entry : listed) {
            if (entry.equals(NAME) || entry.equals(KAFKA_UNIFORM_CLASS)) {
                throw new ConfigException(ASSIGNORS, String.join(",", listed), "rackwise: "
                    + getClass().getName() + " answers to the name 'uniform', and this list also names Kafka's "
                    + "built-in '" + entry + "'. List the drop-in instead of it, e.g. " + ASSIGNORS + "="
                    + getClass().getName() + ",range (Kafka 4.4 refuses two assignors of one name; 4.1-4.3 "
                    + "would start and then fail to load their group coordinator shards)");
            }
        }
        super.configure(configs);
        if (!listed.isEmpty() && !listed.get(0).equals(getClass().getName())
                && WARNED_NOT_FIRST.compareAndSet(false, true)) {
            log.warn("rackwise: {} is not first in {} ({}): KIP-848 groups that name no assignor get '{}'; "
                + "only groups naming 'uniform' are rack-optimal", getClass().getName(), ASSIGNORS,
                String.join(",", listed), listed.get(0));
        }
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    protected String metricsType() {
        return "RackwiseUniformAssignor";
    }

    @Override
    protected AtomicBoolean announcedOnce() {
        return ANNOUNCED;
    }

    /** A list config as Kafka hands it to configure(): a comma-separated String or a List. */
    public static List<String> entries(Object value) {
        List<String> out = new ArrayList<>();
        if (value instanceof List<?> list) {
            for (Object o : list) {
                if (o != null && !o.toString().isBlank()) {
                    out.add(o.toString().trim());
                }
            }
        } else if (value != null) {
            for (String s : value.toString().split(",")) {
                if (!s.isBlank()) {
                    out.add(s.trim());
                }
            }
        }
        return out;
    }
}
