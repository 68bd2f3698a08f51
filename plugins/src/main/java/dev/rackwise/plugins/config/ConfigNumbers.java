package dev.rackwise.plugins.config;

import java.util.Map;

import org.apache.kafka.common.config.ConfigException;

/**
 * The one reader of whole-number settings in a plug-in's {@code configure()} map: a Number or
 * its text, the default when absent, and a ConfigException naming the key for anything else.
 *
 * <p>Example: {@code positive(Map.of("rackwise.advice.poll.ms", "250"), "rackwise.advice.poll.ms", 1000)}
 * is 250; {@code "0"} or {@code "soon"} throw.
 */
public final class ConfigNumbers {
    private ConfigNumbers() {
    }

    /** A value above zero, or {@code dflt} when the key is absent. */
    public static long positive(Map<String, ?> configs, String key, long dflt) {
        return read(configs, key, dflt, false);
    }

    /** A value of zero or more, or {@code dflt} when the key is absent. */
    public static long notNegative(Map<String, ?> configs, String key, long dflt) {
        return read(configs, key, dflt, true);
    }

    private static long read(Map<String, ?> configs, String key, long dflt, boolean zeroOk) {
        Object v = configs.get(key);
        if (v == null) {
            return dflt;
        }
        long n;
        try {
            n = v instanceof Number num ? num.longValue() : Long.parseLong(v.toString().trim());
        } catch (NumberFormatException e) {
            throw new ConfigException(key, v, "must be a whole number");
        }
        if (n < 0 || (n == 0 && !zeroOk)) {
            throw new ConfigException(key, v, zeroOk ? "must not be negative" : "must be positive");
        }
        return n;
    }
}
