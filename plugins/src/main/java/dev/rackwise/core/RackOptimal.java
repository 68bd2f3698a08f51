package dev.rackwise.core;

/**
 * The rack-optimal assignment (docs/rack-optimal.md): among the balanced assignments, one of
 * least cost, found exactly as a min-cost flow over aggregate nodes, then decoded to
 * partitions with the byte spread of § 5.
 *
 * <p>Network: interchangeable partitions (same class, replica racks, leader rack when some
 * member reads from leaders, weight and previous owner) are one supply node; it flows straight
 * to its previous owner, or to a (class, place) pool feeding every subscriber at that place;
 * members flow to the sink under the balance ({@link Balance}).
 *
 * <p>Example: members m1 (az1) and m2 (az2) reading followers, topic t with t-0 only in az1
 * and t-1 only in az2: m1 gets t-0, m2 gets t-1, cost 0.
 *
 * <p>Stateless and thread-safe: each call builds its own arrays.
 */
public final class RackOptimal {
    private static final long LIMIT = 1L << 62;

    private RackOptimal() {
    }

    /** An optimal assignment of {@code problem}; a {@link CoreInputException} says why not. */
    public static Solution solve(Problem problem) {
        Instance in = new Instance(problem);
        Balance band = Balance.of(in.n, in.classSize, in.classMembers);
        MinCostFlow net = new MinCostFlow();
        int sink = net.addNode();
        int[] memberNode = new int[in.n];
        for (int m = 0; m < in.n; m++) {
            memberNode[m] = net.addNode();
        }
        // Pools: (class, place) in that order, each with its members sorted by id.
        int classes = in.classSize.length;
        int[] poolOf = new int[classes * in.places];
        java.util.Arrays.fill(poolOf, -1);
        int pools = 0;
        for (int c = 0; c < classes; c++) {
            for (int m : in.classMembers[c]) {
                if (poolOf[c * in.places + in.placeOf[m]] < 0) {
                    poolOf[c * in.places + in.placeOf[m]] = 0;
                }
            }
            for (int q = 0; q < in.places; q++) {
                if (poolOf[c * in.places + q] == 0) {
                    poolOf[c * in.places + q] = ++pools;
                }
            }
        }
        Pools pool = new Pools(pools);
        for (int c = 0; c < classes; c++) {
            for (int q = 0; q < in.places; q++) {
                int k = poolOf[c * in.places + q] - 1;
                poolOf[c * in.places + q] = k;
                if (k < 0) {
                    continue;
                }
                pool.cls[k] = c;
                pool.place[k] = q;
                pool.node[k] = net.addNode();
                int size = 0;
                for (int m : in.classMembers[c]) {
                    size += in.placeOf[m] == q ? 1 : 0;
                }
                pool.members[k] = new int[size];
                pool.arcs[k] = new int[size];
                int i = 0;
                for (int m : in.classMembers[c]) { // class members are sorted by index = by id
                    if (in.placeOf[m] == q) {
                        pool.members[k][i] = m;
                        pool.arcs[k][i++] = net.addArc(pool.node[k], memberNode[m], in.classSize[c], 0);
                    }
                }
            }
        }
        long maxUnit = 0;
        for (int g = 0; g < in.groups; g++) {
            for (int q = 0; q < in.places; q++) {
                if (poolOf[in.gClass[g] * in.places + q] >= 0 || in.gOwner[g] >= 0 && in.placeOf[in.gOwner[g]] == q) {
                    maxUnit = Math.max(maxUnit, in.gTraffic[g] * in.gShare[g * in.places + q]
                            + (in.gOwner[g] == Instance.NO_OWNER ? 0 : in.moveUnit));
                }
            }
        }
        // Ties between optimal flows are broken towards fewer moves: every cost is scaled by
        // P + 1 and an arc that moves a partition away from an owner who could keep it costs
        // one more. Where the scaled costs would not fit in a long, ties stay unbroken.
        long nodes = net.nodeCount() + 3L * in.groups + 3L;
        long scale = in.parts + 1L;
        long big = big(band, maxUnit * scale + 1, in.parts, nodes);
        if (big < 0 || maxUnit > LIMIT / scale) {
            scale = 1;
            big = big(band, maxUnit, in.parts, nodes);
        }
        if (big < 0) {
            throw new CoreInputException("costs too large to solve exactly: lower traffic_cost or weights");
        }
        // One node per aggregate (groups that differ only in weight), then a chain of share
        // levels: every unit leaves at the lowest share, and the arc up to the next level is
        // convex, its k-th unit the k-th lightest partition's extra traffic, so the lightest
        // partitions are the ones that read across racks. Destinations hang off their level.
        int[][] destArc = new int[in.aggregates.length][];
        int[][] destPool = new int[in.aggregates.length][];
        int[][] destShare = new int[in.aggregates.length][];
        int[][] poolIds = new int[in.groups][];
        for (int ai = 0; ai < in.aggregates.length; ai++) {
            int[] gs = in.aggregates[ai];
            int g0 = gs[0];
            int c = in.gClass[g0];
            int owner = in.gOwner[g0];
            int count = 0;
            for (int g : gs) {
                count += in.gParts[g].length;
            }
            int ps = 0;
            for (int q = 0; q < in.places; q++) {
                ps += poolOf[c * in.places + q] >= 0 ? 1 : 0;
            }
            int[] ids = new int[ps];
            int nd = ps + (owner >= 0 ? 1 : 0);
            int[] dPool = new int[nd];
            int[] dShare = new int[nd];
            int d = 0;
            if (owner >= 0) {
                dPool[d] = -1;
                dShare[d++] = in.gShare[g0 * in.places + in.placeOf[owner]];
            }
            int i = 0;
            for (int q = 0; q < in.places; q++) {
                int k = poolOf[c * in.places + q];
                if (k >= 0) {
                    ids[i++] = k;
                    dPool[d] = k;
                    dShare[d++] = in.gShare[g0 * in.places + q];
                }
            }
            for (int g : gs) {
                poolIds[g] = ids;
            }
            long[] shares = new long[nd];
            for (d = 0; d < nd; d++) {
                shares[d] = dShare[d];
            }
            long[] levels = distinct(shares);
            int[] levelNode = new int[levels.length];
            levelNode[0] = net.addNode();
            net.addSupply(levelNode[0], count);
            long[] traffic = new long[count];
            int t = 0;
            for (int g : gs) {
                for (int j = 0; j < in.gParts[g].length; j++) {
                    traffic[t++] = in.gTraffic[g];
                }
            }
            java.util.Arrays.sort(traffic);
            for (int l = 1; l < levels.length; l++) {
                levelNode[l] = net.addNode();
                long step = (levels[l] - levels[l - 1]) * scale;
                if (traffic[0] == traffic[count - 1]) {
                    net.addArc(levelNode[l - 1], levelNode[l], count, traffic[0] * step);
                } else {
                    long[] marginals = new long[count];
                    for (int j = 0; j < count; j++) {
                        marginals[j] = traffic[j] * step;
                    }
                    net.addConvexArc(levelNode[l - 1], levelNode[l], marginals);
                }
            }
            long move = owner == Instance.NO_OWNER ? 0 : in.moveUnit;
            long tie = scale > 1 && owner >= 0 ? 1 : 0;
            int[] dArc = new int[nd];
            for (d = 0; d < nd; d++) {
                int from = levelNode[java.util.Arrays.binarySearch(levels, dShare[d])];
                dArc[d] = dPool[d] < 0
                        ? net.addArc(from, memberNode[owner], count, 0)
                        : net.addArc(from, pool.node[dPool[d]], count, move * scale + tie);
            }
            destArc[ai] = dArc;
            destPool[ai] = dPool;
            destShare[ai] = dShare;
        }
        long floors = 0;
        for (int m = 0; m < in.n; m++) {
            floors += band.uniform ? band.lo : band.floors[m];
        }
        for (int m = 0; m < in.n; m++) {
            int floor = band.uniform ? band.lo : band.floors[m];
            net.addSupply(memberNode[m], -floor);
            // No member can take more than what the others' floors leave.
            int top = (int) Math.min(Math.min(band.caps[m], band.hi), in.parts - floors + floor);
            if (band.uniform) {
                if (top > band.lo) {
                    net.addArc(memberNode[m], sink, top - band.lo, 0);
                }
            } else {
                for (int k = floor + 1; k <= top; k++) {
                    net.addArc(memberNode[m], sink, 1, big * (2L * k - 1));
                }
            }
        }
        net.addSupply(sink, -(in.parts - floors));
        if (net.solve() < 0) {
            throw new IllegalStateException("rack-optimal: no flow meets the balance [" + band.lo + ", " + band.hi
                    + "] (a bug: the band is feasible by construction)");
        }
        // Back to groups of one weight: heaviest first onto the lowest share (the pairing the
        // convex arcs priced), the owner before the pools at one share, pools in order.
        long[] directCount = new long[in.groups];
        long[][] poolCount = new long[in.groups][];
        for (int ai = 0; ai < in.aggregates.length; ai++) {
            int nd = destArc[ai].length;
            long[] left = new long[nd];
            for (int d = 0; d < nd; d++) {
                left[d] = net.flow(destArc[ai][d]);
            }
            int[] order = byShare(destShare[ai]);
            for (int g : heaviestFirst(in, in.aggregates[ai])) {
                poolCount[g] = new long[poolIds[g].length];
                long need = in.gParts[g].length;
                for (int d : order) {
                    long take = Math.min(need, left[d]);
                    if (take == 0) {
                        continue;
                    }
                    left[d] -= take;
                    need -= take;
                    if (destPool[ai][d] < 0) {
                        directCount[g] += take;
                    } else {
                        // pool destinations follow the direct one, in poolIds order
                        poolCount[g][d - (nd - poolIds[g].length)] += take;
                    }
                }
            }
        }
        return Decode.decode(in, net, pool, directCount, poolCount, poolIds);
    }

