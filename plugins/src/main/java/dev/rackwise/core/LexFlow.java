package dev.rackwise.core;

import java.util.Arrays;
import java.util.function.Function;

/**
 * A min-cost flow whose arcs cost tuples of integer levels, most important first (the step's
 * cost, then tie-breaks), plus a last level {@link #perturbation(int, int)} that makes the optimum
 * unique, so this solver and the Python reference's end on the same flow
 * (docs/streams-assignor.md § 6).
 *
 * <p>Solved in two stages ({@link #solveInTwoStages()}). Stage 1: the levels alone, level
 * {@code i >= 1} scaled by {@code 1 + Σ cap · level_i} over all arcs (a bound on what any
 * feasible flow collects there), as many as fit ({@code M · (nodes + 1)} and
 * {@code Σ cap · cost} both below 2^60, {@code M} the largest combined arc cost), dropping
 * levels from the lowest. When the kept levels do not fit, the weights are too large to solve
 * exactly: the exception the constructor was given ({@link CoreInputException} by default; the
 * task core passes its own). Stage 2: among stage 1's optima, the least total perturbation
 * (32 bits unless the network is too large for them).
 *
 * <p>Shared by both cores (docs/rack-optimal.md § 4.2, docs/streams-assignor.md § 6): the same
 * combination and perturbation as the Python {@code LexNetwork}, bit for bit. Levels are held
 * in one flat array, {@code width} per arc (the first arc's number of levels; shorter lists are
 * padded with zeros).
 *
 * <p>Example: two arcs of levels (10, 0) and perturbations 3 and 7 tie in stage 1; stage 2
 * sends the flow along the first, whatever the solver.
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

    private int keep = 1;
    private boolean primalDual;
    private String refusal = "rack-aware costs too large to solve exactly (weights x "
            + "traffic_cost x partitions reach 2^60): scale the weights down";
    /** The path bound B (0: none): see {@link #pathBound(long)}. */
    private long bound;

    /**
     * The consumer core's tightenings (docs/rack-optimal.md § 4.2): every feasible flow is at
     * most {@code b} arc-units (units times the longest path, in a network without cycles),
     * so level {@code i >= 1} is scaled by {@code 1 + b · max level_i}, the total checked as
     * {@code b · M}; and each level is first divided by the gcd of its values over the arcs.
     */
    public LexFlow pathBound(long b) {
        bound = b;
        return this;
    }


    /**
     * Stage 1 of {@link #solveInTwoStages()} by the primal-dual {@link MinCostFlow} rather than
     * {@link ShortestPathFlow}: on the task core's networks, whose costs without the
     * perturbation tie widely, one primal-dual phase augments along many shortest paths at
     * once (10,000 tasks on 1,000 clients with a standby: 338 against 498 ms a call). Any
     * optimum of the levels will do there, so the answer does not change, only the time.
     */
    public LexFlow primalDualFirst() {
        primalDual = true;
        return this;
    }

    /**
     * Never drops below the first {@code levels} levels (Python's {@code LexNetwork(keep=...)}):
     * when those do not fit, {@link #solveInTwoStages()} refuses with
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

    /**
     * Stage 1's costs: the first {@code used} levels combined into one integer per arc (level
     * {@code i >= 1} scaled so that no lower level outweighs one unit of it), or null when
     * they do not fit in 2^60.
     */
    private long[] combine(int used) {
        try {
            long[] div = new long[used];
            Arrays.fill(div, 1);
            if (bound > 0) {
                for (int i = 0; i < used; i++) {
                    long g = 0;
                    for (int a = 0; a < arcs && g != 1; a++) {
                        g = gcd(g, Math.abs(level(a, i)));
                    }
                    div[i] = g == 0 ? 1 : g;
                }
            }
            long[] scales = new long[used];
            for (int i = 1; i < used; i++) {
                long s = 1;
                if (bound > 0) {
                    long max = 0;
                    for (int a = 0; a < arcs; a++) {
                        max = Math.max(max, level(a, i) / div[i]);
                    }
                    s = Math.addExact(s, Math.multiplyExact(bound, max));
                } else {
                    for (int a = 0; a < arcs; a++) {
                        s = Math.addExact(s, Math.multiplyExact(cap[a], level(a, i)));
                    }
                }
                scales[i] = s;
            }
            long[] out = new long[arcs];
            long top = 0;
            long total = 0;
            for (int a = 0; a < arcs; a++) {
                long c = level(a, 0) / div[0];
                for (int i = 1; i < used; i++) {
                    c = Math.addExact(Math.multiplyExact(c, scales[i]), level(a, i) / div[i]);
                }
                out[a] = c;
                top = Math.max(top, c);
                if (bound <= 0) {
                    total = Math.addExact(total, Math.multiplyExact(cap[a], c));
                }
            }
            if (bound > 0) {
                total = Math.multiplyExact(bound, top);
            }
            if (Math.multiplyExact(top, (long) nodes + 1) >= LIMIT || total >= LIMIT) {
                return null;
            }
            return out;
        } catch (ArithmeticException overflow) {
            return null;
        }
    }

    /** Arc a's level i. */
    private long level(int a, int i) {
        return levels[a * width + i];
    }

    /** Greatest common divisor, 0 when both are 0. */
    private static long gcd(long a, long b) {
        while (b != 0) {
            long t = a % b;
            a = b;
            b = t;
        }
        return a;
    }

    /**
     * The lexicographic optimum at any size (docs/rack-optimal.md § 4.2): the levels alone
     * first (as many as fit, never fewer than {@link #keep(int)}), then, among the flows
     * optimal for them, the least total perturbation. Those flows are exactly the ones meeting
     * complementary slackness with the first flow's potentials: arcs of positive reduced cost
     * carry nothing, negative ones are full, and the arcs at reduced cost 0 are free; stage 2
     * is a min-cost flow over the free arcs with the perturbations as costs.
     */
    public void solveInTwoStages() {
        if (width < 0) {
            width = 1;
        }
        long[] costs = null;
        int used = width;
        for (; used >= Math.max(1, Math.min(keep, width)) && costs == null; used--) {
            costs = combine(used);
        }
        if (costs == null) {
            throw refuse.apply(refusal);
        }
        levelsUsed = used + 1;
        long q0 = System.nanoTime();
        long[] first = primalDual ? null
                : ShortestPathFlow.solve(nodes, supply, arcs, tail, head, cap, costs);
        if (first == null) {
            first = exact(supply, arcs, tail, head, cap, costs);
        }
        long q1 = System.nanoTime();
        long firstCost = 0;
        for (int a = 0; a < arcs; a++) {
            firstCost += first[a] * costs[a];
        }
        long[] pot = potentials(first, costs);
        long q2 = System.nanoTime();
        long[] rest = Arrays.copyOf(supply, nodes);
        int[] free = new int[arcs];
        int nFree = 0;
        flows = new long[arcs];
        for (int a = 0; a < arcs; a++) {
            long reduced = costs[a] + pot[tail[a]] - pot[head[a]];
            if (reduced == 0) {
                free[nFree++] = a;
            } else if (reduced < 0) { // full in every optimal flow
                flows[a] = cap[a];
                rest[tail[a]] -= cap[a];
                rest[head[a]] += cap[a];
            }
        }
        long total = 0;
        for (int a = 0; a < arcs; a++) {
            total += cap[a];
        }
        long b = bound > 0 ? bound : total;
        bitsUsed = 0;
        for (int bits : BITS) {
            if (bitsUsed == 0 && ((1L << bits) + 1) * Math.max(b, (long) nodes + 1) < LIMIT) {
                bitsUsed = bits;
            }
        }
        for (int i = 0; i < nFree; i++) {
            flows[free[i]] = first[free[i]];
        }
        if (nFree > 0 && bitsUsed > 0) {
            secondStage(free, nFree);
        }
        long cost = 0;
        for (int a = 0; a < arcs; a++) {
            cost += flows[a] * costs[a];
        }
        if (Boolean.getBoolean("rackwise.core.timing")) {
            System.err.printf("two stages: first %d ms, potentials %d ms, second %d ms (%d free of %d)%n", (q1 - q0) / 1000000, (q2 - q1) / 1000000, (System.nanoTime() - q2) / 1000000, nFree, arcs);
        }
        if (cost != firstCost) {
            throw new IllegalStateException("two-stage flow lost the optimum (" + cost + " != "
                    + firstCost + "): a bug, never an input's fault");
        }
    }

    /**
     * Stage 2 on the free arcs, which carry the first flow: two optimal flows differ by a
     * circulation on the first flow's residual free arcs, and its cycles stay inside strongly
     * connected components, so an arc between two components keeps its flow and each
     * component is a small min-cost flow of its own (its supplies what the first flow moves
     * through it, its costs the perturbations). The answer is the same as one flow over all
     * the free arcs; only the work is smaller.
     */
    private void secondStage(int[] free, int nFree) {
        // residual graph of the free arcs: u -> v while below capacity, v -> u while carrying
        int[] comp = StrongComponents.ofResidual(nodes, free, nFree, tail, head, cap, flows);
        // per component: its internal free arcs
        int comps = StrongComponents.count(comp);
        int[] count = new int[comps + 1];
        for (int i = 0; i < nFree; i++) {
            int a = free[i];
            if (comp[tail[a]] == comp[head[a]]) {
                count[comp[tail[a]] + 1]++;
            }
        }
        for (int c = 0; c < comps; c++) {
            count[c + 1] += count[c];
        }
        int[] byComp = new int[count[comps]];
        int[] at = Arrays.copyOf(count, comps);
        for (int i = 0; i < nFree; i++) {
            int a = free[i];
            if (comp[tail[a]] == comp[head[a]]) {
                byComp[at[comp[tail[a]]]++] = a;
            }
        }
        int[] local = new int[nodes];
        Arrays.fill(local, -1);
        if (Boolean.getBoolean("rackwise.core.timing")) {
            int big = 0;
            int nontrivial = 0;
            for (int c = 0; c < comps; c++) {
                big = Math.max(big, count[c + 1] - count[c]);
                nontrivial += count[c + 1] - count[c] >= 2 ? 1 : 0;
            }
            System.err.printf("stage 2: %d components, %d with arcs, largest %d arcs%n", comps, nontrivial, big);
        }
        for (int c = 0; c < comps; c++) {
            int m = count[c + 1] - count[c];
            if (m < 2) {
                continue; // a cycle needs two arcs
            }
            int k = 0;
            int[] ft = new int[m];
            int[] fh = new int[m];
            long[] fc = new long[m];
            long[] fk = new long[m];
            int[] ids = new int[m];
            for (int j = 0; j < m; j++) {
                int a = byComp[count[c] + j];
                ids[j] = a;
                if (local[tail[a]] < 0) {
                    local[tail[a]] = k++;
                }
                if (local[head[a]] < 0) {
                    local[head[a]] = k++;
                }
            }
            long[] sup = new long[k];
            for (int j = 0; j < m; j++) {
                int a = ids[j];
                ft[j] = local[tail[a]];
                fh[j] = local[head[a]];
                fc[j] = cap[a];
                fk[j] = perturbation(a, bitsUsed);
                sup[ft[j]] += flows[a];
                sup[fh[j]] -= flows[a];
            }
            long[] got = ShortestPathFlow.solve(k, sup, m, ft, fh, fc, fk);
            if (got == null) {
                got = exact(k, sup, m, ft, fh, fc, fk);
            }
            for (int j = 0; j < m; j++) {
                flows[ids[j]] = got[j];
                local[tail[ids[j]]] = -1;
                local[head[ids[j]]] = -1;
            }
        }
    }

    private long[] exact(int k, long[] sup, int m, int[] t, int[] h, long[] c, long[] w) {
        int saved = nodes;
        nodes = k;
        try {
            return exact(sup, m, t, h, c, w);
        } finally {
            nodes = saved;
        }
    }

    /** Any exact min-cost flow meeting {@code sup} (primal-dual, few phases without ties). */
    private long[] exact(long[] sup, int m, int[] t, int[] h, long[] c, long[] k) {
        MinCostFlow net = new MinCostFlow();
        for (int v = 0; v < nodes; v++) {
            net.addNode();
        }
        for (int v = 0; v < nodes; v++) {
            if (sup[v] != 0) {
                net.addSupply(v, sup[v]);
            }
        }
        int[] ids = new int[m];
        for (int a = 0; a < m; a++) {
            ids[a] = net.addArc(t[a], h[a], c[a], k[a]);
        }
        if (net.solve() < 0) {
            throw new IllegalStateException("rack-aware flow is infeasible (a bug: the start"
                    + " placement is always feasible)");
        }
        long[] out = new long[m];
        for (int a = 0; a < m; a++) {
            out[a] = net.flow(ids[a]);
        }
        return out;
    }

    /**
     * Potentials of an optimal flow: shortest distances in its residual network from a
     * virtual source joined to every node at 0 (Bellman-Ford with a queue), so every residual
     * arc has {@code cost + pot[tail] - pot[head] >= 0}.
     */
    private long[] potentials(long[] f, long[] costs) {
        int[] deg = new int[nodes + 1];
        for (int a = 0; a < arcs; a++) {
            if (f[a] < cap[a]) {
                deg[tail[a] + 1]++;
            }
            if (f[a] > 0) {
                deg[head[a] + 1]++;
            }
        }
        for (int v = 0; v < nodes; v++) {
            deg[v + 1] += deg[v];
        }
        int[] fill = Arrays.copyOf(deg, nodes);
        int[] to = new int[deg[nodes]];
        long[] w = new long[deg[nodes]];
        for (int a = 0; a < arcs; a++) {
            if (f[a] < cap[a]) {
                to[fill[tail[a]]] = head[a];
                w[fill[tail[a]]++] = costs[a];
            }
            if (f[a] > 0) {
                to[fill[head[a]]] = tail[a];
                w[fill[head[a]]++] = -costs[a];
            }
        }
        long[] dist = new long[nodes];
        int[] queue = new int[nodes + 1];
        boolean[] queued = new boolean[nodes];
        int qh = 0;
        int qt = 0;
        int size = 0;
        for (int v = 0; v < nodes; v++) {
            queue[qt++] = v;
            queued[v] = true;
            size++;
        }
        qt %= queue.length;
        while (size > 0) {
            int u = queue[qh];
            qh = (qh + 1) % queue.length;
            size--;
            queued[u] = false;
            long du = dist[u];
            for (int i = deg[u]; i < deg[u + 1]; i++) {
                int v = to[i];
                if (du + w[i] < dist[v]) {
                    dist[v] = du + w[i];
                    if (!queued[v]) {
                        queued[v] = true;
                        queue[qt] = v;
                        qt = (qt + 1) % queue.length;
                        size++;
                    }
                }
            }
        }
        return dist;
    }

    public long flow(int arc) {
        return flows[arc];
    }

    /** After {@link #solveInTwoStages()}: the perturbation's bits (0: none, the optimum may not be unique). */
    public int bitsUsed() {
        return bitsUsed;
    }

    /** After {@link #solveInTwoStages()}: how many of the cost levels were combined (all but dropped ones). */
    public int levelsUsed() {
        return levelsUsed;
    }
}
