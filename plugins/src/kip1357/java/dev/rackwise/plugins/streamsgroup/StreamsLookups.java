package dev.rackwise.plugins.streamsgroup;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import dev.rackwise.plugins.config.PluginConfig;
import dev.rackwise.plugins.advice.AdviceReader;
import dev.rackwise.plugins.advice.AdviceView;
import dev.rackwise.plugins.advice.HeldAdvice;
import dev.rackwise.plugins.publish.PlanGenerations;
import dev.rackwise.plugins.publish.PlanPublisher;
import dev.rackwise.plugins.publish.TopicProbe;
import dev.rackwise.plugins.config.Settings;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.GroupListing;
import org.apache.kafka.clients.admin.ListGroupsOptions;
import org.apache.kafka.clients.admin.StreamsGroupDescription;
import org.apache.kafka.clients.admin.StreamsGroupMemberDescription;
import org.apache.kafka.clients.admin.StreamsGroupSubtopologyDescription;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartitionInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the streams assignor learns off the coordinator's thread, shared per settings in the
 * broker JVM: member id → group id, each streams group's subtopologies (source and changelog
 * topics, from describeStreamsGroups) and those topics' replica racks (describeTopics), plus
 * the agent's advice. Used when the coordinator's own metadata is not handed over
 * ({@link CoordinatorTopology}), and for the group id (advice costs, log lines) in any case.
 *
 * <p>Never waited on inside assign(): a miss schedules a refresh and the call decides with what
 * is held. Refreshes run on one daemon thread, at most every {@link #MIN_INTERVAL_MS}.
 */
public final class StreamsLookups {
    static final long MIN_INTERVAL_MS = 2_000;
    static final long TIMEOUT_MS = 5_000;
    private static final Logger log = LoggerFactory.getLogger(StreamsLookups.class);
    private static final Map<PluginConfig, CompletableFuture<StreamsLookups>> SHARED = new ConcurrentHashMap<>();

    /** An immutable snapshot of what was learnt. */
    record Learnt(Map<String, String> groupOfMember, Map<String, SortedMap<String, TopologyView.Topics>> topologies,
                  Map<String, List<List<String>>> racks) {
        static final Learnt EMPTY = new Learnt(Map.of(), Map.of(), Map.of());
    }

    static final long RESOLVE_FOR_MS = 30_000;
    static final int MAX_PENDING_REPORTS = 1_000;

    private final Admin admin;
    private final AdviceView advice;
    private final HeldAdvice held;
    private final PlanPublisher publisher;
    private final PlanGenerations generations = new PlanGenerations();
    private final AtomicInteger pendingReports = new AtomicInteger();
    private final AtomicLong unpublished = new AtomicLong();
    private final ScheduledExecutorService reporter;
    private final ScheduledExecutorService worker;
    private final AtomicBoolean scheduled = new AtomicBoolean();
    private volatile Learnt learnt = Learnt.EMPTY;
    private volatile long lastRefreshMs;

    StreamsLookups(Admin admin, AdviceView advice, HeldAdvice held, PlanPublisher publisher) {
        this.admin = admin;
        this.advice = advice;
        this.held = held;
        this.publisher = publisher;
        this.worker = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "rackwise-streams-lookups");
            t.setDaemon(true);
            return t;
        });
        this.reporter = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "rackwise-streams-plan-reports");
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * Hands a computed assignment to the plan publisher (rackwise.plans); never blocks. The
     * conversion runs on a background thread; a group whose id is not learnt yet is asked again
     * every second for up to {@link #RESOLVE_FOR_MS}. At most {@link #MAX_PENDING_REPORTS} wait;
     * beyond, and for groups whose topics are unknown, the plan is counted as unpublished.
     */
    public void report(StreamsPlanReport report) {
        if (publisher == null || report.source() == RackSource.NONE
                || pendingReports.incrementAndGet() > MAX_PENDING_REPORTS) {
            if (publisher != null && report.source() != RackSource.NONE) {
                pendingReports.decrementAndGet();
            }
            unpublished.incrementAndGet();
            return;
        }
        try {
            reporter.execute(() -> publishOrRetry(report));
        } catch (RuntimeException e) {
            pendingReports.decrementAndGet();
            unpublished.incrementAndGet();
        }
    }

    private void publishOrRetry(StreamsPlanReport report) {
        try {
            String group = report.groupId() != null ? report.groupId()
                : groupOf(report.memberProcess().keySet()).orElse(null);
            if (group != null) {
                publisher.offer(report.toPlan(group, advice, generations));
            } else if (System.currentTimeMillis() - report.createdAtMs() < RESOLVE_FOR_MS) {
                reporter.schedule(() -> publishOrRetry(report), 1, TimeUnit.SECONDS);
                return; // still pending
            } else {
                unpublished.incrementAndGet();
                log.info("rackwise streams assignor: a computed plan is not published: its group could not be "
                    + "named within {} s", RESOLVE_FOR_MS / 1000);
            }
        } catch (RuntimeException e) {
            unpublished.incrementAndGet();
            log.warn("rackwise streams assignor: a computed plan could not be reported: {}", e.toString());
        }
        pendingReports.decrementAndGet();
    }

    /** The publisher, for the metrics (null in tests). */
    public PlanPublisher publisher() {
        return publisher;
    }

    /** Plans not published: topics unknown, group never named, too many waiting. */
    public long unpublished() {
        return unpublished.get();
    }

    /** For tests: a fixed snapshot, no clients. */
    static StreamsLookups fixed(Learnt learnt, AdviceView advice) {
        StreamsLookups s = new StreamsLookups(null, advice, null, null);
        s.learnt = learnt;
        return s;
    }

    /** The lookups when built; null while being built (the first call starts that). */
    public static StreamsLookups readyOrStart(PluginConfig config) {
        CompletableFuture<StreamsLookups> f = SHARED.computeIfAbsent(config,
            c -> CompletableFuture.supplyAsync(() -> create(c)));
        if (!f.isDone()) {
            return null;
        }
        try {
            return f.join();
        } catch (CompletionException e) {
            SHARED.remove(config, f);
            throw new IllegalStateException("cannot create the plug-in's Kafka clients: " + e.getCause(), e.getCause());
        }
    }

    private static StreamsLookups create(PluginConfig config) {
        Settings settings = config.settings();
        Map<String, Object> a = new HashMap<>(settings.clientConfigs());
        a.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, settings.bootstrapServers());
        a.put(AdminClientConfig.CLIENT_ID_CONFIG, settings.clientId() + "-streams-admin");
        Admin admin = Admin.create(a);
        Map<String, Object> clients = new HashMap<>(settings.clientConfigs());
        clients.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, settings.bootstrapServers());
        clients.put(CommonClientConfigs.CLIENT_ID_CONFIG, settings.clientId() + "-streams");
        AdviceReader reader = new AdviceReader(config.advice(), AdviceReader.kafkaConsumers(clients));
        reader.start();
        HeldAdvice held = new HeldAdvice(reader, System::currentTimeMillis);
        PlanPublisher publisher = new PlanPublisher(settings.plansTopic(), PlanPublisher.DEFAULT_CAPACITY,
            PlanPublisher.kafkaProducers(clients), settings.backoffMs(), TopicProbe.kafka(clients));
        publisher.start();
        StreamsLookups s = new StreamsLookups(admin, held, held, publisher);
        s.refreshSoon();
        log.info("rackwise streams assignor: background clients started (streams groups' topics and racks, "
            + "advice from {}, plans to {})", config.advice().topic(), settings.plansTopic());
        return s;
    }

    public AdviceView advice() {
        return advice;
    }

    /** The advice reader's view, for the metrics (null in tests). */
    public HeldAdvice held() {
        return held;
    }

    /** The group these members belong to (most votes), if learnt; a miss schedules a refresh. */
    public Optional<String> groupOf(Collection<String> memberIds) {
        Learnt l = learnt;
        Map<String, Integer> votes = new TreeMap<>();
        boolean miss = false;
        for (String m : memberIds) {
            String g = l.groupOfMember().get(m);
            if (g == null) {
                miss = true;
            } else {
                votes.merge(g, 1, Integer::sum);
            }
        }
        if (miss) {
            refreshSoon();
        }
        return votes.entrySet().stream().max(Map.Entry.comparingByValue()).map(Map.Entry::getKey);
    }

    /** The learnt topics and racks of this group, or {@link TopologyView#NONE} while not learnt. */
    public TopologyView topology(Optional<String> groupId) {
        Learnt l = learnt;
        SortedMap<String, TopologyView.Topics> subs = groupId.map(l.topologies()::get).orElse(null);
        if (subs == null || subs.isEmpty()) {
            refreshSoon();
            return TopologyView.NONE;
        }
        Map<String, List<List<String>>> racks = l.racks();
        return new TopologyView(RackSource.LEARNT, subs, (topic, p) -> {
            List<List<String>> parts = racks.get(topic);
            return parts == null || p >= parts.size() ? null : parts.get(p);
        });
    }

    /** Schedules a background refresh (at most one pending; MIN_INTERVAL_MS apart). */
    public void refreshSoon() {
        if (worker == null || admin == null || !scheduled.compareAndSet(false, true)) {
            return;
        }
        long delay = Math.max(200, lastRefreshMs + MIN_INTERVAL_MS - System.currentTimeMillis());
        try {
            worker.schedule(() -> {
                scheduled.set(false);
                lastRefreshMs = System.currentTimeMillis();
                try {
                    learnt = refresh();
                } catch (Exception e) {
                    log.warn("rackwise streams assignor: cannot learn streams groups' topics and racks: {}",
                        e.toString());
                }
            }, delay, TimeUnit.MILLISECONDS);
        } catch (RuntimeException e) {
            scheduled.set(false);
        }
    }

    private Learnt refresh() throws Exception {
        List<String> groups = new ArrayList<>();
        for (GroupListing g : admin.listGroups(ListGroupsOptions.forStreamsGroups()).all()
                .get(TIMEOUT_MS, TimeUnit.MILLISECONDS)) {
            groups.add(g.groupId());
        }
        Map<String, String> groupOfMember = new HashMap<>();
        Map<String, SortedMap<String, TopologyView.Topics>> topologies = new HashMap<>();
        TreeSet<String> topics = new TreeSet<>();
        if (!groups.isEmpty()) {
            Map<String, KafkaFuture<StreamsGroupDescription>> described =
                admin.describeStreamsGroups(groups).describedGroups();
            for (KafkaFuture<StreamsGroupDescription> f : described.values()) {
                StreamsGroupDescription d;
                try {
                    d = f.get(TIMEOUT_MS, TimeUnit.MILLISECONDS);
                } catch (Exception e) {
                    continue; // gone since the listing, or its coordinator is busy: next refresh
                }
                for (StreamsGroupMemberDescription m : d.members()) {
                    groupOfMember.put(m.memberId(), d.groupId());
                }
                SortedMap<String, TopologyView.Topics> subs = new TreeMap<>();
                for (StreamsGroupSubtopologyDescription s : d.subtopologies()) {
                    TreeSet<String> sources = new TreeSet<>(s.sourceTopics());
                    sources.addAll(s.repartitionSourceTopics().keySet());
                    subs.put(s.subtopologyId(), new TopologyView.Topics(sources, s.stateChangelogTopics().keySet()));
                    topics.addAll(sources);
                    topics.addAll(s.stateChangelogTopics().keySet());
                }
                topologies.put(d.groupId(), subs);
            }
        }
        Map<String, List<List<String>>> racks = new HashMap<>();
        if (!topics.isEmpty()) {
            Map<String, KafkaFuture<TopicDescription>> byName = admin.describeTopics(topics).topicNameValues();
            for (Map.Entry<String, KafkaFuture<TopicDescription>> e : byName.entrySet()) {
                TopicDescription td;
                try {
                    td = e.getValue().get(TIMEOUT_MS, TimeUnit.MILLISECONDS);
                } catch (Exception ex) {
                    continue; // not created yet (internal topics): next refresh
                }
                List<List<String>> parts = new ArrayList<>();
                for (TopicPartitionInfo p : td.partitions()) {
                    TreeSet<String> r = new TreeSet<>();
                    boolean unknown = false;
                    for (Node n : p.replicas()) {
                        if (n.hasRack()) {
                            r.add(n.rack());
                        } else {
                            unknown = true;
                        }
                    }
                    parts.add(unknown || r.isEmpty() ? null : List.copyOf(r));
                }
                racks.put(td.name(), parts);
            }
        }
        return new Learnt(Map.copyOf(groupOfMember), Map.copyOf(topologies), Map.copyOf(racks));
    }
}
