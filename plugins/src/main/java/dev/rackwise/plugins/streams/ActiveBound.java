package dev.rackwise.plugins.streams;

import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * The least number of active source partitions read across racks when each rack keeps the
 * number of active tasks the plan gave its clients (the plan's {@code lower_bound}, as
 * assignor/streams/plan.py's): a transportation problem, tasks to racks, solved exactly as a
 * min-cost flow (successive shortest paths; few racks, so small graphs). A task's cost in a rack
 * is the number of its source partitions with no replica there.
 *
 * <p>Example: tasks a (replica az1) and b (replica az1), one active per rack az1 and az2: 1.
 */
final class ActiveBound {
    private ActiveBound() {
    }

    /**
     * @param costs    per task, its cost in each rack ({@code costs[t][r]})
     * @param capacity per rack, how many active tasks its clients hold (sums to the task count)
     */
    static long solve(int[][] costs, int[] capacity) {
        int tasks = costs.length;
        int racks = capacity.length;
        int source = tasks + racks;
        int sink = source + 1;
        int n = sink + 1;
        Graph g = new Graph(n);
        for (int t = 0; t < tasks; t++) {
            g.add(source, t, 1, 0);
            for (int r = 0; r < racks; r++) {
                g.add(t, tasks + r, 1, costs[t][r]);
            }
        }
        for (int r = 0; r < racks; r++) {
            g.add(tasks + r, sink, capacity[r], 0);
        }
        long total = 0;
        long[] dist = new long[n];
        int[] via = new int[n];
        boolean[] queued = new boolean[n];
        for (int flow = 0; flow < tasks; flow++) {
            Arrays.fill(dist, Long.MAX_VALUE);
            Arrays.fill(via, -1);
            dist[source] = 0;
            ArrayDeque<Integer> q = new ArrayDeque<>();
            q.add(source);
            while (!q.isEmpty()) {
                int u = q.poll();
                queued[u] = false;
                for (int e = g.head[u]; e >= 0; e = g.next[e]) {
                    if (g.cap[e] > 0 && dist[u] + g.cost[e] < dist[g.to[e]]) {
                        dist[g.to[e]] = dist[u] + g.cost[e];
                        via[g.to[e]] = e;
                        if (!queued[g.to[e]]) {
                            queued[g.to[e]] = true;
                            q.add(g.to[e]);
                        }
                    }
                }
            }
            if (dist[sink] == Long.MAX_VALUE) {
                throw new IllegalArgumentException("rack capacities hold fewer than the tasks");
            }
            for (int v = sink; v != source; v = g.to[via[v] ^ 1]) {
                g.cap[via[v]]--;
                g.cap[via[v] ^ 1]++;
            }
            total += dist[sink];
        }
        return total;
    }

    /** Convenience: racks named, capacities by rack name, task costs by rack index of {@code racks}. */
    static long solve(List<int[]> costs, List<String> racks, Map<String, Integer> capacity) {
        int[] cap = new int[racks.size()];
        for (int r = 0; r < racks.size(); r++) {
            cap[r] = capacity.getOrDefault(racks.get(r), 0);
        }
        return solve(costs.toArray(new int[0][]), cap);
    }

    private static final class Graph {
        final int[] head;
        int[] to = new int[16];
        int[] next = new int[16];
        int[] cap = new int[16];
        long[] cost = new long[16];
        int edges;

        Graph(int n) {
            head = new int[n];
            Arrays.fill(head, -1);
        }

        void add(int u, int v, int c, long w) {
            arc(u, v, c, w);
            arc(v, u, 0, -w);
        }

        private void arc(int u, int v, int c, long w) {
            if (edges == to.length) {
                to = Arrays.copyOf(to, edges * 2);
                next = Arrays.copyOf(next, edges * 2);
                cap = Arrays.copyOf(cap, edges * 2);
                cost = Arrays.copyOf(cost, edges * 2);
            }
            to[edges] = v;
            cap[edges] = c;
            cost[edges] = w;
            next[edges] = head[u];
            head[u] = edges++;
        }
    }
}
