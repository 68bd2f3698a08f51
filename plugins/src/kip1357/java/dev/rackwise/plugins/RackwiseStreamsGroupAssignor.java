package dev.rackwise.plugins;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;

import dev.rackwise.plugins.advice.AdviceView;
import dev.rackwise.plugins.advice.GroupCosts;
import dev.rackwise.plugins.broker.BrokerListener;
import dev.rackwise.plugins.config.PluginConfig;
import dev.rackwise.plugins.metrics.PluginMetrics;
import dev.rackwise.plugins.streamsgroup.CoordinatorTopologyAccess;
import dev.rackwise.plugins.streamsgroup.MemberSpread;
import dev.rackwise.plugins.streamsgroup.RackSource;
import dev.rackwise.plugins.streamsgroup.RackSourceMetrics;
import dev.rackwise.plugins.streamsgroup.StreamsGroupProblem;
import dev.rackwise.plugins.streamsgroup.StreamsLookups;
import dev.rackwise.plugins.streamsgroup.StreamsPlanReport;
import dev.rackwise.plugins.streamsgroup.TopologyView;
import dev.rackwise.plugins.config.Settings;
import dev.rackwise.tasks.TaskCore;
import dev.rackwise.tasks.TaskPlan;
import dev.rackwise.tasks.TaskProblem;
import org.apache.kafka.common.Configurable;
import org.apache.kafka.coordinator.group.api.streams.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.api.streams.assignor.GroupSpec;
import org.apache.kafka.coordinator.group.api.streams.assignor.MemberAssignment;
import org.apache.kafka.coordinator.group.api.streams.assignor.TaskAssignor;
import org.apache.kafka.coordinator.group.api.streams.assignor.TopologyDescriber;
import org.apache.kafka.coordinator.group.streams.assignor.StickyTaskAssignor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The broker-side task assignor {@code rackwise} for Kafka Streams' own protocol (KIP-1071
 * streams groups, custom assignors by KIP-1357, Kafka 4.4+): the group coordinator asks it for
 * a target assignment and it computes Kafka Streams' high-availability assignment with exact
 * KIP-925 rack-aware optimisation in-process ({@code dev.rackwise.tasks}, docs/streams-groups.md).
 *
 * <p>Nothing inside {@link #assign} waits: racks come from the coordinator's own metadata where
 * 4.4.0 hands it over, else from what the plug-in learnt in the background; advice is held.
 * Stateless per call (any state is the shared, immutable snapshots of the background threads),
 * so it is safe on any thread and on a copy of the group (KIP-1263 offload). Kafka's built-in
 * {@code sticky} runs only when this fails, logged and counted ({@code Fallbacks_internal}).
 *
 * <p>Brokers list it in {@code group.streams.assignors}; a group opts in with the group config
 * {@code streams.assignor.name=rackwise}.
 */
public class RackwiseStreamsGroupAssignor implements TaskAssignor, Configurable {
    public static final String NAME = "rackwise";
    static final String INTERNAL = "internal";
    private static final Logger log = LoggerFactory.getLogger(RackwiseStreamsGroupAssignor.class);
    private static final AtomicBoolean CONFIGURED_ONCE = new AtomicBoolean();

    private final Function<PluginConfig, StreamsLookups> lookups;
    private final Function<TaskProblem, TaskPlan> core;
    private final TaskAssignor fallback;
    private volatile PluginMetrics metrics = new PluginMetrics(List.of(INTERNAL));
    private volatile RackSourceMetrics racks = new RackSourceMetrics();
    // the rack source last logged per group (keyed by its first process id: a new group's id is
    // learnt only in the background); bounded, only for choosing INFO over DEBUG
    private final Map<String, RackSource> lastLogged = new java.util.concurrent.ConcurrentHashMap<>();
    private volatile PluginConfig config;
    private volatile boolean wired;

    public RackwiseStreamsGroupAssignor() {
        this(c -> c == null ? null : StreamsLookups.readyOrStart(c), TaskCore::assign, new StickyTaskAssignor());
    }

    /**
     * For tests: the background lookups (given the parsed settings, null before configure(); answering
     * null while not ready), the task core and the fallback.
     */
    public RackwiseStreamsGroupAssignor(Function<PluginConfig, StreamsLookups> lookups,
                                        Function<TaskProblem, TaskPlan> core, TaskAssignor fallback) {
        this.lookups = lookups;
        this.core = core;
        this.fallback = fallback;
    }

    /**
     * Reads rackwise.* from the broker config (the same settings as the consumer-group plug-in).
     * No side effects: the background clients start on the first assign().
     */
    @Override
    public void configure(Map<String, ?> configs) {
        Optional<BrokerListener> listener = BrokerListener.of(configs);
        Map<String, Object> inherited = new HashMap<>();
        if (configs.get(Settings.BOOTSTRAP) == null) {
            listener.ifPresent(l -> inherited.put("security.protocol", l.securityProtocol()));
        }
        Object node = configs.get("node.id") != null ? configs.get("node.id") : configs.get("broker.id");
        config = PluginConfig.parse(configs, listener.map(BrokerListener::bootstrap).orElse(null), inherited,
            "rackwise-streams-broker-" + node);
        metrics = PluginMetrics.shared("RackwiseStreamsGroupAssignor", "broker-" + node, List.of(INTERNAL));
        racks = RackSourceMetrics.shared("broker-" + node);
        if (CONFIGURED_ONCE.compareAndSet(false, true)) {
            warmUp();
            log.info("rackwise streams group assignor loaded (name {}): decides in-process; racks from the "
                    + "coordinator's metadata ({}), else learnt in the background; advice at {}", NAME,
                CoordinatorTopologyAccess.linkable() ? "linkable on this release" : "NOT linkable on this release",
                config.settings().bootstrapServers());
        }
    }

    /**
     * Loads and compiles the task core once, on a daemon thread at broker start-up, so that a
     * group's first assign() on the coordinator thread does not pay for class loading (measured:
     * ~1 s for the first call on a busy testbed broker).
     */
    private static void warmUp() {
        Thread t = new Thread(() -> {
            try {
                for (int i = 0; i < 20; i++) {
                    TaskCore.assign(WarmUp.problem(i));
                }
            } catch (RuntimeException | LinkageError e) {
                log.warn("rackwise streams assignor: warm-up failed: {}", e.toString());
            }
        }, "rackwise-streams-warm-up");
        t.setDaemon(true);
        t.start();
    }

    @Override
    public String name() {
        return NAME;
    }

    /** Kafka Streams' HA assignment, rack-optimal; Kafka's sticky on an internal error. Never waits. */
    @Override
    public GroupAssignment assign(GroupSpec groupSpec, TopologyDescriber topologyDescriber) {
        long start = System.nanoTime();
        String groupId = null;
        try {
            StreamsLookups side = lookups.apply(config);
            if (side != null && side.held() != null && !wired) {
                wired = true; // the metrics read the background clients' counters from now on
                metrics.adviceAge(side.held()::ageMs);
                if (side.publisher() != null) {
                    metrics.plans(side.publisher()::published, () -> side.publisher().dropped() + side.unpublished(),
                        side.publisher()::failed);
                }
            }
            Optional<String> group = side == null ? Optional.empty() : side.groupOf(groupSpec.memberIds());
            groupId = group.orElse(null);
            Optional<TopologyView> fromCoordinator = CoordinatorTopologyAccess.read(topologyDescriber);
            TopologyView view = fromCoordinator.orElseGet(() -> side == null ? TopologyView.NONE
                : side.topology(group));
            AdviceView advice = side == null ? AdviceView.NONE : side.advice();
            GroupCosts costs = groupId == null ? GroupCosts.DEFAULT : advice.costs(groupId);
            StreamsGroupProblem problem = StreamsGroupProblem.of(groupSpec, topologyDescriber, view, advice, costs);
            TaskPlan plan = core.apply(problem.problem());
            GroupAssignment out = MemberSpread.assignment(groupSpec, problem, plan);
            long nanos = System.nanoTime() - start;
            if (side != null) {
                side.report(StreamsPlanReport.of(groupId, groupSpec, problem, out, view.source(), advice.measured(),
                    TimeUnit.NANOSECONDS.toMicros(nanos)));
            }
            metrics.recordAssign(nanos);
            racks.record(view.source(), plan.rackAware());
            String firstProcess = problem.membersByProcess().isEmpty() ? "-"
                : problem.membersByProcess().firstKey();
            if (lastLogged.size() > 10_000) {
                lastLogged.clear();
            }
            RackSource before = lastLogged.put(firstProcess, view.source());
            String line = "rackwise streams assignor: group {} (process {} ...): racks from {} ({}), {} members in "
                + "{} processes, {} tasks, {} us";
            Object[] args = {groupId == null ? "?" : groupId, firstProcess, view.source().label(),
                plan.rackAware() ? "rack-aware" : "rack-blind: " + plan.rackAwareReason(),
                groupSpec.memberIds().size(), problem.membersByProcess().size(), problem.problem().tasks().size(),
                TimeUnit.NANOSECONDS.toMicros(nanos)};
            if (before != view.source()) {
                log.info(line, args);
            } else {
                log.debug(line, args);
            }
            return out;
        } catch (RuntimeException | LinkageError | StackOverflowError e) {
            metrics.recordFallback(INTERNAL);
            log.warn("rackwise streams assignor: group {} falls back to Kafka's sticky: {}",
                groupId == null ? "?" : groupId, e.toString());
        }
        try {
            return fallback.assign(groupSpec, topologyDescriber);
        } catch (RuntimeException e) {
            log.error("rackwise streams assignor: sticky failed too ({}); keeping the current assignment",
                e.toString());
            Map<String, MemberAssignment> same = new HashMap<>();
            for (String m : groupSpec.memberIds()) {
                same.put(m, new MemberAssignment(groupSpec.memberAssignmentState(m).activeTasks(),
                    groupSpec.memberAssignmentState(m).standbyTasks()));
            }
            return new GroupAssignment(same);
        }
    }

    /** Assignments computed, assign() time and fallbacks (JMX: kafka.rackwise). */
    public PluginMetrics metrics() {
        return metrics;
    }

    /** Where racks came from, per assignment (JMX: kafka.rackwise). */
    public RackSourceMetrics rackSources() {
        return racks;
    }
}
