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
 * <p>Feeders: a node no arc enters, with at most {@link #FEED_DEGREE} arcs (a type of
 * partitions of their own weight, in the consumer core), is only ever passed through: in from
 * a node {@code A} its flow goes to, by the back arc of {@code e = t->A}, and out to {@code B}
 * by {@code f = t->B}. The way {@code A -> t -> B} costs {@code cost[f] - cost[e]} plus
 * {@code pot[A] - pot[B]}, whatever {@code t}'s potential, so a feeder is never put in the
 * heap: per pair {@code (A, B)} a heap of its {@code (e, f)} pairs by that cost gives the
 * cheapest way at once, instead of a scan of the hundreds of feeders {@code A} may have. A
 * pair whose {@code e} no longer carries flow or whose {@code f} is full is dropped when it
 * comes to the top; a feeder whose flow changes is entered again with its new pairs. Its own
 * potential is used only while it is the search's start, before which only its arcs' heads'
 * potentials have moved, and they only go down, so its arcs out stay of reduced cost >= 0.
 *
 * <p>The result is a least-cost flow; which one, when several tie, is this solver's business,
 * so {@link LexFlow} uses it only with a perturbation (a unique optimum). Returns null when
 * the supplies cannot be met or a potential would leave its safe range (the caller then falls
 * back to {@link MinCostFlow}).
 */
