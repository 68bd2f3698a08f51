package dev.rackwise.plugins.broker;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;

import dev.rackwise.core.Problem;
import dev.rackwise.core.Solution;
import dev.rackwise.plugins.RackwiseGroupAssignor;
import dev.rackwise.plugins.advice.AdviceView;
import dev.rackwise.plugins.publish.ComputedPlan;
import dev.rackwise.plugins.publish.PlanSink;
import dev.rackwise.plugins.transport.Settings;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.coordinator.group.api.assignor.GroupSpec;

/**
 * What the broker-side assignor holds besides the coordinator's inputs, shared per settings in
 * the broker JVM: topic names and group ids (one Admin), the agent's advice and the plan
 * publisher. Built in the background on first use, so the coordinator's thread never waits
 * for a client to start; until then assign() decides on Kafka's inputs alone.
 */
public final class BrokerLookups {
    private static final Map<Settings, CompletableFuture<BrokerLookups>> SHARED = new ConcurrentHashMap<>();

    private final TopicNames topicNames;
    private final GroupIds groupIds;
    private final AdviceView advice;
    private final PlanSink plans;

    public BrokerLookups(TopicNames topicNames, GroupIds groupIds, AdviceView advice, PlanSink plans) {
        this.topicNames = topicNames;
        this.groupIds = groupIds;
        this.advice = advice;
        this.plans = plans;
    }

    /** The lookups when built; null while they are being built (the first call starts that). */
    public static BrokerLookups readyOrStart(Settings settings) {
        CompletableFuture<BrokerLookups> f = SHARED.computeIfAbsent(settings,
            s -> CompletableFuture.supplyAsync(() -> create(s)));
        if (!f.isDone()) {
            return null;
        }
        try {
            return f.join();
        } catch (CompletionException e) {
            SHARED.remove(settings, f); // retried on the next call
            throw new IllegalStateException("cannot create the plug-in's Kafka clients: " + e.getCause(), e.getCause());
        }
    }

    private static BrokerLookups create(Settings settings) {
        Map<String, Object> a = new HashMap<>(settings.clientConfigs());
        a.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, settings.bootstrapServers());
        a.put(AdminClientConfig.CLIENT_ID_CONFIG, settings.clientId() + "-admin");
        Admin admin = Admin.create(a);
        AdminGroupIds groups = new AdminGroupIds(admin, RackwiseGroupAssignor.NAME, 1000, 5000,
            settings.clientId() + "-groups");
        groups.refreshSoon();
        return new BrokerLookups(new AdminTopicNames(admin), groups, AdviceView.NONE, PlanSink.NONE);
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
    public void report(String groupId, GroupSpec spec, Problem problem, Solution solution, Map<Uuid, String> names,
                       long micros, boolean followerFetching) {
        Map<String, String> byKey = new HashMap<>();
        names.forEach((id, name) -> byKey.put(id.toString(), name));
        plans.offer(new ComputedPlan(groupId, Set.copyOf(spec.memberIds()), problem, solution, byKey, "consumer",
            Map.of(), followerFetching, micros, System.currentTimeMillis()));
    }
}
