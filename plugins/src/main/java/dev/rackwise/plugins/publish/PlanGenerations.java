package dev.rackwise.plugins.publish;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Generations of the plans a plug-in publishes: {@code max(last + 1, nowMs)} per group.
 *
 * <p>Why epoch milliseconds: a plan's generation must rise strictly per group (the plan
 * contract), but a plug-in keeps no state across broker restarts, and a group's coordinator
 * moves between brokers. The clock carries the order across both: a later plan is made later.
 * Within one JVM, {@code last + 1} keeps two plans in the same millisecond apart. This holds
 * while broker clocks agree to within the time between two plans of a group (NTP keeps them
 * within milliseconds; a group's plans are a rebalance apart). The values are far above the
 * agent's own generations (small counters), so a group the agent takes over later continues
 * above them (its generation floor is the last published plan).
 *
 * <p>Example: at 1000 ms, {@code next("g", 1000)} = 1000, again in the same ms 1001, and at
 * 5000 ms 5000. Lock-free: {@code assign()} may call it.
 */
public final class PlanGenerations {
    private final ConcurrentHashMap<String, AtomicLong> last = new ConcurrentHashMap<>();

    public long next(String groupId, long nowMs) {
        AtomicLong l = last.get(groupId);
        if (l == null) {
            AtomicLong fresh = new AtomicLong(-1);
            l = last.putIfAbsent(groupId, fresh);
            if (l == null) {
                l = fresh;
            }
        }
        return l.updateAndGet(prev -> Math.max(prev + 1, nowMs));
    }
}
