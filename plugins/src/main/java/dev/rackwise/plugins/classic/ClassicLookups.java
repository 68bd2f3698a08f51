package dev.rackwise.plugins.classic;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import dev.rackwise.plugins.advice.AdviceView;
import dev.rackwise.plugins.publish.PlanSink;
import dev.rackwise.plugins.transport.Settings;

/**
 * What a classic group's leader holds besides Kafka's inputs, shared per settings in the
 * application's JVM: the agent's advice and the plan publisher, both on background threads.
 */
public record ClassicLookups(AdviceView advice, PlanSink plans) {
    /** Without advice or publishing. */
    public static final ClassicLookups NONE = new ClassicLookups(AdviceView.NONE, PlanSink.NONE);
    private static final Map<Settings, ClassicLookups> SHARED = new ConcurrentHashMap<>();

    /** The shared lookups of these settings, their background threads started on first use. */
    public static ClassicLookups start(Settings settings) {
        return SHARED.computeIfAbsent(settings, s -> NONE);
    }
}
