package dev.rackwise.core;

import java.util.Arrays;

/**
 * An exact min-cost flow on integers, built node by node and arc by arc, solved once.
 *
 * <p>Primal-dual: a super source feeds every supply and a super sink drains every demand;
 * each phase runs Dijkstra on reduced costs from the super source, moves the potentials,
 * then pushes a blocking flow (Dinic) along the arcs whose reduced cost is zero. The number
 * of phases is the number of distinct shortest-path lengths, which is small on rackwise's
 * networks (a few distinct costs, large capacities). Costs must be &ge; 0.
 *
 * <p>Example: supply 2 at {@code s}, demand 2 at {@code t}, arcs s&rarr;t (cap 1, cost 5) and
 * s&rarr;a&rarr;t (cap 2, cost 1 + 1): the flow is 2 along s&rarr;a&rarr;t, cost 4.
 *
 * <p>A convex arc ({@link #addConvexArc}) carries units at non-decreasing marginal costs; a
 * push along it stops where its marginal cost changes, so reduced costs stay exact.
 *
 * <p>One instance is used by one thread. Public so that {@code dev.rackwise.tasks} solves
 * its networks with the same solver.
 */
public final class MinCostFlow {
    private static final long INF = Long.MAX_VALUE / 4;

    private int nodes;
    private long[] supply = new long[16];
    // Arc 2k is the k-th arc the caller added, 2k+1 its reverse (residual) arc.
    private int arcs;
    private int[] tail = new int[32];
    private int[] head = new int[32];
    private long[] cap = new long[32];
    private long[] cost = new long[32];
    private long[] original;
    // Convex arcs: per arc (both directions) an index into the marginal costs, or -1.
    private int[] convexOf;
    private long[][] marginal = new long[4][];
    private int[][] runEnd = new int[4][];
    private int[][] runStart = new int[4][];
    private int convexArcs;

    public int addNode() {
        if (nodes == supply.length) {
            supply = Arrays.copyOf(supply, nodes * 2);
        }
        return nodes++;
    }

    public int nodeCount() {
        return nodes;
    }

    public void addSupply(int node, long amount) {
        supply[node] += amount;
    }

    /** Adds an arc; returns its id for {@link #flow(int)}. */
    public int addArc(int from, int to, long capacity, long unitCost) {
        if (capacity < 0 || unitCost < 0) {
            throw new IllegalArgumentException("arc " + from + "->" + to + ": capacity and cost must be >= 0");
        }
        int id = push(from, to, capacity, unitCost);
        push(to, from, 0, -unitCost);
        return id / 2;
    }

    /**
     * Adds an arc whose i-th unit costs {@code marginals[i]} (never decreasing, so the cost
     * is convex): its capacity is {@code marginals.length}. Returns its id.
     */
    int addConvexArc(int from, int to, long[] marginals) {
        for (int i = 0; i < marginals.length; i++) {
            if (marginals[i] < 0 || i > 0 && marginals[i] < marginals[i - 1]) {
                throw new IllegalArgumentException("convex arc " + from + "->" + to + ": marginals must be >= 0 and non-decreasing");
            }
        }
        int id = addArc(from, to, marginals.length, marginals.length == 0 ? 0 : marginals[0]);
        if (convexOf == null) {
            convexOf = new int[tail.length];
            Arrays.fill(convexOf, -1);
        }
        if (convexOf.length < tail.length) {
            int old = convexOf.length;
            convexOf = Arrays.copyOf(convexOf, tail.length);
            Arrays.fill(convexOf, old, convexOf.length, -1);
        }
        if (convexArcs == marginal.length) {
            marginal = Arrays.copyOf(marginal, convexArcs * 2);
            runEnd = Arrays.copyOf(runEnd, convexArcs * 2);
            runStart = Arrays.copyOf(runStart, convexArcs * 2);
        }
        int n = marginals.length;
        int[] end = new int[n];
        int[] start = new int[n];
        for (int i = n - 1; i >= 0; i--) {
            end[i] = i + 1 < n && marginals[i + 1] == marginals[i] ? end[i + 1] : i;
        }
        for (int i = 0; i < n; i++) {
            start[i] = i > 0 && marginals[i - 1] == marginals[i] ? start[i - 1] : i;
        }
        marginal[convexArcs] = marginals.clone();
        runEnd[convexArcs] = end;
        runStart[convexArcs] = start;
        convexOf[2 * id] = convexArcs;
        convexOf[2 * id + 1] = convexArcs;
        convexArcs++;
        return id;
    }

