package dev.rackwise.plugins;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import dev.rackwise.core.IndexedSolution;
import dev.rackwise.core.RackOptimal;
import dev.rackwise.plugins.advice.AdviceView;
import dev.rackwise.plugins.classic.ClassicLookups;
import dev.rackwise.plugins.classic.ClassicProblem;
import dev.rackwise.plugins.classic.RebalanceProtocols;
import dev.rackwise.plugins.config.PluginConfig;
import dev.rackwise.plugins.config.Settings;
import dev.rackwise.plugins.metrics.PluginMetrics;
import dev.rackwise.plugins.publish.ComputedPlan;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.Configurable;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The classic consumer group's assignor {@code rackwise}: the group leader computes the
 * rack-optimal assignment in-process ({@code dev.rackwise.core}, docs/rack-optimal.md) from the
 * members' subscriptions and the metadata it holds, plus the advice it already has (weights,
 * costs); nothing in {@link #assign} waits on the network. Under the cooperative protocol a
 * partition never goes to a new owner while another member still owns it. Kafka's
 * CooperativeStickyAssignor runs only when the core fails, which is logged and counted.
 *
 * <p>Set it with {@code partition.assignment.strategy=dev.rackwise.plugins.RackwiseAssignor}
 * and {@code client.rack}. {@code rackwise.follower.fetching} (default true) says whether the
 * brokers run RackAwareReplicaSelector, which a client cannot see for itself.
 */
public class RackwiseAssignor implements ConsumerPartitionAssignor, Configurable {
    public static final String NAME = "rackwise";
    public static final String FOLLOWER_FETCHING = Settings.PREFIX + "follower.fetching";
    private static final Logger log = LoggerFactory.getLogger(RackwiseAssignor.class);

    private final CooperativeStickyAssignor fallback = new CooperativeStickyAssignor();
    static final String INTERNAL = "internal";
    private final Function<PluginConfig, ClassicLookups> lookups;
    private final PluginMetrics metrics = new PluginMetrics(java.util.List.of(INTERNAL));
    private String groupId;
    private RebalanceProtocol protocol = RebalanceProtocol.COOPERATIVE;
    private boolean followerFetching = true;
    private PluginConfig config;
    private volatile boolean wired;

    public RackwiseAssignor() {
        this(ClassicLookups::start);
    }

    /** For tests: {@code lookups} supplies the advice and the plan sink for the parsed settings. */
    public RackwiseAssignor(Function<PluginConfig, ClassicLookups> lookups) {
        this.lookups = lookups;
    }

    /** Reads rackwise.* from the consumer's own configs; bad values fail the consumer's construction. */
    @Override
    public void configure(Map<String, ?> configs) {
        groupId = Settings.string(configs.get(ConsumerConfig.GROUP_ID_CONFIG));
        protocol = RebalanceProtocols.inEffect(configs.get(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG), getClass());
        Object ff = configs.get(FOLLOWER_FETCHING);
        if (ff != null) {
            String v = ff.toString().trim().toLowerCase();
            if (!v.equals("true") && !v.equals("false")) {
                throw new org.apache.kafka.common.config.ConfigException(FOLLOWER_FETCHING, ff, "must be true or false");
            }
            followerFetching = v.equals("true");
        }
        Map<String, Object> inherited = new HashMap<>();
        for (Map.Entry<String, ?> e : configs.entrySet()) {
            if (Settings.isSecurityKey(e.getKey()) && e.getValue() != null) {
                inherited.put(e.getKey(), e.getValue());
            }
        }
        String bootstrap = Settings.string(configs.get(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG));
        config = PluginConfig.parse(configs, bootstrap, inherited, "rackwise-" + groupId);
        metrics.register("RackwiseAssignor", String.valueOf(groupId));
        log.info("rackwise assignor for group {}: decides in the leader, {} rebalance protocol, members with a rack "
            + "read from {}; advice and plans at {}", groupId, protocol, followerFetching ? "followers" : "leaders",
            config.settings().bootstrapServers());
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public List<RebalanceProtocol> supportedProtocols() {
        return List.of(RebalanceProtocol.EAGER, RebalanceProtocol.COOPERATIVE);
    }

    /** The rack-optimal assignment, or CooperativeStickyAssignor's on an internal error; never throws. */
    @Override
    public GroupAssignment assign(Cluster metadata, GroupSubscription groupSubscription) {
        long start = System.nanoTime();
        Map<String, Subscription> subs = groupSubscription.groupSubscription();
        try {
            ClassicLookups side = config == null ? ClassicLookups.NONE : lookups.apply(config);
            if (side.held() != null && !wired) {
                wired = true; // the metrics read the background clients' counters from now on
                metrics.adviceAge(side.held()::ageMs);
                metrics.plans(side.reports()::published, side.reports()::dropped, side.reports()::failed);
            }
            AdviceView advice = side.advice();
            ClassicProblem.Indexed problem = ClassicProblem.indexed(metadata, subs, advice,
                groupId == null ? dev.rackwise.plugins.advice.GroupCosts.DEFAULT : advice.costs(groupId),
                followerFetching);
            IndexedSolution solution = RackOptimal.solve(problem.problem());
            Map<TopicPartition, String> withheld = protocol == RebalanceProtocol.COOPERATIVE
                ? ClassicProblem.withheld(problem, solution) : Map.of();
            GroupAssignment out = ClassicProblem.assignment(problem, solution, withheld);
            metrics.recordAssign(System.nanoTime() - start);
            long micros = TimeUnit.NANOSECONDS.toMicros(System.nanoTime() - start);
            Map<dev.rackwise.core.TopicPartition, String> held = new HashMap<>();
            withheld.forEach((tp, owner) -> held.put(new dev.rackwise.core.TopicPartition(tp.topic(), tp.partition()), owner));
            side.plans().offer(new ComputedPlan(groupId, Set.copyOf(subs.keySet()), problem::toProblem,
                solution::toSolution, Map.of(),
                protocol == RebalanceProtocol.COOPERATIVE ? "cooperative" : "eager", held, followerFetching, micros,
                System.currentTimeMillis()));
            log.info("rackwise: group {}: {} members, cost {}, {} moved, {} withheld, in {} us", groupId, subs.size(),
                solution.cost(), solution.moved(), withheld.size(), micros);
            return out;
        } catch (RuntimeException | LinkageError | StackOverflowError e) {
            // a class the jar cannot load (a jar replaced under a running JVM) must not leave
            // the group without an assignment either
            metrics.recordFallback(INTERNAL);
            log.warn("rackwise: group {} falls back to cooperative-sticky: {}", groupId, e);
        }
        try {
            return fallback.assign(metadata, groupSubscription);
        } catch (RuntimeException e) {
            log.error("rackwise: group {}: cooperative-sticky failed too ({}); giving every member nothing this round",
                groupId, e.toString());
            Map<String, Assignment> empty = new HashMap<>();
            for (String member : subs.keySet()) {
                empty.put(member, new Assignment(List.of()));
            }
            return new GroupAssignment(empty);
        }
    }

    @Override
    public void onAssignment(Assignment assignment, ConsumerGroupMetadata metadata) {
        fallback.onAssignment(assignment, metadata);
    }

    /** Assignments computed, assign() time and fallbacks by reason (JMX: kafka.rackwise). */
    public PluginMetrics metrics() {
        return metrics;
    }
}
