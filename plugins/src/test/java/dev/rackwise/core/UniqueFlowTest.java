package dev.rackwise.core;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link UniqueFlow} against {@link ShortestPathFlow} (the solver whose answers it must keep):
 * wherever it returns a flow, that flow is the one ShortestPathFlow returns, on seeded random
 * networks shaped like the task core's (tasks, rack groups, clients, one sink), with costs from
 * wide (few ties) to narrow (many ties, where the check must refuse).
 */
class UniqueFlowTest {
    /** A network: nodes, supplies, arcs (tail, head, capacity, cost). */
    record Net(int nodes, long[] supply, int[] tail, int[] head, long[] cap, long[] cost) {
        int arcs() {
            return tail.length;
        }
    }

    static Net random(Random r, int costRange) {
        int units = 1 + r.nextInt(60);
        int groups = 1 + r.nextInt(4);
        int clients = 1 + r.nextInt(12);
        int nodes = units + groups + clients + 1;
        int sink = nodes - 1;
        long[] supply = new long[nodes];
        List<long[]> arcs = new ArrayList<>();
        long total = 0;
        for (int u = 0; u < units; u++) {
            supply[u] = 1 + r.nextInt(2);
            total += supply[u];
        }
        for (int c = 0; c < clients; c++) {
            arcs.add(new long[] {units + groups + c, sink, total, 0});
        }
        for (int g = 0; g < groups; g++) {
            for (int c = 0; c < clients; c++) {
                if (r.nextInt(3) > 0) {
                    arcs.add(new long[] {units + g, units + groups + c, 1 + r.nextInt(6), r.nextInt(costRange)});
                }
            }
        }
        for (int u = 0; u < units; u++) {
            for (int g = 0; g < groups; g++) {
                arcs.add(new long[] {u, units + g, 1 + r.nextInt(2), r.nextInt(costRange)});
            }
            arcs.add(new long[] {u, units + groups + r.nextInt(clients), total,
                    costRange + r.nextInt(costRange)});
        }
        supply[sink] = -total;
        int m = arcs.size();
        int[] t = new int[m];
        int[] h = new int[m];
        long[] c = new long[m];
        long[] w = new long[m];
        for (int a = 0; a < m; a++) {
            long[] x = arcs.get(a);
            t[a] = (int) x[0];
            h[a] = (int) x[1];
            c[a] = x[2];
            w[a] = x[3];
        }
        return new Net(nodes, supply, t, h, c, w);
    }

    /** Every unit to every client (the exact standby graph's shape), dense enough that the
     *  phases search forward. */
    static Net dense(Random r, int costRange) {
        int units = 300 + r.nextInt(40);
        int clients = 100 + r.nextInt(20);
        int nodes = units + clients + 1;
        int sink = nodes - 1;
        long[] supply = new long[nodes];
        int m = units * clients + clients;
        int[] t = new int[m];
        int[] h = new int[m];
        long[] c = new long[m];
        long[] w = new long[m];
        int a = 0;
        long total = 0;
        for (int u = 0; u < units; u++) {
            supply[u] = 1 + r.nextInt(2);
            total += supply[u];
            for (int k = 0; k < clients; k++, a++) {
                t[a] = u;
                h[a] = units + k;
                c[a] = 1;
                w[a] = r.nextInt(costRange);
            }
        }
        for (int k = 0; k < clients; k++, a++) {
            t[a] = units + k;
            h[a] = sink;
            c[a] = (total + clients - 1) / clients + r.nextInt(3);
            w[a] = 0;
        }
        supply[sink] = -total;
        return new Net(nodes, supply, t, h, c, w);
    }

    private static long cost(Net n, long[] flows) {
        long c = 0;
        for (int a = 0; a < n.arcs(); a++) {
            c += flows[a] * n.cost()[a];
        }
        return c;
    }

