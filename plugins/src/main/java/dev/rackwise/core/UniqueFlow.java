package dev.rackwise.core;

import java.util.Arrays;

/**
 * A faster exact min-cost flow whose answer is returned only when it is provably the one and
 * only optimum, so that any exact solver ({@link ShortestPathFlow}, {@link MinCostFlow}) ends
 * on the very same flow. Otherwise null, and the caller solves as before.
 *
 * <p>The solver: {@link ShortestPathFlow}'s start (potentials from one Dijkstra back from the
 * demands, then greedy pushes along tight arcs), then successive shortest paths the other way
 * round: from a node with demand left, Dijkstra backwards to the nearest node with supply
 * left. The task core's networks have one demand (the sink) and many supplies (tasks), so a
 * search from the sink meets a supply soon, where a search from one task must find a client
 * with room, often far. The queue is a radix heap (Dijkstra's keys never decrease). Any
 * change of search order may end on another optimum where several tie: hence the check.
 *
 * <p>The check ({@link #certify}), O(nodes + arcs), independent of how the flow was found:
 * <ol>
 * <li>the flow meets every capacity and supply;</li>
 * <li>the potentials leave every residual arc a reduced cost &ge; 0 (so the flow is optimal);</li>
 * <li>the residual arcs of reduced cost 0 (the tight ones) contain no cycle except an arc and
 *     its own reverse. Any other optimal flow differs from this one by a circulation of cost 0
 *     on the residual network; each of its cycles has cost 0, so (every reduced cost being
 *     &ge; 0) only tight arcs, and it is not an arc and its own reverse (that moves nothing).
 *     So no such cycle means no other optimum. Found by strongly connected components: a
 *     component holding a one-way tight arc has a cycle through it; one holding only arcs
 *     tight both ways has a cycle unless those arcs form a tree (components of k nodes with
 *     k - 1 such arcs).</li>
 * </ol>
 */
final class UniqueFlow {
    private static final long BOUND = 1L << 62;
    /**
     * Above this many arcs per node (an exact standby graph of many tasks: every task to every
     * client), a search back from the sink scans a client's arcs from every task at each
     * step, so the phases search forward from each supply instead, as ShortestPathFlow's.
     */
    private static final int DENSE = 64;

    private UniqueFlow() {
    }

    /**
     * Flows per arc when they are this network's unique optimum, else null (the optimum ties,
     * or the supplies cannot be met, or a potential left its safe range). Costs must be &ge; 0.
     */
    static long[] solve(int nodes, long[] supply, int arcs, int[] tail, int[] head, long[] cap,
                        long[] cost) {
        long[] pot = new long[nodes];
        long[] flows = flow(nodes, supply, arcs, tail, head, cap, cost, pot);
        if (flows == null || !certify(nodes, supply, arcs, tail, head, cap, cost, flows, pot)) {
            return null;
        }
        return flows;
    }

    /**
     * True when {@code flows} is feasible, optimal by {@code pot} and the only optimum (the
     * class comment's three checks).
     */
    static boolean certify(int nodes, long[] supply, int arcs, int[] tail, int[] head, long[] cap,
                           long[] cost, long[] flows, long[] pot) {
        long[] net = Arrays.copyOf(supply, nodes);
        for (int v = 0; v < nodes; v++) {
            if (pot[v] <= -BOUND || pot[v] >= BOUND) {
                return false;
            }
        }
        // The tight arcs (reduced cost 0); their residual graph's components below.
        int[] tight = new int[arcs];
        int nTight = 0;
        for (int a = 0; a < arcs; a++) {
            long f = flows[a];
            if (f < 0 || f > cap[a]) {
                return false;
            }
            net[tail[a]] -= f;
            net[head[a]] += f;
            long reduced = cost[a] + pot[tail[a]] - pot[head[a]];
            if (f < cap[a] && reduced < 0 || f > 0 && reduced > 0) {
                return false;
            }
            if (reduced == 0) {
                tight[nTight++] = a;
            }
        }
        for (int v = 0; v < nodes; v++) {
            if (net[v] != 0) {
                return false;
            }
        }
        int[] comp = StrongComponents.ofResidual(nodes, tight, nTight, tail, head, cap, flows);
        int comps = StrongComponents.count(comp);
        int[] size = new int[comps];
        int[] twoWay = new int[comps];
        for (int v = 0; v < nodes; v++) {
            size[comp[v]]++;
        }
        for (int i = 0; i < nTight; i++) {
            int a = tight[i];
            int c = comp[tail[a]];
            if (c != comp[head[a]]) {
                continue;
            }
            boolean forward = flows[a] < cap[a];
            boolean backward = flows[a] > 0;
            if (forward != backward) {
                return false; // one-way tight arc inside a component: on a cycle
            }
            if (forward && ++twoWay[c] >= size[c]) {
                return false; // more two-way arcs than a tree has
            }
        }
        return true;
    }

