package dev.rackwise.plugins.advice;

import java.util.Optional;
import java.util.function.LongSupplier;

/**
 * The {@link AdviceView} of an {@link AdviceReader}: the latest fresh advice it holds, read
 * without waiting (the reader swaps immutable snapshots; nothing here locks).
 *
 * <p>Weights are the agent's own (agent/brokers/traffic.py {@code weights_from}): a partition's bytes/s
 * over the mean of every fresh measured partition held, at least 0.001, rounded to 6 places;
 * a partition with no fresh measurement weighs 1. The mean is worked out once per snapshot.
 *
 * <p>Example: fresh advice t-0 = 300 B/s, t-1 = 100 B/s: weights 1.5 and 0.5.
 */
public final class HeldAdvice implements AdviceView {
    static final double MIN_WEIGHT = 0.001;

    private final AdviceReader reader;
    private final LongSupplier clock;
    private volatile Mean mean = new Mean(null, -1, 0.0);

    public HeldAdvice(AdviceReader reader, LongSupplier clock) {
        this.reader = reader;
        this.clock = clock;
    }

    private record Mean(AdviceSnapshot of, long atMs, double value) {
    }

    /** Mean bytes/s of every fresh measured partition; recomputed per snapshot (or each minute). */
    private double mean(long now) {
        Mean m = mean;
        AdviceSnapshot snap = reader.snapshot();
        if (m.of == snap && now - m.atMs < 60_000) {
            return m.value;
        }
        double sum = 0;
        long n = 0;
        for (TopicAdvice t : snap.topics().values()) {
            if (t.ageMs(now) > reader.maxAgeMs()) {
                continue;
            }
            for (PartitionAdvice p : t.partitions()) {
                if (p.bytesPerS() != null) {
                    sum += p.bytesPerS();
                    n++;
                }
            }
        }
        double value = n == 0 ? 0.0 : sum / n;
        mean = new Mean(snap, now, value);
        return value;
    }

    private Optional<PartitionAdvice> partition(String topic, int partition, long now) {
        return reader.topic(topic, now).flatMap(t -> {
            var all = t.partitions();
            if (partition >= 0 && partition < all.size() && all.get(partition).partition() == partition) {
                return Optional.of(all.get(partition)); // the agent writes them in partition order
            }
            return all.stream().filter(p -> p.partition() == partition).findFirst();
        });
    }

    @Override
    public double weight(String topic, int partition) {
        long now = clock.getAsLong();
        Double rate = bytesPerSecond(topic, partition);
        double m = mean(now);
        if (rate == null || m <= 0) {
            return 1.0;
        }
        return Math.round(Math.max(rate / m, MIN_WEIGHT) * 1e6) / 1e6;
    }

    @Override
    public Double bytesPerSecond(String topic, int partition) {
        return partition(topic, partition, clock.getAsLong()).map(PartitionAdvice::bytesPerS).orElse(null);
    }

    @Override
    public String leaderRack(String topic, int partition) {
        return partition(topic, partition, clock.getAsLong()).map(PartitionAdvice::leaderRack).orElse(null);
    }

    @Override
    public GroupCosts costs(String groupId) {
        return reader.groupSettings(groupId, clock.getAsLong())
            .map(g -> new GroupCosts(g.number("traffic_cost", GroupCosts.DEFAULT.trafficCost()),
                g.number("non_overlap_cost", GroupCosts.DEFAULT.nonOverlapCost())))
            .orElse(GroupCosts.DEFAULT);
    }

    @Override
    public Optional<GroupAdvice> rule(String groupId) {
        return reader.groupSettings(groupId, clock.getAsLong());
    }

    @Override
    public boolean measured() {
        return mean(clock.getAsLong()) > 0;
    }

    /** How old the newest advice held is (ms), or -1 when none. */
    public long ageMs() {
        long newest = reader.newestAdviceMs();
        return newest < 0 ? -1 : clock.getAsLong() - newest;
    }
}
