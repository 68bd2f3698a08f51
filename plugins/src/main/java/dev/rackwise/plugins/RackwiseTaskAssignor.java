package dev.rackwise.plugins;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

import dev.rackwise.plugins.streams.AssignStats;
import dev.rackwise.plugins.streams.FallbackReason;
import dev.rackwise.plugins.streams.StreamsAgentClient;
import dev.rackwise.plugins.streams.StreamsAgentClient.Result;
import dev.rackwise.plugins.streams.StreamsPlan;
import dev.rackwise.plugins.streams.StreamsRequest;
import dev.rackwise.plugins.streams.StreamsTranslator;
import dev.rackwise.plugins.transport.Settings;
import dev.rackwise.plugins.transport.Transport;
import dev.rackwise.plugins.transport.Transports;
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
 * A KIP-924 task assignor for Kafka Streams applications (classic rebalance protocol): the
 * group leader sends the application's state to the rackwise agent, which plans it with its
 * high-availability + rack-aware assignor (warm-ups, probing follow-ups, KIP-925 min_traffic or
 * balance_subtopology, KIP-708 client tags) and answers with a plan; the plan becomes the
 * application's {@link TaskAssignment}. Without a valid plan within {@code rackwise.timeout.ms}
 * it runs Kafka's own public {@link StickyTaskAssignor} on the same state (Kafka 4.3.1 has no
 * public KIP-924 HighAvailabilityTaskAssignor) and logs why. It never throws.
 *
 * <pre>
 * task.assignor.class=dev.rackwise.plugins.RackwiseTaskAssignor
 * client.rack=az1                              # each instance's rack (the consumer config)
 * main.consumer.rackwise.timeout.ms=5000       # rackwise.* reach the assignor with a consumer prefix
 * </pre>
 *
 * Kafka Streams creates and configures a new instance on every rebalance, with the leader's main
 * consumer configs (StreamsConfig.originals() of AssignorConfiguration): the clients, the back-off
 * and the counts are kept per application and settings in a static registry, so they outlive it.
 */
public class RackwiseTaskAssignor implements TaskAssignor {
    private static final Logger log = LoggerFactory.getLogger(RackwiseTaskAssignor.class);
    private static final Function<Settings, Transport> SHARED_TRANSPORTS = Transports::shared;
    private static final Map<List<Object>, StreamsAgentClient> CLIENTS = new ConcurrentHashMap<>();
    private static final Map<String, StreamsAgentClient> BY_APPLICATION = new ConcurrentHashMap<>();

    private final Function<Settings, Transport> transports;
    private String applicationId;
    private StreamsAgentClient client;
    private String configError = "configure() was not called";

    public RackwiseTaskAssignor() {
        this(SHARED_TRANSPORTS);
    }

    /** For tests: {@code transports} builds the transport for the parsed settings. */
    public RackwiseTaskAssignor(Function<Settings, Transport> transports) {
        this.transports = transports;
    }

    /**
     * Reads {@code application.id}, {@code bootstrap.servers} (the default for
     * rackwise.bootstrap.servers), the client security settings and every {@code rackwise.*} key.
     * A bad value is logged and makes every assign() fall back (not_configured): it is called in
     * the middle of a rebalance, where an exception would kill the stream thread.
     */
    @Override
    public void configure(Map<String, ?> configs) {
        try {
            applicationId = Settings.string(configs.get("application.id"));
            if (applicationId == null || applicationId.isEmpty()) {
                applicationId = Settings.string(configs.get("group.id"));
            }
            if (applicationId == null || applicationId.isEmpty()) {
                configError = "no application.id in the configs Kafka Streams passed";
                return;
            }
            Map<String, Object> inherited = new HashMap<>();
            for (Map.Entry<String, ?> e : configs.entrySet()) {
                if (Settings.isSecurityKey(e.getKey()) && e.getValue() != null) {
                    inherited.put(e.getKey(), e.getValue());
                }
            }
            String bootstrap = Settings.string(configs.get("bootstrap.servers"));
            Settings settings = Settings.parse(configs, bootstrap, inherited, "rackwise-streams-" + applicationId);
            client = CLIENTS.computeIfAbsent(List.of(settings, transports), k -> {
                log.info("rackwise task assignor for application {}: agent topics at {}, timeout {} ms, back-off {} ms",
                    applicationId, settings.bootstrapServers(), settings.timeoutMs(), settings.backoffMs());
                startInBackground(settings);
                return new StreamsAgentClient(() -> transports.apply(settings), settings.timeoutMs(),
                    settings.backoffMs(), System::currentTimeMillis);
            });
            BY_APPLICATION.put(applicationId, client);
            configError = null;
        } catch (ConfigException | IllegalArgumentException e) {
            configError = "bad rackwise settings: " + e.getMessage();
            log.error("rackwise task assignor for application {}: {}; Kafka's StickyTaskAssignor assigns instead",
                applicationId, configError);
        }
    }

