package dev.rackwise.plugins.streams;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import dev.rackwise.core.TopicPartition;
import dev.rackwise.plugins.advice.AdviceView;
import dev.rackwise.plugins.publish.PlanGenerations;
import dev.rackwise.plugins.publish.PlanJson;
import dev.rackwise.plugins.publish.PlanPublisher;
import dev.rackwise.plugins.publish.PublishedPlan;
import dev.rackwise.tasks.ClientAssignment;
import dev.rackwise.tasks.ClientSpec;
import dev.rackwise.tasks.TaskId;
import dev.rackwise.tasks.TaskPlan;
import dev.rackwise.tasks.TaskProblem;
import dev.rackwise.tasks.TaskSpec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The task assignor's side of "every plan stays visible": {@link #offer} only queues (bounded,
 * never blocks; a full queue drops and counts), and a daemon thread ({@code rackwise-streams-plan-reports})
 * turns each computed plan into the plan contract, kind {@code streams} (docs/architecture.md
 * § The plan; assignor/streams/plan.py fills a Streams plan the same way), and hands it to the
 * {@link PlanPublisher} the consumer plug-ins use.
 *
 * <p>Members are the processes in Kafka's order, each with its active, standby and warm-up tasks
 * and, as partitions, its actives' source partitions (what the metrics job prices). Summary:
 * cross-rack partitions and traffic cost count those source partitions with no replica in the
 * process's rack (weights: the advice's relative bytes/s, 1 when not measured); lower bound:
 * the least such count with the same active tasks per rack ({@link ActiveBound}), null when a
 * rack is unknown; load: active tasks per process; moved: source partitions of actives whose
 * process changed; standby rack diversity: mean distinct racks over each stateful task's copies.
 */