    /** The cost of one more unit on residual arc a (a convex arc's next or last unit). */
    private long costOf(int a) {
        if (convexOf == null || a >= convexOf.length || convexOf[a] < 0) {
            return cost[a];
        }
        long[] m = marginal[convexOf[a]];
        int f = (int) cap[a | 1];
        if ((a & 1) == 0) {
            return m[Math.min(f, m.length - 1)];
        }
        return -m[Math.max(f - 1, 0)];
    }

    /** How many units residual arc a carries at its current unit cost. */
    private long room(int a) {
        if (convexOf == null || a >= convexOf.length || convexOf[a] < 0) {
            return cap[a];
        }
        int k = convexOf[a];
        int f = (int) cap[a | 1];
        if ((a & 1) == 0) {
            return f >= marginal[k].length ? 0 : runEnd[k][f] - f + 1;
        }
        return f == 0 ? 0 : f - runStart[k][f - 1];
    }

    private int push(int from, int to, long c, long w) {
        if (arcs == tail.length) {
            int n = arcs * 2;
            tail = Arrays.copyOf(tail, n);
            head = Arrays.copyOf(head, n);
            cap = Arrays.copyOf(cap, n);
            cost = Arrays.copyOf(cost, n);
        }
        tail[arcs] = from;
        head[arcs] = to;
        cap[arcs] = c;
        cost[arcs] = w;
        return arcs++;
    }

    /** The flow on arc {@code id} after {@link #solve()}. */
    public long flow(int id) {
        return cap[2 * id + 1] - original[2 * id + 1];
    }

    /**
     * Meets every supply and demand at least cost. Returns that cost, or -1 when no flow
     * meets them (the supplies do not balance, or the capacities cannot carry them).
     */
    public long solve() {
        long balance = 0;
        long need = 0;
        for (int v = 0; v < nodes; v++) {
            balance += supply[v];
            need += Math.max(0, supply[v]);
        }
        int userArcs = arcs;
        int src = addNode();
        int snk = addNode();
        for (int v = 0; v < nodes - 2; v++) {
            if (supply[v] > 0) {
                addArc(src, v, supply[v], 0);
            } else if (supply[v] < 0) {
                addArc(v, snk, -supply[v], 0);
            }
        }
        original = Arrays.copyOf(cap, arcs);
        if (balance != 0) {
            return -1;
        }
        int[] first = new int[nodes + 1];
        for (int a = 0; a < arcs; a++) {
            first[tail[a] + 1]++;
        }
        for (int v = 0; v < nodes; v++) {
            first[v + 1] += first[v];
        }
        int[] adj = new int[arcs];
        int[] fill = Arrays.copyOf(first, nodes);
        for (int a = 0; a < arcs; a++) {
            adj[fill[tail[a]]++] = a;
        }
        long[] pot = new long[nodes];
        long[] dist = new long[nodes];
        int[] level = new int[nodes];
        int[] iter = new int[nodes];
        int[] queue = new int[nodes];
        int[] pathArc = new int[nodes + 1];
        long[] hk = new long[Math.max(16, arcs + 1)];
        int[] hv = new int[hk.length];
        long sent = 0;
        while (sent < need) {
            // Dijkstra on reduced costs; potentials then move by min(dist, dist(sink)), which
            // keeps every residual reduced cost >= 0 and makes shortest paths zero-cost.
            Arrays.fill(dist, INF);
            dist[src] = 0;
            int size = 0;
            hk[0] = 0;
            hv[0] = src;
            size = 1;
            boolean[] done = new boolean[nodes];
            while (size > 0) {
                int u = hv[0];
                size--;
                hk[0] = hk[size];
                hv[0] = hv[size];
                siftDown(hk, hv, size);
                if (done[u]) {
                    continue;
                }
                done[u] = true;
                if (u == snk) {
                    break;
                }
                for (int i = first[u]; i < first[u + 1]; i++) {
                    int a = adj[i];
                    if (cap[a] == 0) {
                        continue;
                    }
                    int v = head[a];
                    long nd = dist[u] + costOf(a) + pot[u] - pot[v];
                    if (nd < dist[v]) {
                        dist[v] = nd;
                        if (size == hk.length) {
                            hk = Arrays.copyOf(hk, size * 2);
                            hv = Arrays.copyOf(hv, size * 2);
                        }
                        hk[size] = nd;
                        hv[size] = v;
                        siftUp(hk, hv, size++);
                    }
                }
            }
            if (dist[snk] >= INF) {
                return -1;
            }
            long dt = dist[snk];
            for (int v = 0; v < nodes; v++) {
                pot[v] += Math.min(dist[v], dt);
            }
            // Blocking flows on the admissible subgraph (reduced cost 0, capacity left).
            while (true) {
                Arrays.fill(level, -1);
                level[src] = 0;
                int qh = 0;
                int qt = 0;
                queue[qt++] = src;
                while (qh < qt) {
                    int u = queue[qh++];
                    for (int i = first[u]; i < first[u + 1]; i++) {
                        int a = adj[i];
                        int v = head[a];
                        if (cap[a] > 0 && level[v] < 0 && costOf(a) + pot[u] - pot[v] == 0) {
                            level[v] = level[u] + 1;
                            queue[qt++] = v;
                        }
                    }
                }
                if (level[snk] < 0) {
                    break;
                }
                System.arraycopy(first, 0, iter, 0, nodes);
                long pushed = blocking(src, snk, first, adj, level, iter, pathArc, pot);
                sent += pushed;
            }
        }
        // The cost, summed on the arcs the caller added (exact, no potentials involved).
        long c = 0;
        for (int a = 0; a < userArcs; a += 2) {
            long f = cap[a + 1] - original[a + 1];
            if (convexOf != null && a < convexOf.length && convexOf[a] >= 0) {
                long[] m = marginal[convexOf[a]];
                for (int i = 0; i < f; i++) {
                    c = Math.addExact(c, m[i]);
                }
            } else {
                c = Math.addExact(c, Math.multiplyExact(f, cost[a]));
            }
        }
        return c;
    }