final class ShortestPathFlow {
    private static final long BOUND = 1L << 62;
    /** A node no arc enters with at most this many arcs out is a feeder (class comment). */
    static final int FEED_DEGREE = 8;

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
        // Feeders (class comment): their carrying arcs are in feeds, not in the back lists.
        boolean[] feeder = new boolean[nodes];
        Arrays.fill(feeder, true);
        for (int a = 0; a < arcs; a++) {
            feeder[head[a]] = false;
        }
        for (int v = 0; v < nodes; v++) {
            feeder[v] &= first[v + 1] - first[v] <= FEED_DEGREE;
        }
        Feeds feeds = new Feeds(nodes);
        int[] viaFeed = new int[nodes];
        int[] fedAt = new int[nodes];
        int[] path = new int[2 * nodes + 2];
        Feeds.Stash stash = new Feeds.Stash();
        // the nodes whose distance a settled node's scan lowered, each once; feeders to enter again
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
                        if (!had && !feeder[tail[arc]]) {
                            int h = head[arc];
                            int[] l = back[h];
                            if (l == null) {
                                l = back[h] = new int[4];
                            } else if (backCount[h] == l.length) {
                                l = back[h] = Arrays.copyOf(l, l.length * 2);
                            }
                            backPos[arc] = backCount[h];
                            l[backCount[h]++] = arc;
                        }
                    }
                    excess[s] -= push;
                    excess[found] += push;
                }
            }
            for (int v = 0; v < nodes; v++) {
                if (feeder[v]) {
                    feeds.enter(v, first, adj, head, rcap, cost);
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
                            fedAt[v] = 0;
                            if (!touched[v]) {
                                touched[v] = true;
                                improved[nImproved++] = v;
                            }
                        }
                    }
                    // through u's feeders: per head B, the cheapest (e, f) pair still usable
                    Feeds.Heap[] hs = feeds.out[u];
                    for (int h = 0, hn = feeds.outCount[u]; h < hn; h++) {
                        Feeds.Heap hp = hs[h];
                        int v = hp.to;
                        if (done[v] == phase) {
                            continue;
                        }
                        while (hp.size > 0) {
                            int e0 = hp.e[0];
                            if (rcap[2 * e0 + 1] == 0 || rcap[2 * hp.f[0]] == 0) {
                                hp.pop(); // stale: e carries nothing now, or f is full
                            } else if (tail[e0] == s) { // never back through the start:
                                stash.add(hp);            // aside until this search ends
                                hp.pop();
                            } else {
                                break;
                            }
                        }
                        if (hp.size == 0) {
                            continue;
                        }
                        long nd = d + hp.key[0] + pu - pot[v];
                        if (nd >= bestDemand) {
                            continue;
                        }
                        if (excess[v] < 0) {
                            bestDemand = nd;
                        }
                        if (seen[v] != phase || nd < dist[v]) {
                            seen[v] = phase;
                            dist[v] = nd;
                            via[v] = 2 * hp.f[0];
                            viaFeed[v] = hp.e[0];
                            fedAt[v] = phase;
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
                stash.restore();
                if (target < 0 || reach >= BOUND) {
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
                int len = 0;
                for (int v = target; v != s;) {
                    int a = via[v];
                    path[len++] = a;
                    if (fedAt[v] == phase) { // B <- t <- A through a feeder
                        int e = viaFeed[v];
                        path[len++] = 2 * e + 1;
                        v = head[e];
                    } else {
                        v = to[a ^ 1];
                    }
                }
                long push = Math.min(excess[s], -excess[target]);
                for (int i = 0; i < len; i++) {
                    push = Math.min(push, rcap[path[i]]);
                }
                int nFed = 0;
                for (int i = 0; i < len; i++) {
                    int a = path[i];
                    int arc = a >>> 1;
                    boolean had = rcap[2 * arc + 1] > 0;
                    rcap[a] -= push;
                    rcap[a ^ 1] += push;
                    boolean has = rcap[2 * arc + 1] > 0;
                    int t = tail[arc];
                    if (feeder[t]) {
                        if (!touched[t]) {
                            touched[t] = true;
                            improved[nFed++] = t;
                        }
                    } else if (has && !had) {
                        int h = head[arc];
                        int[] l = back[h];
                        if (l == null) {
                            l = back[h] = new int[4];
                        } else if (backCount[h] == l.length) {
                            l = back[h] = Arrays.copyOf(l, l.length * 2);
                        }
                        backPos[arc] = backCount[h];
                        l[backCount[h]++] = arc;
                    } else if (had && !has) {
                        int h = head[arc];
                        int[] l = back[h];
                        int last = l[--backCount[h]];
                        l[backPos[arc]] = last;
                        backPos[last] = backPos[arc];
                    }
                }
                for (int i = 0; i < nFed; i++) {
                    touched[improved[i]] = false;
                    feeds.enter(improved[i], first, adj, head, rcap, cost);
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

    /**
     * The feeders' (e, f) pairs (class comment): per node {@code A} its heaps, one per head
     * {@code B}, each by {@code cost[f] - cost[e]}. Stale pairs stay until they reach a top.
     */
    static final class Feeds {
        final Heap[][] out;
        final int[] outCount;
        private final java.util.HashMap<Long, Heap> byPair = new java.util.HashMap<>();

        Feeds(int nodes) {
            out = new Heap[nodes][];
            outCount = new int[nodes];
        }

        /** Feeder t's pairs as they are now: each arc carrying flow with each other arc with room. */
        void enter(int t, int[] first, int[] adj, int[] head, long[] rcap, long[] cost) {
            for (int i = first[t]; i < first[t + 1]; i++) {
                int e = adj[i] >>> 1;
                if (rcap[2 * e + 1] == 0) {
                    continue;
                }
                for (int j = first[t]; j < first[t + 1]; j++) {
                    int f = adj[j] >>> 1;
                    if (j == i || rcap[2 * f] == 0 || head[f] == head[e]) {
                        continue;
                    }
                    heap(head[e], head[f]).push(cost[f] - cost[e], e, f);
                }
            }
        }

        private Heap heap(int from, int to) {
            Heap h = byPair.get(((long) from << 32) | to);
            if (h == null) {
                h = new Heap(to);
                byPair.put(((long) from << 32) | to, h);
                Heap[] l = out[from];
                if (l == null) {
                    l = out[from] = new Heap[2];
                } else if (outCount[from] == l.length) {
                    l = out[from] = Arrays.copyOf(l, l.length * 2);
                }
                l[outCount[from]++] = h;
            }
            return h;
        }

        /** Tops taken off their heaps for one search, put back after it. */
        static final class Stash {
            private Heap[] heaps = new Heap[4];
            private long[] key = new long[4];
            private int[] e = new int[4];
            private int[] f = new int[4];
            private int size;

            /** Keeps h's top (the caller pops it). */
            void add(Heap h) {
                if (size == heaps.length) {
                    heaps = Arrays.copyOf(heaps, 2 * size);
                    key = Arrays.copyOf(key, 2 * size);
                    e = Arrays.copyOf(e, 2 * size);
                    f = Arrays.copyOf(f, 2 * size);
                }
                heaps[size] = h;
                key[size] = h.key[0];
                e[size] = h.e[0];
                f[size++] = h.f[0];
            }

            void restore() {
                for (int i = 0; i < size; i++) {
                    heaps[i].push(key[i], e[i], f[i]);
                    heaps[i] = null;
                }
                size = 0;
            }
        }

        /** A binary heap of (key, e, f) with the least key at 0 (ties: any order). */
        static final class Heap {
            final int to;
            long[] key = new long[4];
            int[] e = new int[4];
            int[] f = new int[4];
            int size;

            Heap(int to) {
                this.to = to;
            }

            void push(long k, int pe, int pf) {
                if (size == key.length) {
                    key = Arrays.copyOf(key, 2 * size);
                    e = Arrays.copyOf(e, 2 * size);
                    f = Arrays.copyOf(f, 2 * size);
                }
                int i = size++;
                while (i > 0) {
                    int p = (i - 1) >>> 1;
                    if (key[p] <= k) {
                        break;
                    }
                    key[i] = key[p];
                    e[i] = e[p];
                    f[i] = f[p];
                    i = p;
                }
                key[i] = k;
                e[i] = pe;
                f[i] = pf;
            }

            void pop() {
                size--;
                long k = key[size];
                int pe = e[size];
                int pf = f[size];
                int i = 0;
                while (true) {
                    int c = 2 * i + 1;
                    if (c >= size) {
                        break;
                    }
                    if (c + 1 < size && key[c + 1] < key[c]) {
                        c++;
                    }
                    if (key[c] >= k) {
                        break;
                    }
                    key[i] = key[c];
                    e[i] = e[c];
                    f[i] = f[c];
                    i = c;
                }
                if (size > 0) {
                    key[i] = k;
                    e[i] = pe;
                    f[i] = pf;
                }
            }
        }
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
