package dev.rackwise.core;

/**
 * {@link ShortestPathFlow}'s start: with potentials that
 * leave every node's cheapest way to a demand tight (reduced cost 0), a supply is sent along a
 * path of tight forward residual arcs with room, found depth first. A node found with no such
 * way to a demand is marked dead and never tried again (forward capacities and demands only
 * shrink during the start). Each path has reduced cost 0, so it is a shortest path, and the
 * pushes are successive shortest paths, only cheaper.
 *
 * <p>Each node keeps its place in its arc list from one search to the next (a current-arc
 * pointer): an arc passed over once stays unusable for the rest of the start, since forward
 * capacities only shrink, dead nodes stay dead and the potentials do not change. So the start
 * costs the arcs once plus the length of each path, not a rescan of a busy node's arcs for
 * every path through it; it finds the same paths as a rescan would.
 *
 * <p>The residual network is the solvers' own: arc {@code 2a} forward, {@code 2a + 1} back,
 * node {@code u}'s forward arcs at {@code adj[first[u]] .. adj[first[u + 1] - 1]}. The caller
 * applies the push (it keeps books of its own on the arcs that gain room).
 */
final class TightPaths {
    private final int[] first;
    private final int[] adj;
    private final int[] to;
    private final long[] rcap;
    private final long[] rcost;
    private final long[] pot;
    private final long[] excess;
    private final boolean[] dead;
    private final int[] next;
    /** The residual arcs of the path {@link #find} found, {@code stack[0 .. depth)}. */
    final int[] stack;
    int depth;

    TightPaths(int nodes, int[] first, int[] adj, int[] to, long[] rcap, long[] rcost, long[] pot,
               long[] excess) {
        this.first = first;
        this.adj = adj;
        this.to = to;
        this.rcap = rcap;
        this.rcost = rcost;
        this.pot = pot;
        this.excess = excess;
        this.dead = new boolean[nodes];
        this.next = java.util.Arrays.copyOf(first, nodes);
        this.stack = new int[nodes + 1];
    }

    /** Whether {@code s} has excess left and may still reach a demand along tight arcs. */
    boolean open(int s) {
        return excess[s] > 0 && !dead[s];
    }

    /** A node with demand reached from {@code s} along tight arcs with room, or -1 (s is dead). */
    int find(int s) {
        depth = 0;
        int u = s;
        while (true) {
            if (excess[u] < 0) {
                return u;
            }
            boolean advanced = false;
            for (; next[u] < first[u + 1]; next[u]++) {
                int a = adj[next[u]];
                int v = to[a];
                if (rcap[a] > 0 && !dead[v] && rcost[a] + pot[u] - pot[v] == 0) {
                    stack[depth++] = a;
                    u = v;
                    advanced = true;
                    break;
                }
            }
            if (!advanced) {
                dead[u] = true;
                if (depth == 0) {
                    return -1;
                }
                depth--;
                u = to[stack[depth] ^ 1];
                next[u]++;
            }
        }
    }

    /** The most that can go from {@code s} to {@code found} along the path just found. */
    long room(int s, int found) {
        long push = Math.min(excess[s], -excess[found]);
        for (int i = 0; i < depth; i++) {
            push = Math.min(push, rcap[stack[i]]);
        }
        return push;
    }
}
