package dev.rackwise.core;

import java.util.Arrays;
import java.util.function.Function;

/**
 * A min-cost flow whose arcs cost tuples of integer levels, most important first (the step's
 * cost, then tie-breaks), plus a last level {@link #perturbation(int)} that makes the optimum
 * unique, so this solver and the Python reference's end on the same flow
 * (docs/streams-assignor.md § 6).
 *
 * <p>Level {@code i >= 1} is scaled by {@code 1 + Σ cap · level_i} over all arcs (a bound on
 * what any feasible flow collects there). The combined costs must fit: {@code M · (nodes + 1)}
 * and {@code Σ cap · cost} both below 2^60 ({@code M} the largest combined arc cost). Tried in
 * order: every level with a perturbation of 32, 24, 16, 12, 8, then 4 bits; then without it,
 * dropping levels from the lowest. When the cost level alone does not fit,
 * the weights are too large to solve exactly: the exception the constructor was given
 * ({@link CoreInputException} by default; the task core passes its own).
 *
 * <p>Shared by both cores (docs/rack-optimal.md § 4.2, docs/streams-assignor.md § 6): the same
 * combination and perturbation as the Python {@code LexNetwork}, bit for bit. Levels are held
 * in one flat array, {@code width} per arc (the first arc's number of levels; shorter lists are
 * padded with zeros).
 *
 * <p>Example: two arcs of cost (10, 0) with perturbations 3 and 7 combine to {@code 10·s + 3}
 * and {@code 10·s + 7}; the first wins whatever the solver.
 */
public final class LexFlow {
    static final long LIMIT = 1L << 60;
    private static final int[] BITS = {32, 24, 16, 12, 8, 4};

    private final Function<String, ? extends RuntimeException> refuse;

    private int nodes;
    private long[] supply = new long[16];
    private int arcs;
    private int[] tail = new int[32];
    private int[] head = new int[32];
    private long[] cap = new long[32];
    private int width = -1;
    private long[] levels = new long[96];
    private long[] flows;
    private int bitsUsed = -1;
    private int levelsUsed;

    private boolean anyOptimum;
    private int keep = 1;
    private String refusal = "rack-aware costs too large to solve exactly (weights x "
            + "traffic_cost x partitions reach 2^60): scale the weights down";

    /**
     * Without the perturbation, take the fast solver's optimum too (by default the primal-dual
     * {@link MinCostFlow}'s, as the task core has always had): the consumer core's collapsed
     * networks with distinct weights have one shortest-path length per type, where the
     * primal-dual solver pays one full search each.
     */
    public LexFlow anyOptimum() {
        anyOptimum = true;
        return this;
    }

    /**
     * Never drops below the first {@code levels} levels (Python's {@code LexNetwork(keep=...)}):
     * when those do not fit without the perturbation, {@link #solve()} refuses with
     * {@code message}. The rack core keeps 2, (balance, cost) (docs/rack-optimal.md § 4.2);
     * the task core 1, its cost.
     */
    public LexFlow keep(int levels, String message) {
        keep = Math.max(1, levels);
        refusal = message;
        return this;
    }

    /** Refuses costs too large with a {@link CoreInputException}. */
    public LexFlow() {
        this(CoreInputException::new);
    }

    /** Refuses costs too large with {@code refuse.apply(message)}. */
    public LexFlow(Function<String, ? extends RuntimeException> refuse) {
        this.refuse = refuse;
    }

    /**
     * Arc {@code arc}'s last level: 1 .. 2^bits (bits &le; 32), the top {@code bits} bits of MurmurHash3's
     * 32-bit finaliser of {@code arc + 1}. Non-linear on purpose: with {@code arc * constant}, two
     * swaps between arcs the same distance apart tie exactly.
     */
    public static long perturbation(int arc, int bits) {
        int x = arc + 1;
        x ^= x >>> 16;
        x *= 0x85EBCA6B;
        x ^= x >>> 13;
        x *= 0xC2B2AE35;
        x ^= x >>> 16;
        return 1 + ((x & 0xFFFFFFFFL) >>> (32 - bits));
    }

    public int addNode() {
        if (nodes == supply.length) {
            supply = Arrays.copyOf(supply, nodes * 2);
        }
        return nodes++;
    }

    public void setSupply(int node, long amount) {
        supply[node] += amount;
    }

    /** Adds an arc whose cost is the tuple {@code costLevels}, most important first; returns its index. */
    public int addArc(int from, int to, long capacity, long... costLevels) {
        if (width < 0) {
            width = Math.max(1, costLevels.length);
            levels = new long[tail.length * width];
        }
        if (arcs == tail.length) {
            int n = arcs * 2;
            tail = Arrays.copyOf(tail, n);
            head = Arrays.copyOf(head, n);
            cap = Arrays.copyOf(cap, n);
            levels = Arrays.copyOf(levels, n * width);
        }
        tail[arcs] = from;
        head[arcs] = to;
        cap[arcs] = capacity;
        System.arraycopy(costLevels, 0, levels, arcs * width, Math.min(width, costLevels.length));
        return arcs++;
    }

