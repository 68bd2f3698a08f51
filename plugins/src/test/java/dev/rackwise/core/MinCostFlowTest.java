package dev.rackwise.core;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;

class MinCostFlowTest {
    @Test
    void theDocumentedExample() {
        MinCostFlow f = new MinCostFlow();
        int s = f.addNode();
        int a = f.addNode();
        int t = f.addNode();
        f.addSupply(s, 2);
        f.addSupply(t, -2);
        int direct = f.addArc(s, t, 1, 5);
        int sa = f.addArc(s, a, 2, 1);
        f.addArc(a, t, 2, 1);
        assertEquals(4, f.solve());
        assertEquals(0, f.flow(direct));
        assertEquals(2, f.flow(sa));
    }

    @Test
    void infeasibleAndUnbalanced() {
        MinCostFlow f = new MinCostFlow();
        int s = f.addNode();
        int t = f.addNode();
        f.addSupply(s, 3);
        f.addSupply(t, -3);
        f.addArc(s, t, 2, 0);
        assertEquals(-1, f.solve());
        MinCostFlow g = new MinCostFlow();
        int u = g.addNode();
        int v = g.addNode();
        g.addSupply(u, 3);
        g.addSupply(v, -2);
        g.addArc(u, v, 5, 0);
        assertEquals(-1, g.solve());
    }

    /** Against a plain successive-shortest-path solver (Bellman-Ford, one unit at a time). */
    @Test
    void randomNetworksMatchAPlainSolver() {
        long seed = Long.getLong("rackwise.seed", 7L);
        System.out.println("MinCostFlowTest seed=" + seed);
        Random rnd = new Random(seed);
        for (int round = 0; round < 300; round++) {
            int n = 2 + rnd.nextInt(7);
            int m = rnd.nextInt(20);
            int[][] arcs = new int[m][];
            for (int i = 0; i < m; i++) {
                arcs[i] = new int[] {rnd.nextInt(n), rnd.nextInt(n), rnd.nextInt(5), rnd.nextInt(4) * (1 + rnd.nextInt(3))};
            }
            long[] supply = new long[n];
            for (int k = 0; k < 3; k++) {
                int a = rnd.nextInt(n);
                int b = rnd.nextInt(n);
                int q = rnd.nextInt(4);
                supply[a] += q;
                supply[b] -= q;
            }
            MinCostFlow f = new MinCostFlow();
            for (int v = 0; v < n; v++) {
                f.addNode();
                f.addSupply(v, supply[v]);
            }
            int[] ids = new int[m];
            for (int i = 0; i < m; i++) {
                ids[i] = f.addArc(arcs[i][0], arcs[i][1], arcs[i][2], arcs[i][3]);
            }
            long got = f.solve();
            long want = plain(n, arcs, supply);
            assertEquals(want, got, "seed=" + seed + " round=" + round);
            if (got >= 0) {
                long[] net = new long[n];
                long c = 0;
                for (int i = 0; i < m; i++) {
                    long fl = f.flow(ids[i]);
                    net[arcs[i][0]] += fl;
                    net[arcs[i][1]] -= fl;
                    c += fl * arcs[i][3];
                    assertEquals(true, fl >= 0 && fl <= arcs[i][2]);
                }
                assertEquals(Arrays.toString(supply), Arrays.toString(net));
                assertEquals(got, c);
            }
        }
    }

    /** Convex arcs against the plain solver with each convex arc as parallel unit arcs. */
    @Test
    void convexArcsMatchTheirUnitArcs() {
        long seed = Long.getLong("rackwise.seed", 17L);
        System.out.println("MinCostFlowTest convex seed=" + seed);
        Random rnd = new Random(seed);
        for (int round = 0; round < 300; round++) {
            int n = 2 + rnd.nextInt(6);
            int m = rnd.nextInt(14);
            List<int[]> units = new ArrayList<>();
            MinCostFlow f = new MinCostFlow();
            long[] supply = new long[n];
            for (int k = 0; k < 3; k++) {
                int q = rnd.nextInt(5);
                supply[rnd.nextInt(n)] += q;
                supply[rnd.nextInt(n)] -= q;
            }
            for (int v = 0; v < n; v++) {
                f.addNode();
                f.addSupply(v, supply[v]);
            }
            for (int i = 0; i < m; i++) {
                int from = rnd.nextInt(n);
                int to = rnd.nextInt(n);
                if (rnd.nextBoolean()) {
                    long[] marg = new long[rnd.nextInt(5)];
                    long c = rnd.nextInt(3);
                    for (int j = 0; j < marg.length; j++) {
                        c += rnd.nextInt(3) == 0 ? rnd.nextInt(4) : 0;
                        marg[j] = c;
                        units.add(new int[] {from, to, 1, (int) c});
                    }
                    f.addConvexArc(from, to, marg);
                } else {
                    int cap = rnd.nextInt(5);
                    int cost = rnd.nextInt(6);
                    units.add(new int[] {from, to, cap, cost});
                    f.addArc(from, to, cap, cost);
                }
            }
            assertEquals(plain(n, units.toArray(new int[0][]), supply), f.solve(), "seed=" + seed + " round=" + round);
        }
    }

    static long plain(int n, int[][] arcs, long[] supply) {
        int src = n;
        int snk = n + 1;
        int total = n + 2;
        int m = arcs.length;
        int[] from = new int[2 * (m + 2 * n)];
        int[] to = new int[from.length];
        long[] cap = new long[from.length];
        long[] cost = new long[from.length];
        int e = 0;
        long need = 0;
        for (int[] a : arcs) {
            from[e] = a[0]; to[e] = a[1]; cap[e] = a[2]; cost[e++] = a[3];
            from[e] = a[1]; to[e] = a[0]; cap[e] = 0; cost[e++] = -a[3];
        }
        for (int v = 0; v < n; v++) {
            int x = supply[v] > 0 ? src : v;
            int y = supply[v] > 0 ? v : snk;
            long c = Math.abs(supply[v]);
            need += Math.max(0, supply[v]);
            from[e] = x; to[e] = y; cap[e] = c; cost[e++] = 0;
            from[e] = y; to[e] = x; cap[e] = 0; cost[e++] = 0;
        }
        long bal = 0;
        for (long s : supply) {
            bal += s;
        }
        if (bal != 0) {
            return -1;
        }
        long res = 0;
        for (long u = 0; u < need; u++) {
            long[] dist = new long[total];
            int[] via = new int[total];
            Arrays.fill(dist, Long.MAX_VALUE);
            dist[src] = 0;
            for (int it = 0; it < total; it++) {
                for (int i = 0; i < e; i++) {
                    if (cap[i] > 0 && dist[from[i]] != Long.MAX_VALUE && dist[from[i]] + cost[i] < dist[to[i]]) {
                        dist[to[i]] = dist[from[i]] + cost[i];
                        via[to[i]] = i;
                    }
                }
            }
            if (dist[snk] == Long.MAX_VALUE) {
                return -1;
            }
            for (int v = snk; v != src; v = from[via[v]]) {
                cap[via[v]]--;
                cap[via[v] ^ 1]++;
            }
            res += dist[snk];
        }
        return res;
    }
}
