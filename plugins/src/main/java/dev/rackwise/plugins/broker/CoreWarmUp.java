package dev.rackwise.plugins.broker;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;

import dev.rackwise.core.IndexedSolution;
import dev.rackwise.core.RackOptimal;
import dev.rackwise.plugins.advice.AdviceView;
import dev.rackwise.plugins.advice.GroupCosts;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.coordinator.group.api.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.api.assignor.GroupSpec;
import org.apache.kafka.coordinator.group.api.assignor.MemberAssignment;
import org.apache.kafka.coordinator.group.api.assignor.SubscribedTopicDescriber;
import org.apache.kafka.coordinator.group.api.assignor.SubscriptionType;
import org.apache.kafka.coordinator.group.modern.Assignment;
import org.apache.kafka.coordinator.group.modern.GroupSpecImpl;
import org.apache.kafka.coordinator.group.modern.MemberSubscriptionAndAssignmentImpl;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Compiles the broker assignor's path once per JVM, on its own thread, before the groups need
 * it. A broker computes a group's target assignment a handful of times, far too few for the
 * JIT: measured in fresh JVMs, a 30-member group over 600 partitions took a median of 2.7-2.9 ms
 * a call over its first 30 calls, and 1.0-1.3 ms with this warm-up (Kafka's {@code uniform}:
 * 0.7 ms; bench/README.md, "Cold calls"). So on the first assign() this runs
 * the same adapter and core ({@link BrokerProblem}, {@link RackOptimal}) on synthetic groups
 * built from Kafka's own spec classes, the way the coordinator builds them: homogeneous and
 * heterogeneous, full and incremental, weighted and by count, with and without racks.
 *
 * <p>It takes at most {@code budgetMs} of its own thread's CPU (rounds of every group until
 * then), touches nothing shared (no advice, no plans, no metrics, no network), never runs on
 * a Kafka thread, and gives up silently on any error: a broker without the warm-up only pays
 * slower first calls. {@code rackwise.warmup.ms} sets the budget; 0, the default, turns it off
 * (its CPU lands when the first group assigns, beside the coordinator: plugins/README.md § 3).
 */
public final class CoreWarmUp {
    /** The broker config that sets the budget in ms of CPU (0: no warm-up). */
    public static final String BUDGET_MS = "rackwise.warmup.ms";
    public static final long DEFAULT_BUDGET_MS = 0;
    /** Rounds over every group at most: past this the path is compiled whatever the budget. */
    static final int MAX_ROUNDS = 200;
    private static final Logger log = LoggerFactory.getLogger(CoreWarmUp.class);
    private static final AtomicBoolean STARTED = new AtomicBoolean();
    private static final AtomicBoolean PRIMED = new AtomicBoolean();

    private CoreWarmUp() {
    }

    /**
     * Starts the JVM's one warm-up thread, the first time only (a daemon at minimum priority);
     * returns at once and never throws. {@code followerFetching} is this broker's setting, so the warm-up runs
     * the branch its groups will.
     */
    public static void startOnce(long budgetMs, boolean followerFetching) {
        if (budgetMs <= 0 || !STARTED.compareAndSet(false, true)) {
            return;
        }
        try {
            Thread t = new Thread(() -> run(budgetMs, followerFetching), "rackwise-warm-up");
            t.setDaemon(true);
            t.setPriority(Thread.MIN_PRIORITY);
            t.start();
        } catch (RuntimeException | OutOfMemoryError e) {
            // no thread to be had (a JVM at its thread limit): assign() goes on without a warm-up
            log.info("rackwise: core warm-up not started: {}", e.toString());
        }
    }

    /**
     * Once per JVM, on the calling thread (the broker's start-up, from configure()): a few calls
     * on two tiny groups, so that the first real assign() does not load, verify and link the
     * path's classes (lambdas and string concatenations included) on the coordinator's thread.
     * In fresh JVMs a 5-member group's first call took 30-37 ms unprimed and 2.5-3.7 ms primed,
     * its next ones 1.3-2.5 ms (bench/README.md, "Cold calls", priming); unprimed, a broker's
     * shard waits that long, neighbours' commits with it.
     * It compiles nothing (far too few calls for the JIT), starts no thread and touches nothing
     * shared; returns the calls' wall time in ms, or -1 if already primed or on any error (the
     * broker then only pays the slower first call).
     */
    public static double prime(boolean followerFetching) {
        return PRIMED.compareAndSet(false, true) ? primeNow(followerFetching) : -1;
    }

