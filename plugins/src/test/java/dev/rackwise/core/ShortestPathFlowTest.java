package dev.rackwise.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;

import org.junit.jupiter.api.Test;

/**
 * {@link ShortestPathFlow} against the plain Bellman-Ford solver of {@link MinCostFlowTest}, on
 * networks shaped like the consumer core's weighted ones: many one-unit sources no arc enters
 * (settled without the heap), a few pools between them and the demands, capacities that make
 * flow move back through the sources, and costs drawn from a wide range as the perturbation's.
 */
class ShortestPathFlowTest {
    @Test
    void unitSourcesThroughPoolsMatchAPlainSolver() {
        long seed = Long.getLong("rackwise.seed", 23L);
        System.out.println("ShortestPathFlowTest seed=" + seed);
        Random rnd = new Random(seed);
        int oneUnitOneArc = 0;
        for (int round = 0; round < 400; round++) {
            int sources = 1 + rnd.nextInt(12);
            int pools = 1 + rnd.nextInt(4);
            int sinks = 1 + rnd.nextInt(3);
            int n = sources + pools + sinks;
            int maxArcs = sources * pools + pools * sinks + pools * pools;
            int[][] arcs = new int[maxArcs][];
            int m = 0;
            long[] supply = new long[n];
            for (int s = 0; s < sources; s++) {
                supply[s] = 1 + (rnd.nextInt(5) == 0 ? rnd.nextInt(3) : 0); // mostly one unit
                for (int q = 0; q < pools; q++) {
                    if (q == 0 || rnd.nextBoolean()) {
                        arcs[m++] = new int[] {s, sources + q, 1 + rnd.nextInt(3), rnd.nextInt(1_000_000)};
                    }
                }
            }
            long total = 0;
            for (long v : supply) {
                total += v;
            }
            for (int q = 0; q < pools; q++) {
                for (int k = 0; k < sinks; k++) {
                    arcs[m++] = new int[] {sources + q, sources + pools + k, rnd.nextInt((int) total + 1), rnd.nextInt(1_000_000)};
                }
                if (pools > 1 && rnd.nextBoolean()) {
                    int r = rnd.nextInt(pools);
                    if (r != q) {
                        arcs[m++] = new int[] {sources + q, sources + r, rnd.nextInt(4), rnd.nextInt(1_000_000)};
                    }
                }
            }
            // demands: the total split over the sinks
            for (long u = 0; u < total; u++) {
                supply[sources + pools + rnd.nextInt(sinks)]--;
            }
            int[][] used = java.util.Arrays.copyOf(arcs, m);
            int[] tail = new int[m];
            int[] head = new int[m];
            long[] cap = new long[m];
            long[] cost = new long[m];
            for (int i = 0; i < m; i++) {
                tail[i] = used[i][0];
                head[i] = used[i][1];
                cap[i] = used[i][2];
                cost[i] = used[i][3];
            }
            long want = MinCostFlowTest.plain(n, used, supply.clone());
            long[] flows = ShortestPathFlow.solve(n, supply.clone(), m, tail, head, cap, cost);
            if (want < 0) {
                assertEquals(null, flows, "infeasible: seed=" + seed + " round=" + round);
                continue;
            }
            assertNotNull(flows, "seed=" + seed + " round=" + round);
            long got = 0;
            long[] net = new long[n];
            int[] carrying = new int[n];
            for (int i = 0; i < m; i++) {
                assertTrue(flows[i] >= 0 && flows[i] <= cap[i], "capacity: seed=" + seed + " round=" + round);
                got += flows[i] * cost[i];
                net[tail[i]] += flows[i];
                net[head[i]] -= flows[i];
                carrying[tail[i]] += flows[i] > 0 ? 1 : 0;
            }
            assertEquals(java.util.Arrays.toString(supply), java.util.Arrays.toString(net), "balance: seed=" + seed + " round=" + round);
            assertEquals(want, got, "cost: seed=" + seed + " round=" + round);
            for (int s = 0; s < sources; s++) {
                oneUnitOneArc += supply[s] == 1 && carrying[s] == 1 ? 1 : 0;
            }
        }
        assertTrue(oneUnitOneArc > 400, "the networks should hold one-unit sources: " + oneUnitOneArc);
    }
}
