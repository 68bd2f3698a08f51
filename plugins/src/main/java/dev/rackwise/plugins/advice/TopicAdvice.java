package dev.rackwise.plugins.advice;

import java.util.List;

/**
 * The {@code topic/<topic>} advice record: every partition of one topic, measured at
 * {@code measuredAtMs} (epoch ms, the agent's clock). Partitions are in partition order,
 * {@code partitions.get(i).partition() == i}.
 */
public record TopicAdvice(String topic, long measuredAtMs, List<PartitionAdvice> partitions) {
    public TopicAdvice {
        partitions = List.copyOf(partitions);
    }

    /** Age in ms at {@code nowMs} (negative when the agent's clock is ahead). */
    public long ageMs(long nowMs) {
        return nowMs - measuredAtMs;
    }

    /**
     * Each partition's bytes/s in partition order, or {@code null} when any partition is not
     * measured: partial weights would make the unmeasured ones look idle.
     */
    public double[] bytesPerS() {
        double[] out = new double[partitions.size()];
        for (int i = 0; i < out.length; i++) {
            Double b = partitions.get(i).bytesPerS();
            if (b == null) {
                return null;
            }
            out[i] = b;
        }
        return out;
    }
}