    /**
     * {@link ShortestPathFlow#solve}'s start, then successive shortest paths the other way
     * round (class comment); leaves its potentials in {@code pot}. Null as there.
     */
    static long[] flow(int nodes, long[] supply, int arcs, int[] tail, int[] head, long[] cap,
                       long[] cost, long[] pot) {
        int m = 2 * arcs;
        long[] rcap = new long[m];
        long[] rcost = new long[m];
        int[] to = new int[m];
        // Out-arcs (residual 2a) per tail node and in-arcs (arc a) per head node, fixed.
        int[] first = new int[nodes + 1];
        int[] inFirst = new int[nodes + 1];
        for (int a = 0; a < arcs; a++) {
            first[tail[a] + 1]++;
            inFirst[head[a] + 1]++;
        }
        for (int v = 0; v < nodes; v++) {
            first[v + 1] += first[v];
            inFirst[v + 1] += inFirst[v];
        }
        int[] fill = Arrays.copyOf(first, nodes);
        int[] inFill = Arrays.copyOf(inFirst, nodes);
        int[] adj = new int[arcs];
        int[] inAdj = new int[arcs];
        for (int a = 0; a < arcs; a++) {
            int f = 2 * a;
            rcap[f] = cap[a];
            rcost[f] = cost[a];
            to[f] = head[a];
            rcost[f + 1] = -cost[a];
            to[f + 1] = tail[a];
            adj[fill[tail[a]]++] = f;
            inAdj[inFill[head[a]]++] = a;
        }
        long[] excess = Arrays.copyOf(supply, nodes);
        long balance = 0;
        for (int v = 0; v < nodes; v++) {
            balance += excess[v];
        }
        if (balance != 0) {
            return null;
        }
        long[] dist = new long[nodes];
        int[] seen = new int[nodes];
        int[] done = new int[nodes];
        int[] via = new int[nodes];
        int[] settled = new int[nodes];
        Radix queue = new Radix();
        int phase = 1;
        // Start, as ShortestPathFlow's: pot = -(least cost to any demand), then greedy pushes
        // along tight forward arcs.
        for (int v = 0; v < nodes; v++) {
            if (excess[v] < 0) {
                seen[v] = phase;
                dist[v] = 0;
                queue.push(0, v);
            }
        }
        while (queue.count > 0) {
            int u = queue.pop();
            long d = queue.last;
            if (done[u] == phase || d > dist[u]) {
                continue;
            }
            done[u] = phase;
            for (int i = inFirst[u], e = inFirst[u + 1]; i < e; i++) {
                int a = inAdj[i];
                if (cap[a] == 0) {
                    continue;
                }
                int v = tail[a];
                long nd = d + cost[a];
                if (nd >= BOUND / 4) {
                    continue; // as far as unreachable
                }
                if (done[v] != phase && (seen[v] != phase || nd < dist[v])) {
                    seen[v] = phase;
                    dist[v] = nd;
                    queue.push(nd, v);
                }
            }
        }
        for (int v = 0; v < nodes; v++) {
            pot[v] = done[v] == phase ? -dist[v] : -(BOUND / 4);
        }
        {
            TightPaths paths = new TightPaths(nodes, first, adj, to, rcap, rcost, pot, excess);
            int[] stack = paths.stack;
            for (int s = 0; s < nodes; s++) {
                while (paths.open(s)) {
                    int found = paths.find(s);
                    if (found < 0) {
                        break;
                    }
                    int depth = paths.depth;
                    long push = paths.room(s, found);
                    for (int i = 0; i < depth; i++) {
                        rcap[stack[i]] -= push;
                        rcap[stack[i] ^ 1] += push;
                    }
                    excess[s] -= push;
                    excess[found] += push;
                }
            }
        }
        if (arcs > DENSE * (long) nodes) {
            return forward(nodes, arcs, tail, head, to, rcap, rcost, first, adj, excess, pot,
                    dist, seen, done, via, settled, queue, phase);
        }
        // Residual arcs into each node (2a into head[a], 2a+1 into tail[a]) and their tails.
        int[] rinFirst = new int[nodes + 1];
        for (int a = 0; a < arcs; a++) {
            rinFirst[head[a] + 1]++;
            rinFirst[tail[a] + 1]++;
        }
        for (int v = 0; v < nodes; v++) {
            rinFirst[v + 1] += rinFirst[v];
        }
        int[] rin = new int[m];
        int[] from = new int[m];
        {
            int[] at = Arrays.copyOf(rinFirst, nodes);
            for (int v = 0; v < nodes; v++) {
                for (int i = inFirst[v]; i < inFirst[v + 1]; i++) {
                    rin[at[v]++] = 2 * inAdj[i];
                }
                for (int i = first[v]; i < first[v + 1]; i++) {
                    rin[at[v]++] = adj[i] + 1;
                }
            }
            for (int a = 0; a < m; a++) {
                from[a] = to[a ^ 1];
            }
        }
        // Then from each node with demand left, Dijkstra backwards over the residual arcs to
        // the nearest node with supply left, and one push along that path. Potentials move by
        // reach - dist on the settled nodes (the mirror of ShortestPathFlow's update), which
        // keeps every reduced cost >= 0 and makes the path tight.
        for (int t = 0; t < nodes; t++) {
            while (excess[t] < 0) {
                phase++;
                int count = 0;
                dist[t] = 0;
                seen[t] = phase;
                queue.reset();
                queue.push(0, t);
                int source = -1;
                long reach = 0;
                long bestSupply = Long.MAX_VALUE;
                while (queue.count > 0) {
                    int u = queue.pop();
                    long d = queue.last;
                    if (done[u] == phase || d > dist[u]) {
                        continue;
                    }
                    done[u] = phase;
                    settled[count++] = u;
                    if (excess[u] > 0) {
                        source = u;
                        reach = d;
                        break;
                    }
                    long pu = pot[u];
                    // residual arcs v -> u: forward arcs into u with room, then the reverse of
                    // arcs out of u carrying flow
                    for (int i = rinFirst[u], e = rinFirst[u + 1]; i < e; i++) {
                        int a = rin[i];
                        if (rcap[a] == 0) {
                            continue;
                        }
                        int v = from[a];
                        if (done[v] == phase) {
                            continue;
                        }
                        long nd = d + rcost[a] + pot[v] - pu;
                        if (nd < d || nd >= BOUND) {
                            return null; // a negative reduced cost or out of range: not ours
                        }
                        if (nd >= bestSupply) {
                            continue;
                        }
                        if (excess[v] > 0) {
                            bestSupply = nd;
                        }
                        if (seen[v] != phase || nd < dist[v]) {
                            seen[v] = phase;
                            dist[v] = nd;
                            via[v] = a;
                            queue.push(nd, v);
                        }
                    }
                }
                if (source < 0 || reach >= BOUND) {
                    return null;
                }
                for (int i = 0; i < count; i++) {
                    int v = settled[i];
                    long p = pot[v] + reach - dist[v];
                    if (p >= BOUND) {
                        return null;
                    }
                    pot[v] = p;
                }
                long push = Math.min(excess[source], -excess[t]);
                for (int v = source; v != t; v = to[via[v]]) {
                    push = Math.min(push, rcap[via[v]]);
                }
                for (int v = source; v != t; v = to[via[v]]) {
                    rcap[via[v]] -= push;
                    rcap[via[v] ^ 1] += push;
                }
                excess[source] -= push;
                excess[t] += push;
            }
        }
        long[] flows = new long[arcs];
        for (int a = 0; a < arcs; a++) {
            flows[a] = rcap[2 * a + 1];
        }
        return flows;
    }

