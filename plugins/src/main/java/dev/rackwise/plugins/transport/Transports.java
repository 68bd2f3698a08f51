package dev.rackwise.plugins.transport;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One {@link KafkaTransport} per distinct {@link Settings} in a JVM, created on first use.
 * A broker builds its assignors again each time it re-reads its config, and an application may
 * run many consumers: they all share one producer and one reply reader per agent cluster.
 */
public final class Transports {
    private static final Map<Settings, KafkaTransport> SHARED = new ConcurrentHashMap<>();

    private Transports() {
    }

    public static Transport shared(Settings settings) {
        return SHARED.computeIfAbsent(settings, KafkaTransport::create);
    }
}
