package dev.rackwise.plugins.zone;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import org.apache.kafka.common.config.ConfigData;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.provider.ConfigProvider;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Kafka {@link ConfigProvider} that answers {@code ${zone:id}} and {@code ${zone:name}} with the
 * zone this JVM runs in, so {@code client.rack=${zone:id}} is resolved when the client starts:
 *
 * <pre>
 * config.providers=zone
 * config.providers.zone.class=dev.rackwise.plugins.zone.ZoneConfigProvider
 * client.rack=${zone:id}
 * </pre>
 *
 * {@code id} is AWS's zone ID (use1-az1, what MSK's broker.rack uses) or the zone any other source
 * gives; {@code name} is AWS's zone name (us-east-1a), the same as {@code id} elsewhere. Sources,
 * settings ({@code config.providers.zone.param.*} or {@code RACKWISE_ZONE*}) and the failure
 * message are those of agent/member/zone.py (docs/member.md). When no source answers, get() throws a
 * ConfigException listing every source, and the client does not start.
 */
public final class ZoneConfigProvider implements ConfigProvider {
    private static final Logger log = LoggerFactory.getLogger(ZoneConfigProvider.class);
    public static final String ID = "id";
    public static final String NAME = "name";

    private final Map<String, String> env;
    private ZoneDetector detector;
    // One detection per key per provider: Kafka builds a provider per config it resolves and
    // closes it afterwards, so a ${zone:id} used twice asks the metadata service once.
    private final Map<String, String> answers = new HashMap<>();

    public ZoneConfigProvider() {
        this(System.getenv());
    }

    ZoneConfigProvider(Map<String, String> env) {
        this.env = Map.copyOf(env);
    }

    @Override
    public void configure(Map<String, ?> configs) {
        detector = new ZoneDetector(ZoneSettings.from(configs, env));
    }

    @Override
    public ConfigData get(String path) {
        return get(path, Set.of(ID, NAME));
    }

    @Override
    public ConfigData get(String path, Set<String> keys) {
        if (path != null && !path.isEmpty()) {
            throw new ConfigException("zone config provider: no path expected (write ${zone:id}), got '" + path + "'");
        }
        if (detector == null) configure(Map.of());
        Map<String, String> data = new HashMap<>();
        for (String key : new TreeSet<>(keys)) {
            if (!key.equals(ID) && !key.equals(NAME)) {
                throw new ConfigException("zone config provider: unknown key '" + key + "' (use ${zone:id} or ${zone:name})");
            }
            data.put(key, answers.computeIfAbsent(key, this::detect));
        }
        return new ConfigData(data);
    }

    private String detect(String key) {
        try {
            ZoneDetector.Result r = detector.detect(key.equals(NAME));
            log.info("rackwise: zone {} from {} ({}) for {}", r.zone(), r.source(), r.detail(), "${zone:" + key + "}");
            return r.zone();
        } catch (ZoneDetector.NoZoneException e) {
            throw new ConfigException("zone config provider: " + e.getMessage());
        }
    }

    @Override
    public void close() {
        detector = null;
    }
}
