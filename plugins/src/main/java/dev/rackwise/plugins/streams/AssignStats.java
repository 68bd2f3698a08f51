package dev.rackwise.plugins.streams;

import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/** Counts of assignments computed and of fallbacks by reason, per application. Thread-safe. */
public final class AssignStats {
    private final AtomicLong computed = new AtomicLong();
    private final Map<FallbackReason, AtomicLong> fallbacks = new EnumMap<>(FallbackReason.class);

    public AssignStats() {
        for (FallbackReason r : FallbackReason.values()) {
            fallbacks.put(r, new AtomicLong());
        }
    }

    /** One assignment computed in-process. */
    public void recordComputed() {
        computed.incrementAndGet();
    }

    /** One fallback to Kafka's own assignor. */
    public void fallback(FallbackReason reason) {
        fallbacks.get(reason).incrementAndGet();
    }

    public long computed() {
        return computed.get();
    }

    public long fallbacks(FallbackReason reason) {
        return fallbacks.get(reason).get();
    }

    /** e.g. {@code computed=3 fallbacks={internal=1}}: only non-zero reasons. */
    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("computed=").append(computed.get()).append(" fallbacks={");
        boolean first = true;
        for (Map.Entry<FallbackReason, AtomicLong> e : fallbacks.entrySet()) {
            long n = e.getValue().get();
            if (n > 0) {
                sb.append(first ? "" : ", ").append(e.getKey().name().toLowerCase()).append('=').append(n);
                first = false;
            }
        }
        return sb.append('}').toString();
    }
}
