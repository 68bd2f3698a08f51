package dev.rackwise.core;

import java.util.Arrays;

/**
 * An exact min-cost flow for {@link LexFlow}'s networks: successive shortest paths, one
 * supply node at a time, Dijkstra on reduced costs that stops at the first node with demand
 * left, on primitive arrays.
 *
 * <p>Why not one Dijkstra from a super source (as {@link MinCostFlow}):
 * with the perturbation every path cost is distinct, so each phase carries one unit, and a
 * search from a super source settles every supply node (all at distance 0) and relaxes
 * nearly every arc before it reaches the sink. From a single supply node the search settles
 * only the nodes closer than the nearest demand, usually a handful, so a phase costs about
 * one node's arcs. The invariant is the usual one: every residual arc has a reduced cost
 * {@code cost + pot[tail] - pot[head] >= 0}; after a search that reached the demand at
 * distance {@code D}, each settled node's potential moves by {@code dist - D} (others keep
 * theirs), which keeps the invariant and makes the path's arcs tight.
 *
 * <p>A node no arc enters whose flow leaves by one arc (a supply of one unit, as each
 * partition of its own weight is in the consumer core) has one residual arc in: the back arc
 * from where its flow goes. Its distance is exact as soon as that arc is relaxed, so it is
 * settled then and its own arcs relaxed at once, without a heap entry; a search from a pool
 * that hundreds of such nodes feed then costs a scan of them, not hundreds of sifts. It keeps
 * its potential unless its distance was below the demand's, as any unsettled node does.
 *
 * <p>The result is a least-cost flow; which one, when several tie, is this solver's business,
 * so {@link LexFlow} uses it only with a perturbation (a unique optimum). Returns null when
 * the supplies cannot be met or a potential would leave its safe range (the caller then falls
 * back to {@link MinCostFlow}).
 */
final class ShortestPathFlow {
    private static final long BOUND = 1L << 62;

    private ShortestPathFlow() {
    }

