package dev.rackwise.core;

import java.util.List;

/**
 * What the solver knows of one partition: the racks of its replicas (a replica whose broker
 * has no rack is left out), its leader's rack (null: unknown) and its weight (1 when nothing
 * is measured, bytes/s otherwise; never negative).
 */
public record PartitionSpec(List<String> replicaRacks, String leaderRack, double weight) {
    public PartitionSpec {
        if (replicaRacks == null) {
            replicaRacks = List.of();
        } else {
            for (String r : replicaRacks) {
                if (r == null) {
                    throw new CoreInputException("a replica rack is null: leave out replicas whose broker has no rack");
                }
            }
            // An unmodifiable list (an adapter's one list per distinct rack set) is not copied.
            replicaRacks = List.copyOf(replicaRacks);
        }
        if (!(weight >= 0) || Double.isInfinite(weight)) {
            throw new CoreInputException("a partition weight must be finite and >= 0, got " + weight);
        }
    }

    /** A partition of weight 1. */
    public PartitionSpec(List<String> replicaRacks, String leaderRack) {
        this(replicaRacks, leaderRack, 1.0);
    }
}
