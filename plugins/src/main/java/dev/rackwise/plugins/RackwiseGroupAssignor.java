package dev.rackwise.plugins;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;

import dev.rackwise.core.IndexedSolution;
import dev.rackwise.core.RackOptimal;
import dev.rackwise.plugins.advice.AdviceView;
import dev.rackwise.plugins.advice.GroupCosts;
import dev.rackwise.plugins.broker.BrokerApi;
import dev.rackwise.plugins.broker.BrokerListener;
import dev.rackwise.plugins.broker.BrokerLookups;
import dev.rackwise.plugins.broker.BrokerProblem;
import dev.rackwise.plugins.broker.CoreWarmUp;
import dev.rackwise.plugins.broker.HeldTargets;
import dev.rackwise.plugins.broker.TargetAssignment;
import dev.rackwise.plugins.broker.TopicNames;
import dev.rackwise.plugins.broker.TopicRacks;
import dev.rackwise.plugins.config.ConfigNumbers;
import dev.rackwise.plugins.config.PluginConfig;
import dev.rackwise.plugins.config.Settings;
import dev.rackwise.plugins.metrics.PluginMetrics;
import org.apache.kafka.common.Configurable;
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
 * asks it for a target assignment and it computes the rack-optimal one in-process
 * ({@code dev.rackwise.core}, docs/rack-optimal.md), on the coordinator's own inputs plus the
 * advice it already holds. Nothing inside {@link #assign} waits on the network or a lock:
 * topic names, group ids and advice are learnt on background threads, and a new group's first
 * assignment is rack-optimal by partition count. Kafka's UniformAssignor runs only when the
 * core fails, which is logged and counted.
 *
 * <p>Brokers list it in {@code group.consumer.assignors}; clients pick it with
 * {@code group.remote.assignor=rackwise}. Configured with the broker's own config
 * (GroupCoordinatorConfig calls configure(KafkaConfig.originals())): a member reads from
 * followers when it has a rack and this broker's {@code replica.selector.class} is
 * RackAwareReplicaSelector.
 */
public class RackwiseGroupAssignor implements ConsumerGroupPartitionAssignor, Configurable {
    public static final String NAME = BrokerLookups.ASSIGNOR_NAME;
    static final String RACK_AWARE_SELECTOR = "org.apache.kafka.common.replica.RackAwareReplicaSelector";
    private static final Logger log = LoggerFactory.getLogger(RackwiseGroupAssignor.class);
    private static final AtomicBoolean CONFIGURED_ONCE = new AtomicBoolean();

    private final UniformAssignor fallback = new UniformAssignor();
    static final String INTERNAL = "internal";
    private final Function<PluginConfig, BrokerLookups> lookups;
    // unregistered until configure() names the broker; then the JVM's one instance for it
    private volatile PluginMetrics metrics = new PluginMetrics(java.util.List.of(INTERNAL));
    private final AtomicBoolean announced = new AtomicBoolean();
    private volatile PluginConfig config;
    private volatile boolean followerFetching;
    private volatile boolean wired;
    /** Advice weights apply to groups of at most this many partitions (docs: plugins/README.md § 3). */
    public static final String MAX_WEIGHTED_PARTITIONS = "rackwise.weights.max.partitions";
    public static final long DEFAULT_MAX_WEIGHTED_PARTITIONS = 2_000;
    private volatile long maxWeightedPartitions = DEFAULT_MAX_WEIGHTED_PARTITIONS;
    private final AtomicBoolean weightsCapped = new AtomicBoolean();
    /** CPU ms for the JVM's one core warm-up, started on the first assign() (0: none; {@link CoreWarmUp}). */
    private volatile long warmupMs = CoreWarmUp.DEFAULT_BUDGET_MS;
    /** Replica racks kept while the coordinator's metadata image is the same (never stale: {@link TopicRacks.Cache}). */
    private final TopicRacks.Cache racks = new TopicRacks.Cache();
    /** Members' current targets, kept by the identity of Kafka's immutable stored assignments. */
    private final HeldTargets held = new HeldTargets();

    public RackwiseGroupAssignor() {
        this(BrokerLookups::readyOrStart);
    }

    /** For tests: {@code lookups} supplies topic names, group ids and advice (null: not ready yet). */
    public RackwiseGroupAssignor(Function<PluginConfig, BrokerLookups> lookups) {
        this.lookups = lookups;
    }

    /**
     * Reads rackwise.* and replica.selector.class from the broker config. No side effects: Kafka
     * builds a GroupCoordinatorConfig (and so this assignor) for every KafkaConfig, kafka-storage
     * format included; the background clients and the core warm-up ({@link CoreWarmUp}) start on
     * the first assign(). Once per JVM it primes the core here ({@link CoreWarmUp#prime}: a few
     * calls on tiny groups, on this thread, so the first group's call does not load the classes
     * on the coordinator's). On a broker older
     * than 4.1 it refuses to load (BrokerApi: no replica racks reach an assignor there).
     */
    @Override
    public void configure(Map<String, ?> configs) {
        BrokerApi.requireRackAwareApi();
        BrokerApi.requireStreamsAssignorApiIfListed(configs);
        Optional<BrokerListener> listener = BrokerListener.of(configs);
        Map<String, Object> inherited = new HashMap<>();
        if (configs.get(Settings.BOOTSTRAP) == null) {
            listener.ifPresent(l -> inherited.put("security.protocol", l.securityProtocol()));
        }
        Object node = configs.get("node.id") != null ? configs.get("node.id") : configs.get("broker.id");
        config = PluginConfig.parse(configs, listener.map(BrokerListener::bootstrap).orElse(null), inherited,
            "rackwise-broker-" + node);
        metrics = PluginMetrics.shared(metricsType(), "broker-" + node, java.util.List.of(INTERNAL));
        followerFetching = RACK_AWARE_SELECTOR.equals(Settings.string(configs.get("replica.selector.class")));
        maxWeightedPartitions = ConfigNumbers.notNegative(configs, MAX_WEIGHTED_PARTITIONS,
            DEFAULT_MAX_WEIGHTED_PARTITIONS);
        warmupMs = ConfigNumbers.notNegative(configs, CoreWarmUp.BUDGET_MS, CoreWarmUp.DEFAULT_BUDGET_MS);
        BrokerLookups.serves(name());
        CoreWarmUp.prime(followerFetching);
        if (announcedOnce().compareAndSet(false, true)) {
            log.info("rackwise group assignor loaded ({} as '{}'): decides in-process; {}; advice and plans at {}",
                getClass().getSimpleName(), name(),
                followerFetching ? "members with a rack read from followers (RackAwareReplicaSelector)"
                    : "members read from leaders (replica.selector.class is not RackAwareReplicaSelector)",
                config.settings().bootstrapServers());
        }
    }

    @Override
    public String name() {
        return NAME;
    }

    /** The JMX type its counts go to ({@code kafka.rackwise:type=<this>,name=broker-<node.id>}). */
    protected String metricsType() {
        return "RackwiseGroupAssignor";
    }

    /** Whether this class has said at start-up that it is loaded (once per JVM and class). */
    protected AtomicBoolean announcedOnce() {
        return CONFIGURED_ONCE;
    }

    /** The rack-optimal target assignment, or UniformAssignor's on an internal error; never throws or waits. */
    @Override
    public GroupAssignment assign(GroupSpec groupSpec, SubscribedTopicDescriber subscribedTopicDescriber) {
        long start = System.nanoTime();
        if (announced.compareAndSet(false, true)) {
            log.info("rackwise group assignor: first assign() on thread {}", Thread.currentThread().getName());
            metrics.racks(racks::hits, racks::reads); // the instance the coordinator calls
            metrics.targets(held::hits, held::reads);
        }
        // the JVM's first call starts compiling the path on a thread of its own; returns at once
        CoreWarmUp.startOnce(warmupMs, followerFetching);
        String groupId = null;
        try {
            BrokerLookups side = config == null ? null : lookups.apply(config);
            if (side != null && side.held() != null && !wired) {
                wired = true; // the metrics read the background clients' counters from now on
                metrics.adviceAge(side.held()::ageMs);
                metrics.plans(side.reports()::published, side.reports()::dropped, side.reports()::failed);
            }
            AdviceView advice = side == null ? AdviceView.NONE : side.advice();
            TopicNames names = side == null ? ids -> Map.of() : side.topicNames();
            groupId = side == null ? null : side.groupIds().groupOf(groupSpec.memberIds()).orElse(null);
            GroupCosts costs = groupId == null ? GroupCosts.DEFAULT : advice.costs(groupId);
            BrokerProblem.Indexed problem = BrokerProblem.indexed(groupSpec, subscribedTopicDescriber, names, advice,
                costs, followerFetching, maxWeightedPartitions, racks, held);
            int partitions = problem.problem().partitions();
            if (!problem.names().isEmpty() && partitions > maxWeightedPartitions && weightsCapped.compareAndSet(false, true)) {
                log.info("rackwise: group {} has {} partitions, over {}={}: its assignments weigh every partition "
                    + "1 (rack-optimal by count; leader racks still from the advice) to bound the coordinator "
                    + "thread's time; said once per broker", groupId == null ? "?" : groupId, partitions,
                    MAX_WEIGHTED_PARTITIONS, maxWeightedPartitions);
            }
            IndexedSolution solution = RackOptimal.solve(problem.problem());
            GroupAssignment out = BrokerProblem.assignment(problem, solution);
            metrics.recordAssign(System.nanoTime() - start);
            long micros = TimeUnit.NANOSECONDS.toMicros(System.nanoTime() - start);
            if (side != null) {
                side.report(groupId, groupSpec, problem::toProblem, solution::toSolution, problem.names(), micros,
                    followerFetching);
            }
            log.debug("rackwise: group {}: {} members, cost {}, {} moved, in {} us", groupId,
                groupSpec.memberIds().size(), solution.cost(), solution.moved(), micros);
            return out;
        } catch (RuntimeException | LinkageError | StackOverflowError e) {
            // a class the jar cannot load (a jar replaced under a running JVM) must not leave
            // the group without an assignment either
            metrics.recordFallback(INTERNAL);
            log.warn("rackwise: group {} falls back to uniform: {}", groupId == null ? "?" : groupId, e);
        }
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

    /** Assignments computed, assign() time and fallbacks by reason (JMX: kafka.rackwise). */
    public PluginMetrics metrics() {
        return metrics;
    }
}
