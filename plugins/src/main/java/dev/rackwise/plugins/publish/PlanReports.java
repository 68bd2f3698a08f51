package dev.rackwise.plugins.publish;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

import dev.rackwise.core.MemberSpec;
import dev.rackwise.core.PartitionSpec;
import dev.rackwise.core.Problem;
import dev.rackwise.core.RackOptimal;
import dev.rackwise.core.Solution;
import dev.rackwise.core.TopicPartition;
import dev.rackwise.plugins.advice.AdviceView;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The plug-ins' side of "every plan stays visible": a {@link PlanSink} whose {@link #offer}
 * only queues (bounded, never blocks), and a daemon thread that turns each computed plan into
 * the plan contract and hands it to the {@link PlanPublisher}. Everything that costs anything
 * happens on that thread: the lower bound (the core again with α = 1, β = 0), names a broker
 * has not learnt yet (topic names, the group id: asked again for up to 30 s), bytes from the
 * advice.
 *
 * <p>Example: a broker computes group g1's target; offer() queues it in microseconds; a
 * moment later rackwise.plans has {@code {"group_id":"g1","reason":"assigned",...}}.
 */
public final class PlanReports implements PlanSink, AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(PlanReports.class);
    static final long RESOLVE_FOR_MS = 30_000;

    /** Names a plan's topic keys and group: what the plug-in could learn only in the background. */
    public interface Names {
        /** The topic's name for a problem's topic key (a topic id on a broker), or null not yet. */
        String topic(String key);

        /** The group of these members, when the caller did not know it. */
        Optional<String> group(java.util.Set<String> memberIds);
    }

    private final BlockingQueue<ComputedPlan> queue;
    private final PlanPublisher publisher;
    private final Names names;
    private final AdviceView advice;
    private final PlanGenerations generations = new PlanGenerations();
    private final AtomicLong dropped = new AtomicLong();
    private final AtomicLong unnamed = new AtomicLong();
    private final AtomicBoolean started = new AtomicBoolean();
    private volatile boolean closed;

    public PlanReports(int capacity, PlanPublisher publisher, Names names, AdviceView advice) {
        this.queue = new ArrayBlockingQueue<>(capacity);
        this.publisher = publisher;
        this.names = names;
        this.advice = advice;
    }

    /** Starts the converting thread and the publisher once. */
    public PlanReports start() {
        if (started.compareAndSet(false, true)) {
            publisher.start();
            Thread t = new Thread(this::run, "rackwise-plan-reports");
            t.setDaemon(true);
            t.start();
        }
        return this;
    }

    @Override
    public boolean offer(ComputedPlan plan) {
        if (closed || !queue.offer(plan)) {
            dropped.incrementAndGet();
            return false;
        }
        return true;
    }

    /** Plans dropped here (queue full) plus those the publisher dropped. */
    public long dropped() {
        return dropped.get() + publisher.dropped();
    }

    public long published() {
        return publisher.published();
    }

    public long failed() {
        return publisher.failed();
    }

    /** Plans given up because a topic or the group could not be named in time. */
    public long unnamed() {
        return unnamed.get();
    }

    private void run() {
        // Plans whose group or topics cannot be named yet wait here, so one unnamed group never
        // holds back the others; each is given up RESOLVE_FOR_MS after it was computed.
        java.util.ArrayDeque<ComputedPlan> waiting = new java.util.ArrayDeque<>();
        while (!closed) {
            try {
                ComputedPlan plan = queue.poll(waiting.isEmpty() ? 500 : 250, TimeUnit.MILLISECONDS);
                if (plan != null) {
                    publishOrWait(plan, waiting);
                }
                for (int i = waiting.size(); i > 0 && !closed; i--) {
                    publishOrWait(waiting.poll(), waiting);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (RuntimeException e) {
                log.warn("rackwise: a computed plan could not be reported: {}", e.toString());
            }
        }
    }

    private void publishOrWait(ComputedPlan plan, java.util.ArrayDeque<ComputedPlan> waiting) {
        String group = plan.groupId() != null ? plan.groupId() : names.group(plan.memberIds()).orElse(null);
        Function<String, String> name = key -> {
            String known = plan.topicNames().get(key);
            return known != null ? known : names.topic(key);
        };
        boolean named = group != null && plan.problem().topics().keySet().stream().allMatch(k -> name.apply(k) != null);
        if (named) {
            publisher.offer(convert(plan, group, name, advice, generations));
        } else if (System.currentTimeMillis() - plan.createdAtMs() < RESOLVE_FOR_MS && waiting.size() < 1000) {
            waiting.add(plan);
        } else {
            unnamed.incrementAndGet();
            log.info("rackwise: a computed plan is not published: its group or topics could not be named "
                + "within {} s", RESOLVE_FOR_MS / 1000);
        }
    }

    /** The plan contract's view of a computed plan (docs/architecture.md § The plan). */
    static PublishedPlan convert(ComputedPlan plan, String group, Function<String, String> name, AdviceView advice,
                                 PlanGenerations generations) {
        Problem problem = plan.problem();
        Solution solution = plan.solution();
        Map<String, MemberSpec> members = new LinkedHashMap<>();
        for (MemberSpec m : problem.members()) {
            members.put(m.id(), m);
        }
        List<PublishedPlan.Member> out = new ArrayList<>();
        for (MemberSpec m : members.values()) {
            List<PublishedPlan.Partition> parts = new ArrayList<>();
            for (TopicPartition tp : solution.assignment().getOrDefault(m.id(), List.of())) {
                if (plan.withheld().containsKey(tp)) {
                    continue;
                }
                PartitionSpec spec = problem.topics().get(tp.topic()).get(tp.partition());
                String topic = name.apply(tp.topic());
                parts.add(new PublishedPlan.Partition(topic, tp.partition(), spec.replicaRacks(),
                    crossRack(m, spec), spec.weight(), advice.bytesPerSecond(topic, tp.partition())));
            }
            out.add(new PublishedPlan.Member(m.id(), m.rack(), parts));
        }
        List<PublishedPlan.Withheld> held = new ArrayList<>();
        plan.withheld().forEach((tp, owner) -> {
            String target = solution.assignment().entrySet().stream()
                .filter(e -> e.getValue().contains(tp)).map(Map.Entry::getKey).findFirst().orElse(owner);
            held.add(new PublishedPlan.Withheld(name.apply(tp.topic()), tp.partition(), owner, target));
        });
        Problem.Builder b = Problem.builder().racks(problem.racks()).costs(1.0, 0.0);
        problem.members().forEach(b::member);
        problem.topics().forEach(b::topic);
        Problem bound = b.build();
        double lowerBound = RackOptimal.solve(bound).cost();
        Map<String, Object> config = new LinkedHashMap<>();
        config.put("traffic_cost", problem.trafficCost());
        config.put("non_overlap_cost", problem.moveCost());
        config.put("protocol", plan.protocol());
        config.put("follower_fetching", plan.followerFetching());
        config.put("assign_us", plan.assignMicros());
        return new PublishedPlan(group, generations.next(group, plan.createdAtMs()), PlanJson.REASON, "rack-optimal",
            config, plan.createdAtMs(), out, lowerBound, solution.moved(), held);
    }

    /** KIP-925's cross-rack, as a plan says it: only for a member whose rack is known. */
    static boolean crossRack(MemberSpec m, PartitionSpec p) {
        if (m.rack() == null) {
            return false;
        }
        if (m.readsFollowers()) {
            return !p.replicaRacks().isEmpty() && !p.replicaRacks().contains(m.rack());
        }
        return p.leaderRack() != null && !p.leaderRack().equals(m.rack());
    }

    @Override
    public void close() {
        closed = true;
        publisher.close();
    }
}
