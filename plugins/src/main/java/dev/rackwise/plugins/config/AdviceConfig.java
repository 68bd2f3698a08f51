package dev.rackwise.plugins.config;

import java.util.Map;

import org.apache.kafka.common.config.ConfigException;

/**
 * The plug-ins' advice settings (docs/architecture.md § Advice):
 *
 * <pre>
 * rackwise.advice.topic              the agent's advice topic (rackwise.advice)
 * rackwise.advice.max.record.bytes   larger records are ignored (1048576)
 * rackwise.advice.max.age.ms         older advice is stale, not used (900000: three agent refreshes)
 * rackwise.advice.poll.ms            the reader thread's poll bound (1000)
 * rackwise.advice.retry.backoff.ms   first wait after a failure, doubling to 60000 (1000)
 * </pre>
 */
public record AdviceConfig(String topic, int maxRecordBytes, long maxAgeMs, long pollMs, long retryBackoffMs) {
    public static final String TOPIC = "rackwise.advice.topic";
    public static final String MAX_RECORD_BYTES = "rackwise.advice.max.record.bytes";
    public static final String MAX_AGE_MS = "rackwise.advice.max.age.ms";
    public static final String POLL_MS = "rackwise.advice.poll.ms";
    public static final String RETRY_BACKOFF_MS = "rackwise.advice.retry.backoff.ms";
    public static final String DEFAULT_TOPIC = "rackwise.advice";
    public static final int DEFAULT_MAX_RECORD_BYTES = 1 << 20;
    public static final long DEFAULT_MAX_AGE_MS = 900_000;
    public static final long MAX_BACKOFF_MS = 60_000;

    public static final AdviceConfig DEFAULTS = new AdviceConfig(DEFAULT_TOPIC, DEFAULT_MAX_RECORD_BYTES,
        DEFAULT_MAX_AGE_MS, 1000, 1000);

    public AdviceConfig {
        if (topic == null || topic.isBlank()) {
            throw new ConfigException(TOPIC, topic, "must name a topic");
        }
        if (maxRecordBytes <= 0 || maxAgeMs <= 0 || pollMs <= 0 || retryBackoffMs <= 0) {
            throw new ConfigException("rackwise.advice.* sizes and times must be positive");
        }
    }

    /** The settings in a plug-in's {@code configure()} map, defaults for what is absent. */
    public static AdviceConfig parse(Map<String, ?> configs) {
        Object t = configs.get(TOPIC);
        String topic = t == null || t.toString().isBlank() ? DEFAULT_TOPIC : t.toString().trim();
        long bytes = ConfigNumbers.positive(configs, MAX_RECORD_BYTES, DEFAULT_MAX_RECORD_BYTES);
        if (bytes > Integer.MAX_VALUE) {
            throw new ConfigException(MAX_RECORD_BYTES, bytes, "must fit an int");
        }
        return new AdviceConfig(topic, (int) bytes, ConfigNumbers.positive(configs, MAX_AGE_MS, DEFAULT_MAX_AGE_MS),
            ConfigNumbers.positive(configs, POLL_MS, 1000), ConfigNumbers.positive(configs, RETRY_BACKOFF_MS, 1000));
    }
}
