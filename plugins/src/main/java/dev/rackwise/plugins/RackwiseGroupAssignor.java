package dev.rackwise.plugins;

import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;

import dev.rackwise.plugins.broker.BrokerListener;
import dev.rackwise.plugins.broker.BrokerLookups;
import dev.rackwise.plugins.broker.GroupSpecTranslator;
import dev.rackwise.plugins.broker.TargetAssignment;
import dev.rackwise.plugins.core.AgentClient;
import dev.rackwise.plugins.core.AssignStats;
import dev.rackwise.plugins.core.FallbackReason;
import dev.rackwise.plugins.core.Outcome;
import dev.rackwise.plugins.plan.Plan;
import dev.rackwise.plugins.request.AssignRequest;
import dev.rackwise.plugins.transport.Settings;
import org.apache.kafka.common.Configurable;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.coordinator.group.api.assignor.ConsumerGroupPartitionAssignor;
import org.apache.kafka.coordinator.group.api.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.api.assignor.GroupSpec;
import org.apache.kafka.coordinator.group.api.assignor.MemberAssignment;
import org.apache.kafka.coordinator.group.api.assignor.SubscribedTopicDescriber;
import org.apache.kafka.coordinator.group.assignor.UniformAssignor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The broker-side assignor {@code rackwise} for KIP-848 consumer groups: the group coordinator
 * asks it for a target assignment; it asks the agent and translates the plan back, or runs
 * Kafka's UniformAssignor on the same inputs when there is no valid plan within the bound.
 * Brokers list it in {@code group.consumer.assignors}; clients pick it with
 * {@code group.remote.assignor=rackwise}. Configured with the broker's own config
 * (GroupCoordinatorConfig calls configure(KafkaConfig.originals())).
 */
public class RackwiseGroupAssignor implements ConsumerGroupPartitionAssignor, Configurable {
    public static final String NAME = "rackwise";
    private static final Logger log = LoggerFactory.getLogger(RackwiseGroupAssignor.class);

    private final UniformAssignor fallback = new UniformAssignor();
    private final Function<Settings, BrokerLookups> lookups;
    private final AssignStats stats = new AssignStats();
    private static final AtomicBoolean CONFIGURED_ONCE = new AtomicBoolean();
    private final AtomicBoolean announced = new AtomicBoolean();
    private Settings settings;
    private AgentClient client;

    public RackwiseGroupAssignor() {
        this(BrokerLookups::readyOrStart);
    }

    /** For tests: {@code lookups} supplies transport, topic names and group ids (null: not ready yet). */
    public RackwiseGroupAssignor(Function<Settings, BrokerLookups> lookups) {
        this.lookups = lookups;
    }

    /**
     * Reads rackwise.* from the broker config. No side effects: Kafka builds a GroupCoordinatorConfig
     * (and so this assignor) for every KafkaConfig, kafka-storage format included.
     */
    @Override
    public void configure(Map<String, ?> configs) {
        Optional<BrokerListener> listener = BrokerListener.of(configs);
        Map<String, Object> inherited = new HashMap<>();
        if (configs.get(Settings.BOOTSTRAP) == null) {
            listener.ifPresent(l -> inherited.put("security.protocol", l.securityProtocol()));
        }
        Object node = configs.get("node.id") != null ? configs.get("node.id") : configs.get("broker.id");
        settings = Settings.parse(configs, listener.map(BrokerListener::bootstrap).orElse(null), inherited,
            "rackwise-broker-" + node);
        client = new AgentClient(() -> Objects.requireNonNull(lookups.apply(settings)).transport(),
            settings.timeoutMs(), settings.backoffMs(), System::currentTimeMillis);
        if (CONFIGURED_ONCE.compareAndSet(false, true)) {
            log.info("rackwise group assignor loaded: agent topics at {} ({}), timeout {} ms, back-off {} ms",
                settings.bootstrapServers(), settings.clientConfigs().getOrDefault("security.protocol", "PLAINTEXT"),
                settings.timeoutMs(), settings.backoffMs());
        }
    }

    @Override
    public String name() {
        return NAME;
    }

    /** The agent's plan, or UniformAssignor's assignment; never throws. */
    @Override
    public GroupAssignment assign(GroupSpec groupSpec, SubscribedTopicDescriber subscribedTopicDescriber) {
        long start = System.nanoTime();
        if (announced.compareAndSet(false, true)) {
            log.info("rackwise group assignor: agent topics at {}, timeout {} ms; assign() runs on thread {} "
                    + "(Kafka 4.3.1 does not offload it: each call holds that coordinator shard up to the timeout)",
                settings == null ? "?" : settings.bootstrapServers(), settings == null ? "?" : settings.timeoutMs(),
                Thread.currentThread().getName());
        }
        String groupId = null;
        Outcome outcome;
        AssignRequest request = null;
        Map<Uuid, String> names = Map.of();
        try {
            if (client == null) {
                outcome = Outcome.fallback(FallbackReason.NOT_CONFIGURED, "configure() was not called");
            } else {
                BrokerLookups side = lookups.apply(settings);
                groupId = side == null ? null : side.groupIds().groupOf(groupSpec.memberIds()).orElse(null);
                if (side == null) {
                    outcome = Outcome.fallback(FallbackReason.NOT_READY,
                        "the plug-in's Kafka clients are starting (first assignment on this broker)");
                } else if (groupId == null) {
                    outcome = Outcome.fallback(FallbackReason.UNRESOLVED, "group id not known yet for members "
                        + groupSpec.memberIds() + " (a new group's first assignment; learnt in the background)");
                } else {
                    names = side.topicNames().resolve(GroupSpecTranslator.topicIds(groupSpec), remaining(start));
                    Set<Uuid> unnamed = GroupSpecTranslator.unnamedSubscriptions(groupSpec, names);
                    if (!unnamed.isEmpty()) {
                        outcome = Outcome.fallback(FallbackReason.UNRESOLVED, "cannot name topic ids " + unnamed);
                    } else {
                        request = GroupSpecTranslator.request(groupSpec, subscribedTopicDescriber, names);
                        outcome = client.request(groupId, request, remaining(start));
                    }
                }
            }
        } catch (RuntimeException e) {
            outcome = Outcome.fallback(FallbackReason.INTERNAL, e.toString());
        }
        stats.record(outcome);
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        if (outcome.usesPlan()) {
            Plan plan = outcome.plan();
            log.info("rackwise: group {} uses the agent's plan generation {} ({} partitions to {} members) after {} ms; {}",
                groupId, plan.generation(), plan.assignedCount(), plan.members().size(), ms, stats);
            return GroupSpecTranslator.assignment(plan, request, names);
        }
        log.warn("rackwise: group {} falls back to uniform after {} ms: {}: {}; {}", groupId == null ? "?" : groupId,
            ms, outcome.reason().name().toLowerCase(), outcome.detail(), stats);
        try {
            return fallback.assign(groupSpec, subscribedTopicDescriber);
        } catch (RuntimeException e) {
            log.error("rackwise: uniform failed too ({}); keeping the current target assignment", e.toString());
            Map<String, MemberAssignment> same = new HashMap<>();
            for (String m : groupSpec.memberIds()) {
                same.put(m, new TargetAssignment(groupSpec.memberAssignment(m).partitions()));
            }
            return new GroupAssignment(same);
        }
    }

    private long remaining(long startNanos) {
        long timeout = settings == null ? Settings.DEFAULT_TIMEOUT_MS : settings.timeoutMs();
        return Math.max(1, timeout - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos));
    }

    /** Plans used and fallbacks by reason since this broker started. */
    public AssignStats stats() {
        return stats;
    }
}
