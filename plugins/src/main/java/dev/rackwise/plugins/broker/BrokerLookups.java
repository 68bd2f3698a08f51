package dev.rackwise.plugins.broker;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import dev.rackwise.plugins.RackwiseGroupAssignor;
import dev.rackwise.plugins.transport.Settings;
import dev.rackwise.plugins.transport.Transport;
import dev.rackwise.plugins.transport.Transports;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;

/**
 * What the broker-side assignor needs besides the request itself, created on first use and
 * shared per settings in the broker JVM: the transport, topic names and group ids (one Admin).
 */
public record BrokerLookups(Transport transport, TopicNames topicNames, GroupIds groupIds) {
    private static final Map<Settings, BrokerLookups> SHARED = new ConcurrentHashMap<>();

    public static BrokerLookups shared(Settings settings) {
        return SHARED.computeIfAbsent(settings, BrokerLookups::create);
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
        return new BrokerLookups(Transports.shared(settings), new AdminTopicNames(admin), groups);
    }
}