    /** The groups, heaviest first (an aggregate's weights are distinct), then by index. */
    private static Integer[] heaviestFirst(Instance in, int[] groups) {
        Integer[] gs = new Integer[groups.length];
        for (int i = 0; i < gs.length; i++) {
            gs[i] = groups[i];
        }
        if (gs.length > 1) {
            java.util.Arrays.sort(gs, (x, y) -> {
                int byWeight = Double.compare(in.pWeight[in.gParts[y][0]], in.pWeight[in.gParts[x][0]]);
                return byWeight != 0 ? byWeight : Integer.compare(x, y);
            });
        }
        return gs;
    }

    /** The distinct values, ascending. */
    private static long[] distinct(long[] values) {
        long[] sorted = values.clone();
        java.util.Arrays.sort(sorted);
        int k = 0;
        for (int i = 0; i < sorted.length; i++) {
            if (i == 0 || sorted[i] != sorted[k - 1]) {
                sorted[k++] = sorted[i];
            }
        }
        return java.util.Arrays.copyOf(sorted, k);
    }

    /** The destinations' indices by (share, index). */
    private static int[] byShare(int[] share) {
        int nd = share.length;
        long[] keys = new long[nd];
        for (int d = 0; d < nd; d++) {
            keys[d] = (long) share[d] * nd + d;
        }
        java.util.Arrays.sort(keys);
        int[] order = new int[nd];
        for (int d = 0; d < nd; d++) {
            order[d] = (int) (keys[d] % nd);
        }
        return order;
    }

    /**
     * BIG for mixed subscriptions: every unit above lo costs BIG (2k - 1), and BIG outweighs
     * any assignment's cost, so the balance (least sum of squared loads) comes first and cost
     * second. 0 for uniform subscriptions; -1 when potentials and costs could overflow.
     */
    private static long big(Balance band, long maxArc, long parts, long nodes) {
        try {
            if (band.uniform) {
                long top = Math.multiplyExact(maxArc, parts + nodes + 1);
                return top < LIMIT ? 0 : -1;
            }
            long big = Math.addExact(Math.multiplyExact(maxArc, parts), 1);
            long top = Math.multiplyExact(Math.multiplyExact(big, 2L * band.hi + 1), nodes + 1);
            return top < LIMIT ? big : -1;
        } catch (ArithmeticException e) {
            return -1;
        }
    }

    /** The (class, place) pools: their class, place, flow node, members and arcs to them. */
    static final class Pools {
        final int[] cls;
        final int[] place;
        final int[] node;
        final int[][] members;
        final int[][] arcs;

        Pools(int count) {
            cls = new int[count];
            place = new int[count];
            node = new int[count];
            members = new int[count][];
            arcs = new int[count][];
        }
    }
}
