package dev.rackwise.plugins;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import dev.rackwise.plugins.config.PluginConfig;
import dev.rackwise.plugins.config.Settings;
import dev.rackwise.plugins.metrics.PluginMetrics;
import dev.rackwise.plugins.streams.AssignStats;
import dev.rackwise.plugins.streams.ComputedTaskPlan;
import dev.rackwise.plugins.streams.FallbackReason;
import dev.rackwise.plugins.streams.PartitionRacks;
import dev.rackwise.plugins.streams.StreamsLookups;
import dev.rackwise.plugins.streams.TaskAssignments;
import dev.rackwise.plugins.streams.TaskProblems;
import dev.rackwise.tasks.ClientAssignment;
import dev.rackwise.tasks.TaskCore;
import dev.rackwise.tasks.TaskInputException;
import dev.rackwise.tasks.TaskPlan;
import dev.rackwise.tasks.TaskProblem;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.GroupAssignment;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.GroupSubscription;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.assignment.ApplicationState;
import org.apache.kafka.streams.processor.assignment.KafkaStreamsAssignment;
import org.apache.kafka.streams.processor.assignment.KafkaStreamsAssignment.AssignedTask;
import org.apache.kafka.streams.processor.assignment.ProcessId;
import org.apache.kafka.streams.processor.assignment.TaskAssignmentUtils;
import org.apache.kafka.streams.processor.assignment.TaskAssignor;
import org.apache.kafka.streams.processor.assignment.assignors.StickyTaskAssignor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A KIP-924 task assignor for Kafka Streams applications (classic rebalance protocol): the group
 * leader computes the assignment in-process with the JVM task core ({@code dev.rackwise.tasks}:
 * KIP-441 high availability with warm-ups and probing rebalances, KIP-925 rack awareness solved
 * exactly, KIP-708 client-tag standbys), from Kafka's {@link ApplicationState} plus the advice it
 * already holds (per-partition bytes/s as weights, the application's {@code planner.rules} costs).
 * Nothing in {@link #assign} waits on the network: the advice is read and the computed plan is
 * reported to {@code rackwise.plans} on background threads. Kafka's own {@link StickyTaskAssignor}
 * runs only on an internal error (bad input, an assignment Kafka would reject, a bug), logged and
 * counted. It never throws.
 *
 * <pre>
 * task.assignor.class=dev.rackwise.plugins.RackwiseTaskAssignor
 * client.rack=az1                                 # each instance's rack (a consumer config)
 * rack.aware.assignment.strategy=min_traffic      # default here: none means min_traffic
 * </pre>
 *
 * Kafka Streams creates and configures a new instance on every rebalance (the main consumer's
 * configs, StreamsConfig.originals()): the background clients, the counts and the last known
 * partition racks are kept per application (and settings) in static registries, so they outlive it.
 */
public class RackwiseTaskAssignor implements TaskAssignor {
    private static final Logger log = LoggerFactory.getLogger(RackwiseTaskAssignor.class);
    static final String STRATEGY = "rack.aware.assignment.strategy";
    private static final Map<String, AssignStats> STATS = new ConcurrentHashMap<>();
    private static final Set<String> TOLD = ConcurrentHashMap.newKeySet();
    private static final List<String> REASONS = List.of("input", "invalid_assignment", "internal");

    private final Function<PluginConfig, StreamsLookups> lookups;
    private final Function<TaskProblem, TaskPlan> core;
    private String applicationId;
    private PluginConfig config;
    private PluginMetrics metrics;

    public RackwiseTaskAssignor() {
        this(StreamsLookups::start, TaskCore::assign);
    }

    /** For tests: {@code lookups} supplies advice and plan reports; {@code core} solves. */
    public RackwiseTaskAssignor(Function<PluginConfig, StreamsLookups> lookups, Function<TaskProblem, TaskPlan> core) {
        this.lookups = lookups;
        this.core = core;
    }

    /**
     * Reads {@code application.id}, {@code bootstrap.servers} (the default for
     * rackwise.bootstrap.servers), the client security settings and every {@code rackwise.*} key.
     * A bad rackwise.* value is logged at ERROR and turns advice and plan reports off; the
     * assignment itself needs no setting, and configure() runs inside the rebalance, where an
     * exception would kill the stream thread.
     */
    @Override
    public void configure(Map<String, ?> configs) {
        applicationId = Settings.string(configs.get("application.id"));
        if (applicationId == null || applicationId.isEmpty()) {
            applicationId = Settings.string(configs.get("group.id"));
        }
        String app = String.valueOf(applicationId);
        metrics = PluginMetrics.shared("RackwiseTaskAssignor", app, REASONS);
        try {
            config = PluginConfig.parse(configs, Settings.string(configs.get("bootstrap.servers")),
                Settings.inheritedSecurity(configs), "rackwise-streams-" + app);
        } catch (ConfigException | IllegalArgumentException e) {
            config = null;
            log.error("rackwise task assignor for application {}: bad rackwise settings ({}); assigning without "
                + "advice and without reporting plans", app, e.getMessage());
        }
        if (TOLD.add(app)) {
            String strategy = Settings.string(configs.get(STRATEGY));
            if (strategy == null || strategy.isEmpty() || strategy.equals("none")) {
                log.info("rackwise task assignor for application {}: {} is {}; rackwise assigns with min_traffic "
                    + "(naming rackwise asks for rack awareness; set min_traffic or balance_subtopology to choose)",
                    app, STRATEGY, strategy == null || strategy.isEmpty() ? "unset (Kafka's default none)" : "none");
            } else {
                log.info("rackwise task assignor for application {}: decides in the leader with {} {}; advice and "
                    + "plans at {}", app, STRATEGY, strategy, config == null ? "nowhere" : config.settings().bootstrapServers());
            }
        }
    }

    /** The core's assignment, or Kafka's StickyTaskAssignor's on an internal error; never throws. */
    @Override
    public TaskAssignment assign(ApplicationState applicationState) {
        long start = System.nanoTime();
        String app = String.valueOf(applicationId);
        AssignStats stats = STATS.computeIfAbsent(app, k -> new AssignStats());
        PluginMetrics m = metrics != null ? metrics : PluginMetrics.shared("RackwiseTaskAssignor", app, REASONS);
        FallbackReason reason;
        String detail;
        try {
            StreamsLookups side = config == null ? StreamsLookups.NONE : lookups.apply(config);
            if (side.held() != null) {
                m.adviceAge(side.held()::ageMs);
            }
            if (side.reports() != null) {
                m.plans(side.reports()::published, side.reports()::dropped, side.reports()::failed);
            }
            TaskProblems.Translated in = TaskProblems.of(applicationState, app, side.advice(), PartitionRacks.of(app));
            TaskPlan plan = core.apply(in.problem());
            String incomplete = TaskAssignments.incomplete(plan, in.processes(), in.problem().tasks().keySet());
            if (incomplete != null) {
                throw new IllegalStateException("the task core's plan is incomplete: " + incomplete);
            }
            long probingMs = in.problem().config().probingRebalanceIntervalMs();
            TaskAssignment assignment = TaskAssignments.of(plan, in.processes(), probingMs, Instant.now());
            AssignmentError error = TaskAssignmentUtils.validateTaskAssignment(applicationState, assignment);
            if (error == AssignmentError.NONE) {
                long nanos = System.nanoTime() - start;
                m.recordAssign(nanos);
                stats.recordComputed();
                long micros = TimeUnit.NANOSECONDS.toMicros(nanos);
                if (side.reports() != null) {
                    side.reports().offer(new ComputedTaskPlan(app, in, plan, micros, System.currentTimeMillis()));
                }
                log.info("rackwise: application {}: {} on {} processes, {} (rack-aware: {}), {}, weights {}{} in {} us; {}",
                    app, counts(plan), in.processes().size(), in.problem().config().rackAwareStrategy().configValue(),
                    plan.rackAwareReason(), in.rackSources(), in.weighted() ? "from the agent's advice" : "1 per partition",
                    plan.followupNeeded() ? ", probing rebalance in " + probingMs + " ms," : ",", micros, stats);
                return assignment;
            }
            reason = FallbackReason.INVALID_ASSIGNMENT;
            detail = "Kafka Streams rejects the computed assignment: " + error;
        } catch (TaskInputException e) {
            reason = FallbackReason.INPUT;
            detail = e.getMessage();
        } catch (RuntimeException | LinkageError | StackOverflowError e) {
            // a class the jar cannot load (a jar replaced under a running JVM, an older kafka-streams)
            // must not leave the application without an assignment either
            reason = FallbackReason.INTERNAL;
            detail = e.toString();
        }
        stats.fallback(reason);
        m.recordFallback(reason.name().toLowerCase());
        log.warn("rackwise: application {} falls back to Kafka's StickyTaskAssignor after {} us: {}: {}; {}", app,
            TimeUnit.NANOSECONDS.toMicros(System.nanoTime() - start), reason.name().toLowerCase(), detail, stats);
        return fallback(applicationState);
    }

    private static String counts(TaskPlan plan) {
        int active = 0;
        int standby = 0;
        int warmup = 0;
        for (ClientAssignment a : plan.clients().values()) {
            active += a.activeCount();
            standby += a.standbyCount();
            warmup += a.warmupCount();
        }
        return active + " active, " + standby + " standby, " + warmup + " warm-up tasks";
    }

    @Override
    public void onAssignmentComputed(GroupAssignment assignment, GroupSubscription subscription, AssignmentError error) {
        if (error != AssignmentError.NONE) {
            log.error("rackwise: application {}: Kafka Streams reports assignment error {}", applicationId, error);
        }
    }

    /** Assignments computed and fallbacks by reason for an application in this JVM, or null if unknown. */
    public static AssignStats statsFor(String applicationId) {
        return STATS.get(applicationId);
    }

    /** Kafka's StickyTaskAssignor; if even that throws, every task active round robin, no standbys. */
    static TaskAssignment fallback(ApplicationState state) {
        try {
            return new StickyTaskAssignor().assign(state);
        } catch (RuntimeException e) {
            log.error("rackwise: Kafka's StickyTaskAssignor failed too ({}); assigning actives round robin", e.toString());
        }
        List<ProcessId> processes = new ArrayList<>(new java.util.TreeSet<>(state.kafkaStreamsStates(false).keySet()));
        Map<ProcessId, Set<AssignedTask>> tasks = new HashMap<>();
        processes.forEach(p -> tasks.put(p, new HashSet<>()));
        int i = 0;
        for (TaskId task : new java.util.TreeSet<>(state.allTasks().keySet())) {
            if (!processes.isEmpty()) {
                tasks.get(processes.get(i++ % processes.size())).add(new AssignedTask(task, AssignedTask.Type.ACTIVE));
            }
        }
        List<KafkaStreamsAssignment> out = new ArrayList<>();
        tasks.forEach((p, t) -> out.add(KafkaStreamsAssignment.of(p, t)));
        return new TaskAssignment(out);
    }
}
