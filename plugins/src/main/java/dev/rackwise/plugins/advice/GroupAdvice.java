package dev.rackwise.plugins.advice;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The {@code group/<pattern>} advice record: one {@code planner.rules} entry of the agent,
 * for the groups whose id matches {@code pattern} (fnmatch). The lowest {@code priority}
 * among matching records wins. {@code config} holds the assignor's settings as JSON values
 * (Long, Double, Boolean, String), e.g. {@code traffic_cost}.
 */
public record GroupAdvice(String pattern, int priority, String assignor, Map<String, Object> config,
                          long updatedAtMs) {
    public GroupAdvice {
        config = Collections.unmodifiableMap(new LinkedHashMap<>(config));
    }

    public long ageMs(long nowMs) {
        return nowMs - updatedAtMs;
    }

    /** A number from {@code config}, or {@code dflt} when absent or not a number. */
    public double number(String name, double dflt) {
        return config.get(name) instanceof Number n ? n.doubleValue() : dflt;
    }
}