    /** The calls {@link #prime} makes, whether or not made before: their wall ms, or -1 on an error. */
    static double primeNow(boolean followerFetching) {
        long start = System.nanoTime();
        try {
            List<Group> groups = List.of(
                new Group(new Shape(6, 2, 24, false, false, false, false, 5)),
                new Group(new Shape(7, 3, 30, true, true, true, true, 6)));
            for (Group g : groups) {
                g.assign(followerFetching);
                g.assign(followerFetching);
            }
            return (System.nanoTime() - start) / 1e6;
        } catch (RuntimeException | LinkageError e) {
            log.info("rackwise: core not primed: {}", e.toString());
            return -1;
        }
    }

    /** What a warm-up did: rounds over the groups, its thread's CPU in ms, whether a group failed. */
    public record Outcome(int rounds, long cpuMs, boolean failed) {
    }

    /** Runs the warm-up on the calling thread (the thread above; tests). */
    public static Outcome run(long budgetMs, boolean followerFetching) {
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        // this thread's CPU where the JVM measures it, else the wall clock
        LongSupplier clock = mx.isCurrentThreadCpuTimeSupported() ? mx::getCurrentThreadCpuTime : System::nanoTime;
        long start = clock.getAsLong();
        int rounds = 0;
        try {
            List<Shape> shapes = List.of(
                new Shape(60, 20, 1_800, true, true, false, false, 1),
                new Shape(90, 30, 1_800, false, false, false, false, 2),
                new Shape(40, 8, 1_200, false, true, true, false, 3),
                new Shape(50, 12, 1_500, true, false, false, true, 4));
            List<Group> groups = new ArrayList<>();
            for (Shape s : shapes) {
                groups.add(new Group(s));
            }
            long budgetNs = budgetMs * 1_000_000L;
            while (rounds < MAX_ROUNDS) {
                for (Group g : groups) {
                    g.assign(followerFetching);
                }
                rounds++;
                if (clock.getAsLong() - start >= budgetNs) {
                    break;
                }
            }
            long ms = (clock.getAsLong() - start) / 1_000_000L;
            log.info("rackwise: core warmed up on its own thread: {} rounds of {} synthetic groups, {} ms of CPU "
                + "({}={})", rounds, groups.size(), ms, BUDGET_MS, budgetMs);
            return new Outcome(rounds, ms, false);
        } catch (RuntimeException | LinkageError e) {
            // a broker whose internal spec classes differ: no warm-up, nothing else changes
            log.info("rackwise: core warm-up skipped after {} rounds: {}", rounds, e.toString());
            return new Outcome(rounds, (clock.getAsLong() - start) / 1_000_000L, true);
        }
    }

    /**
     * A synthetic group: {@code members} members over {@code topics} topics of {@code partitions}
     * partitions in all, 3 racks and RF 2; heterogeneous: members and topics in 3 buckets;
     * incremental: the last member joins a group that holds the rest's assignment; weighted:
     * advice weights every partition; rackless: every fourth member has no rack.
     */
    record Shape(int members, int topics, int partitions, boolean heterogeneous, boolean incremental,
                 boolean weighted, boolean rackless, long seed) {
    }

    /** A shape's spec and describer, and the current target it holds between calls. */
    private static final class Group {
        private static final String[] RACKS = {"warmup-rack-a", "warmup-rack-b", "warmup-rack-c"};
        private final Shape shape;
        private final Uuid[] ids;
        private final Map<Uuid, String> names = new HashMap<>();
        private final Map<Uuid, List<List<String>>> racks = new HashMap<>();
        private final Map<Uuid, double[]> weights = new HashMap<>();
        private final List<Set<Uuid>> subscriptions = new ArrayList<>();
        private final SubscribedTopicDescriber describer;
        private final AdviceView advice;
        private GroupAssignment held;