    @Test
    void certifiedFlowsAreShortestPathFlowsOwn() {
        long seed = Long.getLong("rackwise.seed", 20261128L);
        System.out.println("UniqueFlowTest seed=" + seed);
        Random rnd = new Random(seed);
        int[] ranges = {1_000_000, 1000, 20, 3};
        int[] certified = new int[ranges.length];
        int[] refused = new int[ranges.length];
        for (int k = 0; k < ranges.length; k++) {
            for (int round = 0; round < 600; round++) {
                Net n = random(rnd, ranges[k]);
                String where = "seed=" + seed + " range=" + ranges[k] + " round=" + round;
                long[] ref = ShortestPathFlow.solve(n.nodes(), n.supply(), n.arcs(), n.tail(),
                        n.head(), n.cap(), n.cost());
                assertNotNull(ref, where);
                long[] pot = new long[n.nodes()];
                long[] raw = UniqueFlow.flow(n.nodes(), n.supply(), n.arcs(), n.tail(), n.head(),
                        n.cap(), n.cost(), pot);
                assertNotNull(raw, where);
                assertEquals(cost(n, ref), cost(n, raw), "an optimum either way: " + where);
                long[] got = UniqueFlow.solve(n.nodes(), n.supply(), n.arcs(), n.tail(), n.head(),
                        n.cap(), n.cost());
                if (got == null) {
                    refused[k]++;
                } else {
                    certified[k]++;
                    assertArrayEquals(ref, got, where);
                }
            }
        }
        // the check must both accept (wide costs) and refuse (narrow ones: ties)
        assertTrue(certified[0] > 300, "wide costs: " + certified[0] + " certified of 600");
        assertTrue(refused[3] > 100, "narrow costs: " + refused[3] + " refused of 600");
    }

    @Test
    void denseNetworksToo() {
        long seed = Long.getLong("rackwise.seed", 20261128L);
        Random rnd = new Random(seed);
        int certified = 0;
        for (int round = 0; round < 30; round++) {
            Net n = dense(rnd, round % 2 == 0 ? 1_000_000_000 : 50);
            assertTrue(n.arcs() > 64L * n.nodes(), "dense: " + n.arcs() + " arcs, " + n.nodes() + " nodes");
            String where = "seed=" + seed + " dense round=" + round;
            long[] ref = ShortestPathFlow.solve(n.nodes(), n.supply(), n.arcs(), n.tail(),
                    n.head(), n.cap(), n.cost());
            long[] got = UniqueFlow.solve(n.nodes(), n.supply(), n.arcs(), n.tail(), n.head(),
                    n.cap(), n.cost());
            if (got != null) {
                certified++;
                assertArrayEquals(ref, got, where);
            }
        }
        assertTrue(certified >= 10, "dense: " + certified + " certified of 30");
    }

    @Test
    void refusesATie() {
        // one unit, two equal ways to the sink
        int[] t = {0, 0, 1, 2};
        int[] h = {1, 2, 3, 3};
        long[] cap = {1, 1, 1, 1};
        long[] cost = {5, 5, 0, 0};
        long[] supply = {1, 0, 0, -1};
        assertNull(UniqueFlow.solve(4, supply, 4, t, h, cap, cost));
        cost[1] = 6;
        assertArrayEquals(new long[] {1, 0, 1, 0}, UniqueFlow.solve(4, supply, 4, t, h, cap, cost));
    }

    @Test
    void refusesParallelArcsThatTie() {
        // two arcs 0 -> 1 of one cost, one unit: two optima
        long[] supply = {1, -1};
        assertNull(UniqueFlow.solve(2, supply, 2, new int[] {0, 0}, new int[] {1, 1},
                new long[] {1, 1}, new long[] {3, 3}));
        // one arc half full, tight both ways, no other way round: unique
        assertArrayEquals(new long[] {1}, UniqueFlow.solve(2, supply, 1, new int[] {0},
                new int[] {1}, new long[] {2}, new long[] {3}));
    }

    @Test
    void certifyRejectsWhatIsNotTheUniqueOptimum() {
        int[] t = {0, 0, 1, 2};
        int[] h = {1, 2, 3, 3};
        long[] cap = {1, 1, 1, 1};
        long[] cost = {5, 6, 0, 0};
        long[] supply = {1, 0, 0, -1};
        long[] pot = new long[4];
        long[] best = UniqueFlow.flow(4, supply, 4, t, h, cap, cost, pot);
        assertTrue(UniqueFlow.certify(4, supply, 4, t, h, cap, cost, best, pot));
        // the dearer way: feasible, but no potentials prove it optimal
        long[] dear = {0, 1, 0, 1};
        assertFalse(UniqueFlow.certify(4, supply, 4, t, h, cap, cost, dear, pot));
        assertFalse(UniqueFlow.certify(4, supply, 4, t, h, cap, cost, dear, new long[] {0, -5, -6, -6}));
        // infeasible: the supply is not met
        assertFalse(UniqueFlow.certify(4, supply, 4, t, h, cap, cost, new long[4], pot));
    }
}