    /**
     * The phases as {@link ShortestPathFlow}'s (from each supply forward to the nearest
     * demand), on the radix heap, with the residual network and potentials the start left.
     */
    private static long[] forward(int nodes, int arcs, int[] tail, int[] head, int[] to,
                                  long[] rcap, long[] rcost, int[] first, int[] adj,
                                  long[] excess, long[] pot, long[] dist, int[] seen, int[] done,
                                  int[] via, int[] settled, Radix queue, int phase) {
        // Backward residual arcs (2a+1, a carrying flow) per head node, kept up to date.
        int[][] back = new int[nodes][];
        int[] backCount = new int[nodes];
        int[] backPos = new int[arcs];
        for (int a = 0; a < arcs; a++) {
            if (rcap[2 * a + 1] > 0) {
                addBack(back, backCount, backPos, head[a], a);
            }
        }
        for (int s = 0; s < nodes; s++) {
            while (excess[s] > 0) {
                phase++;
                int count = 0;
                dist[s] = 0;
                seen[s] = phase;
                queue.reset();
                queue.push(0, s);
                int target = -1;
                long reach = 0;
                long bestDemand = Long.MAX_VALUE;
                while (queue.count > 0) {
                    int u = queue.pop();
                    long d = queue.last;
                    if (done[u] == phase || d > dist[u]) {
                        continue;
                    }
                    done[u] = phase;
                    settled[count++] = u;
                    if (excess[u] < 0) {
                        target = u;
                        reach = d;
                        break;
                    }
                    long pu = pot[u];
                    int fwd = first[u + 1] - first[u];
                    int[] bl = back[u];
                    for (int i = 0, e = fwd + backCount[u]; i < e; i++) {
                        int a = i < fwd ? adj[first[u] + i] : 2 * bl[i - fwd] + 1;
                        if (rcap[a] == 0) {
                            continue;
                        }
                        int v = to[a];
                        if (done[v] == phase) {
                            continue;
                        }
                        long nd = d + rcost[a] + pu - pot[v];
                        if (nd < d || nd >= BOUND) {
                            return null; // a negative reduced cost or out of range: not ours
                        }
                        if (nd >= bestDemand) {
                            continue;
                        }
                        if (excess[v] < 0) {
                            bestDemand = nd;
                        }
                        if (seen[v] != phase || nd < dist[v]) {
                            seen[v] = phase;
                            dist[v] = nd;
                            via[v] = a;
                            queue.push(nd, v);
                        }
                    }
                }
                if (target < 0) {
                    return null;
                }
                for (int i = 0; i < count; i++) {
                    int v = settled[i];
                    long p = pot[v] + dist[v] - reach;
                    if (p <= -BOUND) {
                        return null;
                    }
                    pot[v] = p;
                }
                long push = Math.min(excess[s], -excess[target]);
                for (int v = target; v != s; v = to[via[v] ^ 1]) {
                    push = Math.min(push, rcap[via[v]]);
                }
                for (int v = target; v != s; v = to[via[v] ^ 1]) {
                    int a = via[v];
                    int arc = a >>> 1;
                    boolean had = rcap[2 * arc + 1] > 0;
                    rcap[a] -= push;
                    rcap[a ^ 1] += push;
                    boolean has = rcap[2 * arc + 1] > 0;
                    if (has && !had) {
                        addBack(back, backCount, backPos, head[arc], arc);
                    } else if (had && !has) {
                        int h = head[arc];
                        int[] l = back[h];
                        int last = l[--backCount[h]];
                        l[backPos[arc]] = last;
                        backPos[last] = backPos[arc];
                    }
                }
                excess[s] -= push;
                excess[target] += push;
            }
        }
        long[] flows = new long[arcs];
        for (int a = 0; a < arcs; a++) {
            flows[a] = rcap[2 * a + 1];
        }
        return flows;
    }