    /** Dinic's blocking flow, iteratively (paths can be long in residual graphs). */
    private long blocking(int src, int snk, int[] first, int[] adj, int[] level, int[] iter, int[] pathArc, long[] pot) {
        long pushed = 0;
        int depth = 0;
        int u = src;
        while (true) {
            if (u == snk) {
                long b = INF;
                for (int d = 0; d < depth; d++) {
                    b = Math.min(b, room(pathArc[d]));
                }
                for (int d = 0; d < depth; d++) {
                    int a = pathArc[d];
                    cap[a] -= b;
                    cap[a ^ 1] += b;
                }
                // Retreat to the first arc that is full or, being convex, now costs more.
                int back = depth;
                for (int d = 0; d < depth; d++) {
                    int a = pathArc[d];
                    if (cap[a] == 0 || costOf(a) + pot[tail[a]] - pot[head[a]] != 0) {
                        back = d;
                        break;
                    }
                }
                pushed += b;
                depth = back;
                u = depth == 0 ? src : head[pathArc[depth - 1]];
                continue;
            }
            boolean advanced = false;
            for (; iter[u] < first[u + 1]; iter[u]++) {
                int a = adj[iter[u]];
                int v = head[a];
                if (cap[a] > 0 && level[v] == level[u] + 1 && costOf(a) + pot[u] - pot[v] == 0) {
                    pathArc[depth++] = a;
                    u = v;
                    advanced = true;
                    break;
                }
            }
            if (!advanced) {
                level[u] = -1;
                if (depth == 0) {
                    return pushed;
                }
                depth--;
                u = tail[pathArc[depth]];
                iter[u]++;
            }
        }
    }

    private static void siftUp(long[] k, int[] v, int i) {
        long x = k[i];
        int y = v[i];
        while (i > 0) {
            int p = (i - 1) >>> 1;
            if (k[p] <= x) {
                break;
            }
            k[i] = k[p];
            v[i] = v[p];
            i = p;
        }
        k[i] = x;
        v[i] = y;
    }

    private static void siftDown(long[] k, int[] v, int size) {
        if (size == 0) {
            return;
        }
        int i = 0;
        long x = k[0];
        int y = v[0];
        while (true) {
            int c = 2 * i + 1;
            if (c >= size) {
                break;
            }
            if (c + 1 < size && k[c + 1] < k[c]) {
                c++;
            }
            if (k[c] >= x) {
                break;
            }
            k[i] = k[c];
            v[i] = v[c];
            i = c;
        }
        k[i] = x;
        v[i] = y;
    }
}
