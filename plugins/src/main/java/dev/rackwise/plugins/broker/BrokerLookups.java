package dev.rackwise.plugins.broker;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import dev.rackwise.core.Problem;
import dev.rackwise.core.Solution;
import dev.rackwise.plugins.config.PluginConfig;
import dev.rackwise.plugins.advice.AdviceReader;
import dev.rackwise.plugins.advice.AdviceView;
import dev.rackwise.plugins.advice.HeldAdvice;
import dev.rackwise.plugins.publish.ComputedPlan;
import dev.rackwise.plugins.publish.PlanPublisher;
import dev.rackwise.plugins.publish.PlanReports;
import dev.rackwise.plugins.publish.PlanSink;
import dev.rackwise.plugins.publish.TopicProbe;
import dev.rackwise.plugins.config.Settings;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.coordinator.group.api.assignor.GroupSpec;
import org.slf4j.LoggerFactory;

/**
 * What the broker-side assignor holds besides the coordinator's inputs, shared per settings in
 * the broker JVM: topic names and group ids (one Admin), the agent's advice and the plan
 * publisher. Built in the background on first use, so the coordinator's thread never waits
 * for a client to start; until then assign() decides on Kafka's inputs alone.
 */
public final class BrokerLookups {
    /**
     * The name the broker-side assignor registers under: brokers list it in
     * {@code group.consumer.assignors}, clients ask for it with {@code group.remote.assignor},
     * and the group ids looked up are those of groups using it.
     */
    public static final String ASSIGNOR_NAME = "rackwise";
    private static final Map<PluginConfig, CompletableFuture<BrokerLookups>> SHARED = new ConcurrentHashMap<>();
    // the names this JVM's rackwise broker assignors answer to: whose groups AdminGroupIds learns
    private static final Set<String> SERVED_NAMES = ConcurrentHashMap.newKeySet();

    private final TopicNames topicNames;
    private final GroupIds groupIds;
    private final AdviceView advice;
    private final PlanSink plans;
    private final HeldAdvice held;
    private final PlanReports reports;

    public BrokerLookups(TopicNames topicNames, GroupIds groupIds, AdviceView advice, PlanSink plans) {
        this(topicNames, groupIds, advice, plans, null, null);
    }

    private BrokerLookups(TopicNames topicNames, GroupIds groupIds, AdviceView advice, PlanSink plans,
                          HeldAdvice held, PlanReports reports) {
        this.topicNames = topicNames;
        this.groupIds = groupIds;
        this.advice = advice;
        this.plans = plans;
        this.held = held;
        this.reports = reports;
    }

    /** The advice reader's view, for the metrics (null in tests). */
    public HeldAdvice held() {
        return held;
    }

    /** The plan reports, for the metrics (null in tests). */
    public PlanReports reports() {
        return reports;
    }

    /**
     * Says that a rackwise assignor answering to {@code name} is configured in this JVM, so the
     * background lookups learn the member ids of groups that use that name ({@code rackwise},
     * or {@code uniform} for the drop-in). Called from configure(), before any assign().
     */
    public static void serves(String name) {
        SERVED_NAMES.add(name);
    }

    /** The lookups when built; null while they are being built (the first call starts that). */
    public static BrokerLookups readyOrStart(PluginConfig config) {
        CompletableFuture<BrokerLookups> f = SHARED.computeIfAbsent(config,
            c -> CompletableFuture.supplyAsync(() -> create(c)));
        if (!f.isDone()) {
            return null;
        }
        try {
            return f.join();
        } catch (CompletionException e) {
            SHARED.remove(config, f); // retried on the next call
            throw new IllegalStateException("cannot create the plug-in's Kafka clients: " + e.getCause(), e.getCause());
        }
    }

    private static BrokerLookups create(PluginConfig config) {
        Settings settings = config.settings();
        Map<String, Object> a = new HashMap<>(settings.clientConfigs());
        a.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, settings.bootstrapServers());
        a.put(AdminClientConfig.CLIENT_ID_CONFIG, settings.clientId() + "-admin");
        Admin admin = Admin.create(a);
        AdminGroupIds groups = new AdminGroupIds(admin, SERVED_NAMES, 1000, 5000,
            settings.clientId() + "-groups");
        groups.refreshSoon();
        AdminTopicNames names = new AdminTopicNames(admin);
        Map<String, Object> clients = new HashMap<>(settings.clientConfigs());
        clients.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, settings.bootstrapServers());
        clients.put(CommonClientConfigs.CLIENT_ID_CONFIG, settings.clientId());
        AdviceReader reader = new AdviceReader(config.advice(), AdviceReader.kafkaConsumers(clients));
        reader.start();
        HeldAdvice held = new HeldAdvice(reader, System::currentTimeMillis);
        PlanPublisher publisher = new PlanPublisher(settings.plansTopic(), PlanPublisher.DEFAULT_CAPACITY,
            PlanPublisher.kafkaProducers(clients), settings.backoffMs(), TopicProbe.kafka(clients));
        PlanReports reports = new PlanReports(PlanPublisher.DEFAULT_CAPACITY, publisher, new PlanReports.Names() {
            @Override
            public String topic(String key) {
                Uuid id = Uuid.fromString(key);
                return names.known(Set.of(id)).get(id);
            }

            @Override
            public Optional<String> group(Set<String> memberIds) {
                return groups.groupOf(memberIds);
            }
        }, held).start();
        LoggerFactory.getLogger(BrokerLookups.class).info("rackwise group assignor: background clients started "
            + "(topic names, group ids, advice from {}, plans to {})", config.advice().topic(), settings.plansTopic());
        return new BrokerLookups(names, groups, held, reports, held, reports);
    }

    public TopicNames topicNames() {
        return topicNames;
    }

    public GroupIds groupIds() {
        return groupIds;
    }

    public AdviceView advice() {
        return advice;
    }

    /** Hands a computed plan to the publisher; never blocks. */
    public void report(String groupId, GroupSpec spec, Supplier<Problem> problem, Supplier<Solution> solution,
                       Map<Uuid, String> names, long micros, boolean followerFetching) {
        Map<String, String> byKey = new HashMap<>();
        names.forEach((id, name) -> byKey.put(id.toString(), name));
        plans.offer(new ComputedPlan(groupId, Set.copyOf(spec.memberIds()), problem, solution, byKey, "consumer",
            Map.of(), followerFetching, micros, System.currentTimeMillis()));
    }
}
