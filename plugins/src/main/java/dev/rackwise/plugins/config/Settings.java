package dev.rackwise.plugins.config;

import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.apache.kafka.common.config.ConfigException;

/**
 * The {@code rackwise.*} settings every plug-in's background clients read (plugins/README.md § 4):
 *
 * <pre>
 * rackwise.bootstrap.servers   where the agent's topics are (default: the caller's own cluster)
 * rackwise.backoff.ms          the plan publisher's wait after a failed send (10000)
 * rackwise.plans.topic         where computed plans are reported (rackwise.plans)
 * rackwise.security.protocol, rackwise.sasl.*, rackwise.ssl.*   client security, overriding the inherited ones
 * </pre>
 *
 * {@code clientConfigs} holds what the plug-in's own producer, consumer and admin client get
 * besides the bootstrap servers (security settings).
 */
public record Settings(String bootstrapServers, long backoffMs, String plansTopic, Map<String, Object> clientConfigs,
                       String clientId) {
    public static final String PREFIX = "rackwise.";
    public static final String BOOTSTRAP = PREFIX + "bootstrap.servers";
    public static final String BACKOFF_MS = PREFIX + "backoff.ms";
    public static final String PLANS_TOPIC = PREFIX + "plans.topic";
    public static final String DEFAULT_PLANS_TOPIC = "rackwise.plans";
    public static final long DEFAULT_BACKOFF_MS = 10000;

    public Settings {
        clientConfigs = Collections.unmodifiableMap(new TreeMap<>(clientConfigs));
    }

    /**
     * Reads {@code configs}. {@code inherited} are client security settings taken from the caller
     * (rackwise.* ones override them); {@code defaultBootstrap} may be null, then
     * rackwise.bootstrap.servers is required.
     */
    public static Settings parse(Map<String, ?> configs, String defaultBootstrap, Map<String, Object> inherited,
                                 String clientId) {
        String bootstrap = string(configs.get(BOOTSTRAP));
        if (bootstrap == null || bootstrap.isBlank()) {
            bootstrap = defaultBootstrap;
        }
        if (bootstrap == null || bootstrap.isBlank()) {
            throw new ConfigException(BOOTSTRAP + " is required: the bootstrap servers of the cluster the rackwise agent reads");
        }
        long backoff = ConfigNumbers.positive(configs, BACKOFF_MS, DEFAULT_BACKOFF_MS);
        Map<String, Object> client = new TreeMap<>(inherited);
        for (Map.Entry<String, ?> e : configs.entrySet()) {
            String key = e.getKey();
            if (key.startsWith(PREFIX)) {
                String bare = key.substring(PREFIX.length());
                if (isSecurityKey(bare) && e.getValue() != null) {
                    client.put(bare, e.getValue());
                }
            }
        }
        String plans = string(configs.get(PLANS_TOPIC));
        return new Settings(bootstrap, backoff, plans == null || plans.isEmpty() ? DEFAULT_PLANS_TOPIC : plans,
            client, clientId);
    }

    /** security.protocol and every sasl.* / ssl.* client setting. */
    public static boolean isSecurityKey(String key) {
        return key.equals("security.protocol") || key.startsWith("sasl.") || key.startsWith("ssl.");
    }

    /** A config value as a string: lists (bootstrap.servers may be one) joined with commas. */
    public static String string(Object value) {
        if (value == null) {
            return null;
        }
        if (value instanceof List<?> list) {
            StringBuilder sb = new StringBuilder();
            for (Object o : list) {
                if (sb.length() > 0) {
                    sb.append(',');
                }
                sb.append(String.valueOf(o).trim());
            }
            return sb.toString();
        }
        return value.toString().trim();
    }

    /** The security settings among a plug-in's own configs, to inherit for its clients. */
    public static Map<String, Object> inheritedSecurity(Map<String, ?> configs) {
        Map<String, Object> inherited = new TreeMap<>();
        for (Map.Entry<String, ?> e : configs.entrySet()) {
            if (isSecurityKey(e.getKey()) && e.getValue() != null) {
                inherited.put(e.getKey(), e.getValue());
            }
        }
        return inherited;
    }
}