    /** Adds an arc of three levels (no varargs array). */
    public int addArc(int from, int to, long capacity, long level0, long level1, long level2) {
        if (width < 0) {
            width = 3;
            levels = new long[tail.length * width];
        }
        if (width != 3) {
            return addArc(from, to, capacity, new long[] {level0, level1, level2});
        }
        if (arcs == tail.length) {
            int n = arcs * 2;
            tail = Arrays.copyOf(tail, n);
            head = Arrays.copyOf(head, n);
            cap = Arrays.copyOf(cap, n);
            levels = Arrays.copyOf(levels, n * width);
        }
        tail[arcs] = from;
        head[arcs] = to;
        cap[arcs] = capacity;
        int o = arcs * 3;
        levels[o] = level0;
        levels[o + 1] = level1;
        levels[o + 2] = level2;
        return arcs++;
    }

    /** Arc {@code a} as built: {tail, head, capacity, level 0, level 1, ...} (no perturbation). */
    public long[] arc(int a) {
        long[] out = new long[3 + width];
        out[0] = tail[a];
        out[1] = head[a];
        out[2] = cap[a];
        System.arraycopy(levels, a * width, out, 3, width);
        return out;
    }

    /** Node {@code v}'s supply (negative: a demand). */
    public long supply(int v) {
        return supply[v];
    }

    public int nodeCount() {
        return nodes;
    }

    public int arcCount() {
        return arcs;
    }

    /** Combined costs of the first {@code used} levels, plus the perturbation when bits > 0. */
    private long[] combine(int used, int bits) {
        try {
            int width = used + (bits > 0 ? 1 : 0);
            long[] pert = null;
            if (bits > 0) {
                pert = new long[arcs];
                for (int a = 0; a < arcs; a++) {
                    pert[a] = perturbation(a, bits);
                }
            }
            long[] scales = new long[width];
            for (int i = 1; i < width; i++) {
                long s = 1;
                for (int a = 0; a < arcs; a++) {
                    s = Math.addExact(s, Math.multiplyExact(cap[a], level(a, i, used, pert)));
                }
                scales[i] = s;
            }
            long[] out = new long[arcs];
            long top = 0;
            long total = 0;
            for (int a = 0; a < arcs; a++) {
                long c = level(a, 0, used, pert);
                for (int i = 1; i < width; i++) {
                    c = Math.addExact(Math.multiplyExact(c, scales[i]), level(a, i, used, pert));
                }
                out[a] = c;
                top = Math.max(top, c);
                total = Math.addExact(total, Math.multiplyExact(cap[a], c));
            }
            if (Math.multiplyExact(top, (long) nodes + 1) >= LIMIT || total >= LIMIT) {
                return null;
            }
            return out;
        } catch (ArithmeticException overflow) {
            return null;
        }
    }

    /** Arc a's level i of a combination of {@code used} levels (then the perturbation, if any). */
    private long level(int a, int i, int used, long[] pert) {
        if (i == used) {
            return pert[a];
        }
        return levels[a * width + i];
    }

    /** Solves; afterwards {@link #flow(int)} reads each arc's flow. */
    public void solve() {
        if (width < 0) {
            width = 1;
        }
        long[] costs = null;
        for (int bits : BITS) {
            if (costs == null) {
                costs = combine(width, bits);
                bitsUsed = bits;
                levelsUsed = width;
            }
        }
        boolean unique = costs != null;
        for (int used = width; used >= Math.min(keep, width) && costs == null; used--) {
            costs = combine(used, 0);
            bitsUsed = 0;
            levelsUsed = used;
        }
        if (costs == null) {
            throw refuse.apply(refusal);
        }
        if (unique || anyOptimum) {
            // A unique optimum: any exact solver ends on it, so take the fast one.
            flows = ShortestPathFlow.solve(nodes, supply, arcs, tail, head, cap, costs);
            if (flows != null) {
                return;
            }
        }
        MinCostFlow net = new MinCostFlow();
        for (int v = 0; v < nodes; v++) {
            net.addNode();
        }
        for (int v = 0; v < nodes; v++) {
            if (supply[v] != 0) {
                net.addSupply(v, supply[v]);
            }
        }
        int[] ids = new int[arcs];
        for (int a = 0; a < arcs; a++) {
            ids[a] = net.addArc(tail[a], head[a], cap[a], costs[a]);
        }
        if (net.solve() < 0) {
            throw new IllegalStateException("rack-aware flow is infeasible (a bug: the start"
                    + " placement is always feasible)");
        }
        flows = new long[arcs];
        for (int a = 0; a < arcs; a++) {
            flows[a] = net.flow(ids[a]);
        }
    }

    public long flow(int arc) {
        return flows[arc];
    }

    /** After {@link #solve()}: the perturbation's bits (0: none, the optimum may not be unique). */
    public int bitsUsed() {
        return bitsUsed;
    }

    /** After {@link #solve()}: how many of the cost levels were combined (all but dropped ones). */
    public int levelsUsed() {
        return levelsUsed;
    }
}