public final class StreamsPlanReports implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(StreamsPlanReports.class);
    public static final String ASSIGNOR = "high-availability";

    private final BlockingQueue<ComputedTaskPlan> queue;
    private final PlanPublisher publisher;
    private final AdviceView advice;
    private final PlanGenerations generations = new PlanGenerations();
    private final AtomicLong dropped = new AtomicLong();
    private final AtomicBoolean started = new AtomicBoolean();
    private volatile boolean closed;

    public StreamsPlanReports(int capacity, PlanPublisher publisher, AdviceView advice) {
        this.queue = new ArrayBlockingQueue<>(capacity);
        this.publisher = publisher;
        this.advice = advice;
    }

    /** Starts the converting thread and the publisher once. */
    public StreamsPlanReports start() {
        if (started.compareAndSet(false, true)) {
            publisher.start();
            Thread t = new Thread(this::run, "rackwise-streams-plan-reports");
            t.setDaemon(true);
            t.start();
        }
        return this;
    }

    /** Queues the plan; false (counted) when the queue is full or closed. Never blocks. */
    public boolean offer(ComputedTaskPlan plan) {
        if (closed || !queue.offer(plan)) {
            dropped.incrementAndGet();
            return false;
        }
        return true;
    }

    public long dropped() {
        return dropped.get() + publisher.dropped();
    }

    /** Plans waiting for the converting thread (tests). */
    int queued() {
        return queue.size();
    }

    public long published() {
        return publisher.published();
    }

    public long failed() {
        return publisher.failed();
    }

    private void run() {
        while (!closed) {
            try {
                ComputedTaskPlan plan = queue.poll(500, TimeUnit.MILLISECONDS);
                if (plan != null) {
                    publisher.offer(convert(plan, advice, generations));
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (RuntimeException e) {
                log.warn("rackwise: a computed Streams plan could not be reported: {}", e.toString());
            }
        }
    }

    /** The plan contract's view of one computed Streams assignment. */
    public static PublishedPlan convert(ComputedTaskPlan computed, AdviceView advice, PlanGenerations generations) {
        TaskProblem problem = computed.input().problem();
        TaskPlan plan = computed.plan();
        Map<TopicPartition, List<String>> racks = computed.input().racks();
        Map<TaskId, String> previousOwner = new HashMap<>();
        for (ClientSpec c : problem.clients().values()) {
            c.previousActive().forEach(t -> previousOwner.put(t, c.processId()));
        }
        List<PublishedPlan.Member> members = new ArrayList<>();
        int moved = 0;
        Map<String, Integer> perRack = new TreeMap<>();
        for (String pid : computed.input().processes().keySet()) {
            ClientSpec client = problem.clients().get(pid);
            ClientAssignment given = plan.client(pid);
            List<TaskId> active = given == null ? List.of() : given.active();
            List<PublishedPlan.Partition> parts = new ArrayList<>();
            for (TaskId t : active) {
                TaskSpec spec = problem.tasks().get(t);
                for (TopicPartition tp : spec.sourcePartitions()) {
                    List<String> r = racks.getOrDefault(tp, List.of());
                    boolean cross = client.rack() != null && !r.isEmpty() && !r.contains(client.rack());
                    parts.add(new PublishedPlan.Partition(tp.topic(), tp.partition(), r, cross,
                        advice.weight(tp.topic(), tp.partition()), advice.bytesPerSecond(tp.topic(), tp.partition())));
                }
                String before = previousOwner.get(t);
                if (before != null && !before.equals(pid)) {
                    moved += spec.sourcePartitions().size();
                }
            }
            perRack.merge(String.valueOf(client.rack()), active.size(), Integer::sum);
            members.add(new PublishedPlan.Member(pid, client.rack(), parts, new PublishedPlan.Tasks(pid,
                strings(active), strings(given == null ? List.of() : given.standby()),
                strings(given == null ? List.of() : given.warmup()))));
        }
        Map<String, Object> config = new LinkedHashMap<>();
        var c = problem.config();
        config.put("rack_aware_assignment_strategy", c.rackAwareStrategy().configValue());
        config.put("rack_aware_assignment_strategy_configured", computed.input().strategy());
        config.put("rack_aware_assignment_traffic_cost", c.effectiveTrafficCost());
        config.put("rack_aware_assignment_non_overlap_cost", c.effectiveNonOverlapCost());
        config.put("num_standby_replicas", c.numStandbyReplicas());
        config.put("acceptable_recovery_lag", c.acceptableRecoveryLag());
        config.put("max_warmup_replicas", c.maxWarmupReplicas());
        config.put("probing_rebalance_interval_ms", c.probingRebalanceIntervalMs());
        config.put("rack_aware_enabled", plan.rackAware());
        config.put("rack_aware_reason", plan.rackAwareReason());
        config.put("racks", computed.input().rackSources().toString());
        config.put("weights_from_advice", computed.input().weighted());
        config.put("rack_aware_assignment_tags", c.rackAwareTags());
        config.put("assign_us", computed.assignMicros());
        return new PublishedPlan(computed.applicationId(), generations.next(computed.applicationId(),
            computed.createdAtMs()), PlanJson.REASON, ASSIGNOR, config, computed.createdAtMs(), members,
            lowerBound(problem, racks, perRack), moved, List.of(), PublishedPlan.STREAMS,
            plan.followupNeeded() ? c.probingRebalanceIntervalMs() : null, diversity(problem, plan));
    }

    private static List<String> strings(List<TaskId> ids) {
        List<String> out = new ArrayList<>(ids.size());
        ids.forEach(t -> out.add(t.toString()));
        return out;
    }

    /** Null when a client's rack or a source partition's racks are unknown. */
    static Double lowerBound(TaskProblem problem, Map<TopicPartition, List<String>> racks,
                             Map<String, Integer> activesPerRack) {
        if (activesPerRack.containsKey("null")) {
            return null;
        }
        List<String> rackNames = new ArrayList<>(activesPerRack.keySet());
        List<int[]> costs = new ArrayList<>();
        for (TaskSpec t : problem.tasks().values()) {
            int[] row = new int[rackNames.size()];
            for (TopicPartition tp : t.sourcePartitions()) {
                List<String> r = racks.get(tp);
                if (r == null || r.isEmpty()) {
                    return null;
                }
                for (int i = 0; i < rackNames.size(); i++) {
                    row[i] += r.contains(rackNames.get(i)) ? 0 : 1;
                }
            }
            costs.add(row);
        }
        return (double) ActiveBound.solve(costs, rackNames, activesPerRack);
    }

    /** Mean distinct racks over each stateful task's copies (active and standbys), or null. */
    static Double diversity(TaskProblem problem, TaskPlan plan) {
        if (problem.config().numStandbyReplicas() == 0) {
            return null;
        }
        Map<TaskId, Set<String>> copies = new TreeMap<>();
        for (TaskSpec t : problem.tasks().values()) {
            if (t.stateful()) {
                copies.put(t.id(), new TreeSet<>());
            }
        }
        if (copies.isEmpty()) {
            return null;
        }
        for (ClientAssignment a : plan.clients().values()) {
            String rack = problem.clients().get(a.processId()).rack();
            if (rack == null) {
                return null;
            }
            for (TaskId t : a.active()) {
                if (copies.containsKey(t)) {
                    copies.get(t).add(rack);
                }
            }
            for (TaskId t : a.standby()) {
                if (copies.containsKey(t)) {
                    copies.get(t).add(rack);
                }
            }
        }
        double sum = 0;
        for (Set<String> s : copies.values()) {
            sum += s.size();
        }
        return Math.round(sum / copies.size() * 1e6) / 1e6;
    }

    @Override
    public void close() {
        closed = true;
        publisher.close();
    }
}
