package dev.rackwise.plugins;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import dev.rackwise.plugins.classic.ClassicTranslator;
import dev.rackwise.plugins.classic.RebalanceProtocols;
import dev.rackwise.plugins.core.AgentClient;
import dev.rackwise.plugins.core.AssignStats;
import dev.rackwise.plugins.core.FallbackReason;
import dev.rackwise.plugins.core.Outcome;
import dev.rackwise.plugins.plan.Plan;
import dev.rackwise.plugins.request.AssignRequest;
import dev.rackwise.plugins.transport.Settings;
import dev.rackwise.plugins.transport.Transport;
import dev.rackwise.plugins.transport.Transports;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.Configurable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The classic consumer group's assignor {@code rackwise}: the leader asks the agent for a plan
 * and hands it to Kafka; if there is none within {@code rackwise.timeout.ms}, or it is not valid
 * for the group, it runs Kafka's CooperativeStickyAssignor on the same inputs. Set it with
 * {@code partition.assignment.strategy=dev.rackwise.plugins.RackwiseAssignor} (and {@code client.rack}).
 */
public class RackwiseAssignor implements ConsumerPartitionAssignor, Configurable {
    public static final String NAME = "rackwise";
    private static final Logger log = LoggerFactory.getLogger(RackwiseAssignor.class);

    private final CooperativeStickyAssignor fallback = new CooperativeStickyAssignor();
    private final Function<Settings, Transport> transports;
    private final AssignStats stats = new AssignStats();
    private String groupId;
    private RebalanceProtocol protocol = RebalanceProtocol.COOPERATIVE;
    private AgentClient client;

    public RackwiseAssignor() {
        this(Transports::shared);
    }

    /** For tests: {@code transports} builds the transport for the parsed settings. */
    public RackwiseAssignor(Function<Settings, Transport> transports) {
        this.transports = transports;
    }

    /** Reads rackwise.* from the consumer's own configs; bad values fail the consumer's construction. */
    @Override
    public void configure(Map<String, ?> configs) {
        groupId = Settings.string(configs.get(ConsumerConfig.GROUP_ID_CONFIG));
        protocol = RebalanceProtocols.inEffect(configs.get(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG), getClass());
        Map<String, Object> inherited = new HashMap<>();
        for (Map.Entry<String, ?> e : configs.entrySet()) {
            if (Settings.isSecurityKey(e.getKey()) && e.getValue() != null) {
                inherited.put(e.getKey(), e.getValue());
            }
        }
        String bootstrap = Settings.string(configs.get(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG));
        Settings settings = Settings.parse(configs, bootstrap, inherited, "rackwise-" + groupId);
        client = new AgentClient(() -> transports.apply(settings), settings.timeoutMs(), settings.backoffMs(),
            System::currentTimeMillis);
        log.info("rackwise assignor for group {}: agent topics at {}, timeout {} ms, {} rebalance protocol",
            groupId, settings.bootstrapServers(), settings.timeoutMs(), protocol);
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public List<RebalanceProtocol> supportedProtocols() {
        return List.of(RebalanceProtocol.EAGER, RebalanceProtocol.COOPERATIVE);
    }

    /** The agent's plan, or CooperativeStickyAssignor's assignment; never throws. */
    @Override
    public GroupAssignment assign(Cluster metadata, GroupSubscription groupSubscription) {
        long start = System.nanoTime();
        Outcome outcome;
        AssignRequest request = null;
        try {
            if (client == null || groupId == null) {
                outcome = Outcome.fallback(FallbackReason.NOT_CONFIGURED, "configure() was not called with a group.id");
            } else {
                request = ClassicTranslator.request(protocol, metadata, groupSubscription);
                outcome = client.request(groupId, request);
            }
        } catch (RuntimeException e) {
            outcome = Outcome.fallback(FallbackReason.INTERNAL, e.toString());
        }
        stats.record(outcome);
        long ms = (System.nanoTime() - start) / 1_000_000;
        if (outcome.usesPlan()) {
            Plan plan = outcome.plan();
            log.info("rackwise: group {} uses the agent's plan generation {} ({} partitions to {} members, "
                    + "{} withheld) after {} ms; {}", groupId, plan.generation(), plan.assignedCount(),
                plan.members().size(), plan.withheld().size(), ms, stats);
            return ClassicTranslator.assignment(plan, request);
        }
        log.warn("rackwise: group {} falls back to cooperative-sticky after {} ms: {}: {}; {}", groupId, ms,
            outcome.reason().name().toLowerCase(), outcome.detail(), stats);
        try {
            return fallback.assign(metadata, groupSubscription);
        } catch (RuntimeException e) {
            log.error("rackwise: group {}: cooperative-sticky failed too ({}); giving every member nothing this round",
                groupId, e.toString());
            Map<String, Assignment> empty = new HashMap<>();
            for (String member : groupSubscription.groupSubscription().keySet()) {
                empty.put(member, new Assignment(List.of()));
            }
            return new GroupAssignment(empty);
        }
    }

    @Override
    public void onAssignment(Assignment assignment, ConsumerGroupMetadata metadata) {
        fallback.onAssignment(assignment, metadata);
    }

    /** Plans used and fallbacks by reason since this consumer started. */
    public AssignStats stats() {
        return stats;
    }
}
