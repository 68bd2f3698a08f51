package dev.rackwise.plugins.broker;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;

import dev.rackwise.plugins.RackwiseGroupAssignor;
import dev.rackwise.plugins.transport.Settings;
import dev.rackwise.plugins.transport.Transport;
import dev.rackwise.plugins.transport.Transports;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;

/**
 * What the broker-side assignor needs besides the request itself, shared per settings in the
 * broker JVM: the transport, topic names and group ids (one Admin). Built in the background on
 * first use, so the group coordinator's thread never waits for client start-up.
 */
public record BrokerLookups(Transport transport, TopicNames topicNames, GroupIds groupIds) {
    private static final Map<Settings, CompletableFuture<BrokerLookups>> SHARED = new ConcurrentHashMap<>();

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
        a.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) Math.max(settings.timeoutMs(), 1000));
        a.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) Math.max(settings.timeoutMs(), 1000));
        Admin admin = Admin.create(a);
        AdminGroupIds groups = new AdminGroupIds(admin, RackwiseGroupAssignor.NAME, 1000,
            Math.max(settings.timeoutMs(), 5000), settings.clientId() + "-groups");
        groups.refreshSoon();
        Transport transport = Transports.shared(settings);
        // Still in the background: the coordinator falls back (not_ready) until this returns,
        // and the first request then needs no metadata or seek of its own.
        transport.warmUp(Math.max(settings.timeoutMs(), 5000));
        return new BrokerLookups(transport, new AdminTopicNames(admin), groups);
    }
}
