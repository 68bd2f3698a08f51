package dev.rackwise.bench.jmh;

import java.util.HashMap;
import java.util.Map;

import dev.rackwise.plugins.advice.AdviceView;

/**
 * The grid's bytes/s as the plug-ins' advice: weight = bytes/s over the mean, at least 0.001,
 * as the agent publishes it; keyed by topic name (what advice is keyed by).
 */
public final class GridAdvice implements AdviceView {
    private final Map<String, double[]> weights = new HashMap<>();

    public GridAdvice(Grid grid) {
        for (int t = 0; t < grid.topics; t++) {
            double[] w = new double[grid.partitionsPerTopic];
            for (int p = 0; p < w.length; p++) {
                w[p] = Math.max(0.001, grid.bytes[t][p] / grid.meanBytes);
            }
            weights.put(grid.topicNames[t], w);
        }
    }

    @Override
    public double weight(String topic, int partition) {
        double[] w = weights.get(topic);
        return w == null || partition < 0 || partition >= w.length ? 1.0 : w[partition];
    }

    @Override
    public boolean measured() {
        return true;
    }
}
