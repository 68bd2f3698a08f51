package dev.rackwise.core;

import java.util.Arrays;

/** Strongly connected components, for {@link LexFlow}'s second stage. */
final class StrongComponents {
    private StrongComponents() {
    }

    /**
     * The components of the residual graph of the arcs {@code arcs[0 .. n)}: arc {@code a}
     * gives {@code tail[a] -> head[a]} while {@code flows[a] < cap[a]} and {@code head[a] ->
     * tail[a]} while {@code flows[a] > 0}. Each node's successors in the order of
     * {@code arcs}; numbered as {@link #of}.
     */
    static int[] ofResidual(int nodes, int[] arcs, int n, int[] tail, int[] head, long[] cap,
                            long[] flows) {
        int[] deg = new int[nodes + 1];
        for (int i = 0; i < n; i++) {
            int a = arcs[i];
            if (flows[a] < cap[a]) {
                deg[tail[a] + 1]++;
            }
            if (flows[a] > 0) {
                deg[head[a] + 1]++;
            }
        }
        for (int v = 0; v < nodes; v++) {
            deg[v + 1] += deg[v];
        }
        int[] fill = Arrays.copyOf(deg, nodes);
        int[] to = new int[deg[nodes]];
        for (int i = 0; i < n; i++) {
            int a = arcs[i];
            if (flows[a] < cap[a]) {
                to[fill[tail[a]]++] = head[a];
            }
            if (flows[a] > 0) {
                to[fill[head[a]]++] = tail[a];
            }
        }
        return of(nodes, deg, to);
    }

    /** The number of components in {@code comp} (one more than its largest number). */
    static int count(int[] comp) {
        int comps = 0;
        for (int c : comp) {
            comps = Math.max(comps, c + 1);
        }
        return comps;
    }

    /**
     * The component of each node, numbered in the order Tarjan's algorithm closes them
     * (iterative, roots in node order). The graph is in CSR form: node {@code v}'s successors
     * are {@code to[deg[v]] .. to[deg[v + 1] - 1]}.
     */
    static int[] of(int nodes, int[] deg, int[] to) {
        int[] index = new int[nodes];
        int[] low = new int[nodes];
        int[] comp = new int[nodes];
        Arrays.fill(index, -1);
        boolean[] onStack = new boolean[nodes];
        int[] stack = new int[nodes];
        int[] call = new int[nodes];
        int[] next = new int[nodes];
        int sp = 0;
        int counter = 0;
        int comps = 0;
        for (int root = 0; root < nodes; root++) {
            if (index[root] >= 0) {
                continue;
            }
            int depth = 0;
            call[depth++] = root;
            index[root] = low[root] = counter++;
            next[root] = deg[root];
            stack[sp++] = root;
            onStack[root] = true;
            while (depth > 0) {
                int u = call[depth - 1];
                if (next[u] < deg[u + 1]) {
                    int v = to[next[u]++];
                    if (index[v] < 0) {
                        index[v] = low[v] = counter++;
                        next[v] = deg[v];
                        stack[sp++] = v;
                        onStack[v] = true;
                        call[depth++] = v;
                    } else if (onStack[v]) {
                        low[u] = Math.min(low[u], index[v]);
                    }
                } else {
                    depth--;
                    if (depth > 0) {
                        int parent = call[depth - 1];
                        low[parent] = Math.min(low[parent], low[u]);
                    }
                    if (low[u] == index[u]) {
                        int v;
                        do {
                            v = stack[--sp];
                            onStack[v] = false;
                            comp[v] = comps;
                        } while (v != u);
                        comps++;
                    }
                }
            }
        }
        return comp;
    }
}