        Group(Shape s) {
            shape = s;
            java.util.Random rnd = new java.util.Random(s.seed());
            ids = new Uuid[s.topics()];
            int per = Math.max(1, s.partitions() / s.topics());
            for (int t = 0; t < s.topics(); t++) {
                ids[t] = new Uuid(rnd.nextLong() | 1L, rnd.nextLong());
                names.put(ids[t], "warmup-topic-" + t);
                List<List<String>> parts = new ArrayList<>(per);
                double[] w = new double[per];
                for (int p = 0; p < per; p++) {
                    int a = rnd.nextInt(3);
                    int b = (a + 1 + rnd.nextInt(2)) % 3;
                    parts.add(List.of(RACKS[a], RACKS[b]));
                    w[p] = 1_000 + rnd.nextInt(9_000);
                }
                racks.put(ids[t], parts);
                weights.put(ids[t], w);
            }
            int buckets = s.heterogeneous() ? 3 : 1;
            for (int b = 0; b < buckets; b++) {
                Set<Uuid> sub = new HashSet<>();
                for (int t = 0; t < s.topics(); t++) {
                    if (t % buckets == b) {
                        sub.add(ids[t]);
                    }
                }
                subscriptions.add(sub);
            }
            describer = new SubscribedTopicDescriber() {
                @Override
                public int numPartitions(Uuid topicId) {
                    List<List<String>> parts = racks.get(topicId);
                    return parts == null ? -1 : parts.size();
                }

                @Override
                public Set<String> racksForPartition(Uuid topicId, int partition) {
                    List<List<String>> parts = racks.get(topicId);
                    // a new set per call, as the broker's own describer hands out
                    return parts == null ? Set.of() : new HashSet<>(parts.get(partition));
                }
            };
            advice = !s.weighted() ? AdviceView.NONE : new AdviceView() {
                private final Map<String, double[]> byName = new HashMap<>();

                {
                    weights.forEach((id, w) -> byName.put(names.get(id), w));
                }

                @Override
                public double weight(String topic, int partition) {
                    double[] w = byName.get(topic);
                    return w == null ? 1.0 : w[partition];
                }
            };
        }

        /** One assign() as the broker assignor makes it; the next call holds this one's result. */
        void assign(boolean followerFetching) {
            GroupSpec spec = spec(shape.incremental() ? held : null);
            BrokerProblem.Indexed problem = BrokerProblem.indexed(spec, describer,
                shape.weighted() ? names : Map.of(), advice, GroupCosts.DEFAULT, followerFetching, Long.MAX_VALUE);
            IndexedSolution solution = RackOptimal.solve(problem.problem());
            GroupAssignment out = BrokerProblem.assignment(problem, solution);
            if (held == null) {
                held = out;
            }
        }

        /** The members (the last one joining when incremental), each holding its part of {@code current}. */
        private GroupSpec spec(GroupAssignment current) {
            Map<String, MemberSubscriptionAndAssignmentImpl> members = new HashMap<>();
            Map<Uuid, Map<Integer, String>> owners = new HashMap<>();
            int n = shape.incremental() && current == null ? shape.members() - 1 : shape.members();
            for (int i = 0; i < n; i++) {
                String id = "warmup-member-" + i;
                Map<Uuid, Set<Integer>> parts = new HashMap<>();
                MemberAssignment was = current == null ? null : current.members().get(id);
                if (was != null) {
                    // as the coordinator holds a target it has replayed: its own maps and sets
                    was.partitions().forEach((t, ps) -> {
                        parts.put(t, new HashSet<>(ps));
                        Map<Integer, String> byPartition = owners.computeIfAbsent(t, x -> new HashMap<>());
                        for (int p : ps) {
                            byPartition.put(p, id);
                        }
                    });
                }
                Optional<String> rack = shape.rackless() && i % 4 == 3 ? Optional.empty()
                    : Optional.of(RACKS[i % 3]);
                members.put(id, new MemberSubscriptionAndAssignmentImpl(rack, Optional.empty(),
                    subscriptions.get(i % subscriptions.size()), new Assignment(parts)));
            }
            return new GroupSpecImpl(members,
                shape.heterogeneous() ? SubscriptionType.HETEROGENEOUS : SubscriptionType.HOMOGENEOUS, owners);
        }
    }
}