    private static void addBack(int[][] back, int[] backCount, int[] backPos, int h, int arc) {
        int[] l = back[h];
        if (l == null) {
            l = back[h] = new int[4];
        } else if (backCount[h] == l.length) {
            l = back[h] = Arrays.copyOf(l, l.length * 2);
        }
        backPos[arc] = backCount[h];
        l[backCount[h]++] = arc;
    }

    /**
     * A radix heap of (key, node) for Dijkstra's monotone keys (never below the last popped
     * one, {@link #last}): bucket 0 holds keys equal to it, bucket i those whose highest bit
     * differing from it is bit i - 1. A pop from an empty bucket 0 moves the lowest non-empty
     * bucket down around its least key. Keys must be in [0, 2^63).
     */
    private static final class Radix {
        private final long[][] keys = new long[64][];
        private final int[][] vals = new int[64][];
        private final int[] size = new int[64];
        private long nonEmpty;
        long last;
        int count;

        Radix() {
            for (int i = 0; i < 64; i++) {
                keys[i] = new long[8];
                vals[i] = new int[8];
            }
        }

        void reset() {
            while (nonEmpty != 0) {
                int i = Long.numberOfTrailingZeros(nonEmpty);
                size[i] = 0;
                nonEmpty &= nonEmpty - 1;
            }
            last = 0;
            count = 0;
        }

        void push(long k, int v) {
            count++;
            put(k == last ? 0 : 64 - Long.numberOfLeadingZeros(k ^ last), k, v);
        }

        private void put(int b, long k, int v) {
            int n = size[b];
            if (n == keys[b].length) {
                keys[b] = Arrays.copyOf(keys[b], 2 * n);
                vals[b] = Arrays.copyOf(vals[b], 2 * n);
            }
            keys[b][n] = k;
            vals[b][n] = v;
            size[b] = n + 1;
            nonEmpty |= 1L << b;
        }

        /** Removes an entry of the least key; {@link #last} is then its key. */
        int pop() {
            if (size[0] == 0) {
                int i = Long.numberOfTrailingZeros(nonEmpty);
                long[] ks = keys[i];
                int[] vs = vals[i];
                int n = size[i];
                long min = ks[0];
                for (int j = 1; j < n; j++) {
                    min = Math.min(min, ks[j]);
                }
                last = min;
                size[i] = 0;
                nonEmpty &= ~(1L << i);
                for (int j = 0; j < n; j++) {
                    long k = ks[j];
                    put(k == min ? 0 : 64 - Long.numberOfLeadingZeros(k ^ min), k, vs[j]);
                }
            }
            count--;
            int n = --size[0];
            if (n == 0) {
                nonEmpty &= ~1L;
            }
            return vals[0][n];
        }
    }
}
