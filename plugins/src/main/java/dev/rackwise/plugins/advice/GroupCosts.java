package dev.rackwise.plugins.advice;

/**
 * KIP-925's two costs for one group (docs/rack-optimal.md § 1): α per unit of weight read
 * across racks, β per partition moved off its previous owner.
 */
public record GroupCosts(double trafficCost, double nonOverlapCost) {
    /** KIP-925's min_traffic defaults, as {@code assignor/optimal}'s. */
    public static final GroupCosts DEFAULT = new GroupCosts(10.0, 1.0);

    public GroupCosts {
        if (!(trafficCost >= 0) || !(nonOverlapCost >= 0) || Double.isInfinite(trafficCost)
            || Double.isInfinite(nonOverlapCost)) {
            throw new IllegalArgumentException("costs must be finite and >= 0: " + trafficCost + ", " + nonOverlapCost);
        }
    }
}
