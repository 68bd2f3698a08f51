package dev.rackwise.plugins.transport;

import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.apache.kafka.common.config.ConfigException;

/**
 * The {@code rackwise.*} settings both plug-ins read (plugins/README.md):
 *
 * <pre>
 * rackwise.bootstrap.servers   where the agent's topics are (default: the caller's own cluster)
 * rackwise.timeout.ms          the bound on one request (5000)
 * rackwise.backoff.ms          after a time-out or a transport failure, fall back at once for this long (10000; 0 = never)
 * rackwise.requests.topic / rackwise.plans.topic / rackwise.deadletter.topic
 * rackwise.security.protocol, rackwise.sasl.*, rackwise.ssl.*   client security, overriding the inherited ones
 * </pre>
 *
 * {@code clientConfigs} holds what the plug-in's own producer, consumer and admin client get
 * besides the bootstrap servers (security settings).
 */
public record Settings(String bootstrapServers, long timeoutMs, long backoffMs, String requestsTopic,
                       String plansTopic, String deadletterTopic, Map<String, Object> clientConfigs,
                       String clientId) {
    public static final String PREFIX = "rackwise.";
    public static final String BOOTSTRAP = PREFIX + "bootstrap.servers";
    public static final String TIMEOUT_MS = PREFIX + "timeout.ms";
    public static final String BACKOFF_MS = PREFIX + "backoff.ms";
    public static final String REQUESTS_TOPIC = PREFIX + "requests.topic";
    public static final String PLANS_TOPIC = PREFIX + "plans.topic";
    public static final String DEADLETTER_TOPIC = PREFIX + "deadletter.topic";
    public static final long DEFAULT_TIMEOUT_MS = 5000;
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
        long timeout = positiveLong(configs, TIMEOUT_MS, DEFAULT_TIMEOUT_MS, false);
        long backoff = positiveLong(configs, BACKOFF_MS, DEFAULT_BACKOFF_MS, true);
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
        return new Settings(bootstrap, timeout, backoff,
            topic(configs, REQUESTS_TOPIC, Contract.REQUESTS_TOPIC),
            topic(configs, PLANS_TOPIC, Contract.PLANS_TOPIC),
            topic(configs, DEADLETTER_TOPIC, Contract.DEADLETTER_TOPIC),
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

    private static String topic(Map<String, ?> configs, String key, String dflt) {
        String v = string(configs.get(key));
        return v == null || v.isEmpty() ? dflt : v;
    }

    private static long positiveLong(Map<String, ?> configs, String key, long dflt, boolean zeroOk) {
        Object v = configs.get(key);
        if (v == null) {
            return dflt;
        }
        long n;
        try {
            n = v instanceof Number num ? num.longValue() : Long.parseLong(v.toString().trim());
        } catch (NumberFormatException e) {
            throw new ConfigException(key, v, "must be a whole number of milliseconds");
        }
        if (n < 0 || (n == 0 && !zeroOk)) {
            throw new ConfigException(key, v, zeroOk ? "must not be negative" : "must be positive");
        }
        return n;
    }
}
