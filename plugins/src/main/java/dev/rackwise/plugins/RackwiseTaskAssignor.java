package dev.rackwise.plugins;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import dev.rackwise.plugins.streams.AssignStats;
import dev.rackwise.plugins.streams.FallbackReason;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.GroupAssignment;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.GroupSubscription;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.assignment.ApplicationState;
import org.apache.kafka.streams.processor.assignment.KafkaStreamsAssignment;
import org.apache.kafka.streams.processor.assignment.KafkaStreamsAssignment.AssignedTask;
import org.apache.kafka.streams.processor.assignment.ProcessId;
import org.apache.kafka.streams.processor.assignment.TaskAssignor;
import org.apache.kafka.streams.processor.assignment.assignors.StickyTaskAssignor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A KIP-924 task assignor for Kafka Streams applications (classic rebalance protocol). The
 * agent round trip is gone; until the in-process task core is wired in, every assignment is
 * Kafka's StickyTaskAssignor's, counted as an internal fallback. It never throws.
 */
public class RackwiseTaskAssignor implements TaskAssignor {
    private static final Logger log = LoggerFactory.getLogger(RackwiseTaskAssignor.class);
    private static final Map<String, AssignStats> STATS = new ConcurrentHashMap<>();

    private String applicationId;

    @Override
    public void configure(Map<String, ?> configs) {
        applicationId = Settings.string(configs.get("application.id"));
        if (applicationId == null || applicationId.isEmpty()) {
            applicationId = Settings.string(configs.get("group.id"));
        }
    }

    @Override
    public TaskAssignment assign(ApplicationState applicationState) {
        AssignStats stats = STATS.computeIfAbsent(String.valueOf(applicationId), k -> new AssignStats());
        stats.fallback(FallbackReason.INTERNAL);
        log.warn("rackwise: application {} uses Kafka's StickyTaskAssignor: the task core is not wired in; {}",
            applicationId, stats);
        return fallback(applicationState);
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