    /**
     * Flows per arc (arcs {@code 0..arcs-1}), or null (see the class comment). Costs must be
     * {@code >= 0}; supplies must balance.
     */
    static long[] solve(int nodes, long[] supply, int arcs, int[] tail, int[] head, long[] cap,
                        long[] cost) {
        int m = 2 * arcs;
        long[] rcap = new long[m];
        long[] rcost = new long[m];
        int[] to = new int[m];
        // Forward residual arcs (2a) per tail node, fixed; backward ones (2a+1, a carrying
        // flow) per head node in a list kept up to date, so a search never scans the many
        // arcs without flow into a node (a client's, from every task).
        int[] first = new int[nodes + 1];
        for (int a = 0; a < arcs; a++) {
            first[tail[a] + 1]++;
        }
        for (int v = 0; v < nodes; v++) {
            first[v + 1] += first[v];
        }
        int[] fill = Arrays.copyOf(first, nodes);
        int[] adj = new int[arcs];
        for (int a = 0; a < arcs; a++) {
            int f = 2 * a;
            rcap[f] = cap[a];
            rcost[f] = cost[a];
            to[f] = head[a];
            rcost[f + 1] = -cost[a];
            to[f + 1] = tail[a];
            adj[fill[tail[a]]++] = f;
        }
        int[][] back = new int[nodes][];
        int[] backCount = new int[nodes];
        int[] backPos = new int[arcs];
        // Nodes no arc enters, and each node's arcs out that carry flow: a node with both is
        // settled without the heap (class comment).
        boolean[] entered = new boolean[nodes];
        for (int a = 0; a < arcs; a++) {
            entered[head[a]] = true;
        }
        int[] carrying = new int[nodes];
        // the nodes whose distance a settled node's scan lowered, each once
        int[] improved = new int[nodes];
        boolean[] touched = new boolean[nodes];
        int nImproved = 0;
        long[] excess = Arrays.copyOf(supply, nodes);
        long balance = 0;
        for (int v = 0; v < nodes; v++) {
            balance += excess[v];
        }
        if (balance != 0) {
            return null;
        }
        long[] pot = new long[nodes];
        long[] dist = new long[nodes];
        int[] seen = new int[nodes];
        int[] done = new int[nodes];
        int[] via = new int[nodes];
        int[] settled = new int[nodes];
        // The binary heap of (distance, node) entries, entry i at heap[2i] (key) and heap[2i+1]
        // (node): one array, so a sift touches one cache line per level, not two.
        long[] heap = new long[128];
        int phase = 0;
        // Start: pot = -(least cost to any demand), one Dijkstra backwards from the demands,
        // so every node's cheapest way to a demand is tight (reduced cost 0); then send each
        // supply greedily along tight forward arcs. Each such path has reduced cost 0, a
        // shortest path, so this is successive shortest paths too, only cheaper.
        {
            int[] inFirst = new int[nodes + 1];
            for (int a = 0; a < arcs; a++) {
                inFirst[head[a] + 1]++;
            }
            for (int v = 0; v < nodes; v++) {
                inFirst[v + 1] += inFirst[v];
            }
            int[] inFill = Arrays.copyOf(inFirst, nodes);
            int[] inAdj = new int[arcs];
            for (int a = 0; a < arcs; a++) {
                inAdj[inFill[head[a]]++] = a;
            }
            phase++;
            int size = 0;
            for (int v = 0; v < nodes; v++) {
                if (excess[v] < 0) {
                    seen[v] = phase;
                    dist[v] = 0;
                    if (2 * size == heap.length) {
                        heap = Arrays.copyOf(heap, heap.length * 2);
                    }
                    siftUp(heap, size++, 0, v);
                }
            }
            while (size > 0) {
                long d = heap[0];
                int u = (int) heap[1];
                size--;
                if (size > 0) {
                    siftDown(heap, size, heap[2 * size], (int) heap[2 * size + 1]);
                }
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
                    if (done[v] != phase && (seen[v] != phase || nd < dist[v])) {
                        seen[v] = phase;
                        dist[v] = nd;
                        if (2 * size == heap.length) {
                            heap = Arrays.copyOf(heap, heap.length * 2);
                        }
                        siftUp(heap, size++, nd, v);
                    }
                }
            }
            for (int v = 0; v < nodes; v++) {
                if (done[v] != phase || dist[v] >= BOUND / 4) {
                    pot[v] = -(BOUND / 4);
                } else {
                    pot[v] = -dist[v];
                }
            }
            // Greedy pushes along tight forward arcs (TightPaths).
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
                        int a = stack[i];
                        int arc = a >>> 1;
                        boolean had = rcap[a ^ 1] > 0;
                        rcap[a] -= push;
                        rcap[a ^ 1] += push;
                        if (!had) {
                            int h = head[arc];
                            int[] l = back[h];
                            if (l == null) {
                                l = back[h] = new int[4];
                            } else if (backCount[h] == l.length) {
                                l = back[h] = Arrays.copyOf(l, l.length * 2);
                            }
                            backPos[arc] = backCount[h];
                            l[backCount[h]++] = arc;
                            carrying[tail[arc]]++;
                        }
                    }
                    excess[s] -= push;
                    excess[found] += push;
                }
            }
        }
        for (int s = 0; s < nodes; s++) {
            while (excess[s] > 0) {
                phase++;
                int size = 0;
                int count = 0;
                dist[s] = 0;
                seen[s] = phase;
                heap[0] = 0;
                heap[1] = s;
                size = 1;
                int target = -1;
                long reach = 0;
                long bestDemand = Long.MAX_VALUE;
                while (size > 0) {
                    long d = heap[0];
                    int u = (int) heap[1];
                    size--;
                    if (size > 0) {
                        siftDown(heap, size, heap[2 * size], (int) heap[2 * size + 1]);
                    }
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
                            if (!entered[v] && carrying[v] == 1 && excess[v] >= 0) {
                                // this arc is v's one way in: settled now, its arcs relaxed here
                                done[v] = phase;
                                settled[count++] = v;
                                long pv = pot[v];
                                for (int j = first[v], je = first[v + 1]; j < je; j++) {
                                    int b = adj[j];
                                    if (rcap[b] == 0) {
                                        continue;
                                    }
                                    int w = to[b];
                                    if (done[w] == phase) {
                                        continue;
                                    }
                                    long nw = nd + rcost[b] + pv - pot[w];
                                    if (nw >= bestDemand) {
                                        continue;
                                    }
                                    if (excess[w] < 0) {
                                        bestDemand = nw;
                                    }
                                    if (seen[w] != phase || nw < dist[w]) {
                                        seen[w] = phase;
                                        dist[w] = nw;
                                        via[w] = b;
                                        if (!touched[w]) {
                                            touched[w] = true;
                                            improved[nImproved++] = w;
                                        }
                                    }
                                }
                                continue;
                            }
                            if (!touched[v]) {
                                touched[v] = true;
                                improved[nImproved++] = v;
                            }
                        }
                    }
                    // one heap entry per node u improved, at its final distance: a pool fed by
                    // hundreds of one-unit nodes may improve hundreds of times in one scan
                    for (int i = 0; i < nImproved; i++) {
                        int v = improved[i];
                        touched[v] = false;
                        if (2 * size == heap.length) {
                            heap = Arrays.copyOf(heap, heap.length * 2);
                        }
                        siftUp(heap, size++, dist[v], v);
                    }
                    nImproved = 0;
                }
                if (target < 0 || reach >= BOUND) {
                    return null;
                }
                for (int i = 0; i < count; i++) {
                    int v = settled[i];
                    // a node settled without the heap may lie beyond the demand: it keeps its potential
                    long p = pot[v] + Math.min(dist[v], reach) - reach;
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
                        int h = head[arc];
                        int[] l = back[h];
                        if (l == null) {
                            l = back[h] = new int[4];
                        } else if (backCount[h] == l.length) {
                            l = back[h] = Arrays.copyOf(l, l.length * 2);
                        }
                        backPos[arc] = backCount[h];
                        l[backCount[h]++] = arc;
                        carrying[tail[arc]]++;
                    } else if (had && !has) {
                        int h = head[arc];
                        int[] l = back[h];
                        int last = l[--backCount[h]];
                        l[backPos[arc]] = last;
                        backPos[last] = backPos[arc];
                        carrying[tail[arc]]--;
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

    /** Places (x, y) at slot i of the heap and moves it up while its parent's key is larger. */
    private static void siftUp(long[] h, int i, long x, int y) {
        while (i > 0) {
            int p = (i - 1) >>> 1;
            long kp = h[2 * p];
            if (kp <= x) {
                break;
            }
            h[2 * i] = kp;
            h[2 * i + 1] = h[2 * p + 1];
            i = p;
        }
        h[2 * i] = x;
        h[2 * i + 1] = y;
    }

    /** Places (x, y) from the root down in a heap of {@code size} entries. */
    private static void siftDown(long[] h, int size, long x, int y) {
        int i = 0;
        while (true) {
            int c = 2 * i + 1;
            if (c >= size) {
                break;
            }
            if (c + 1 < size && h[2 * c + 2] < h[2 * c]) {
                c++;
            }
            if (h[2 * c] >= x) {
                break;
            }
            h[2 * i] = h[2 * c];
            h[2 * i + 1] = h[2 * c + 1];
            i = c;
        }
        h[2 * i] = x;
        h[2 * i + 1] = y;
    }
}