    /**
     * Starts the clients and positions the reply reader now, on a daemon thread, so that a large
     * application's first rebalance does not spend its bound starting them.
     */
    private void startInBackground(Settings settings) {
        Thread t = new Thread(() -> {
            try {
                transports.apply(settings).warmUp(Math.max(settings.timeoutMs(), 5000));
            } catch (RuntimeException e) {
                log.warn("rackwise task assignor: the agent's topics could not be reached yet ({}); "
                    + "the first assign() tries again", e.toString());
            }
        }, "rackwise-streams-start");
        t.setDaemon(true);
        t.start();
    }

    /** The agent's plan as a TaskAssignment, or Kafka's StickyTaskAssignor's; never throws. */
    @Override
    public TaskAssignment assign(ApplicationState applicationState) {
        long start = System.nanoTime();
        Result result;
        StreamsRequest request = null;
        try {
            if (client == null) {
                result = Result.fallback(FallbackReason.NOT_CONFIGURED, configError);
            } else {
                request = StreamsRequest.of(applicationId, applicationState);
                result = client.request(request);
            }
        } catch (StreamsRequest.UnsupportedRequestException e) {
            result = Result.fallback(FallbackReason.UNRESOLVED, e.getMessage());
        } catch (RuntimeException e) {
            result = Result.fallback(FallbackReason.INTERNAL, e.toString());
        }
        if (result.usesPlan()) {
            try {
                TaskAssignment assignment = StreamsTranslator.assignment(request, result.plan(), Instant.now());
                AssignmentError error = TaskAssignmentUtils.validateTaskAssignment(applicationState, assignment);
                if (error == AssignmentError.NONE) {
                    client.record(result);
                    StreamsPlan plan = result.plan();
                    log.info("rackwise: application {} uses the agent's plan generation {} ({} active, {} standby, "
                            + "{} warm-up tasks on {} processes{}) after {} ms; {}", applicationId, plan.generation(),
                        plan.activeCount(), plan.standbyCount(), plan.warmupCount(), plan.processes().size(),
                        plan.followupMs() == null ? "" : ", probing rebalance in " + plan.followupMs() + " ms",
                        (System.nanoTime() - start) / 1_000_000, client.stats());
                    return assignment;
                }
                result = Result.fallback(FallbackReason.INVALID_PLAN, "Kafka Streams rejects plan generation "
                    + result.plan().generation() + ": " + error);
            } catch (RuntimeException e) {
                result = Result.fallback(FallbackReason.INTERNAL, e.toString());
            }
        }
        if (client != null) {
            client.record(result);
        }
        log.warn("rackwise: application {} falls back to Kafka's StickyTaskAssignor after {} ms: {}: {}; {}",
            applicationId, (System.nanoTime() - start) / 1_000_000, result.reason().name().toLowerCase(),
            result.detail(), client == null ? "not configured" : client.stats());
        return fallback(applicationState);
    }

    @Override
    public void onAssignmentComputed(GroupAssignment assignment, GroupSubscription subscription, AssignmentError error) {
        if (error != AssignmentError.NONE) {
            log.error("rackwise: application {}: Kafka Streams reports assignment error {}", applicationId, error);
        }
    }

    /** Plans used and fallbacks by reason for an application in this JVM, or null if unknown. */
    public static AssignStats statsFor(String applicationId) {
        StreamsAgentClient c = BY_APPLICATION.get(applicationId);
        return c == null ? null : c.stats();
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
