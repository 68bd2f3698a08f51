package dev.rackwise.core;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Counts to partitions (docs/rack-optimal.md § 5): kept partitions first, then every pooled
 * partition heaviest first to its previous owner when that makes no hot spot, else to the
 * least loaded pool member; then cost-neutral shifts and swaps that lower the busiest member's load.
 * None of it changes the cost or any member's count.
 *
 * <p>Example: one pool {a, b}, counts 1 and 1, weights 5 and 1, no owners: 5 goes to a (least
 * load, smallest id), 1 to b.
 */
final class Decode {
    private Decode() {
    }

    static Solution decode(Instance in, MinCostFlow net, RackOptimal.Pools pool,
                           long[] directCount, long[][] poolCount, int[][] poolIds) {
        int n = in.n;
        int[] owner = new int[in.parts];
        Arrays.fill(owner, -1);
        double[] load = new double[n];
        int[] count = new int[n];
        long[] given = new long[n];
        int[] poolOfPart = new int[in.parts];
        Arrays.fill(poolOfPart, -1);
        int pooled = 0;

        // 1. Kept: the first partitions of a node go to its previous owner, the rest to pools.
        for (int g = 0; g < in.groups; g++) {
            int[] ps = in.gParts[g];
            int taken = 0;
            if (directCount[g] > 0) {
                long f = directCount[g];
                int m = in.gOwner[g];
                for (int i = 0; i < f; i++) {
                    give(in, ps[taken++], m, owner, load, count);
                }
                given[m] += f;
            }
            for (int j = 0; j < poolCount[g].length; j++) {
                long f = poolCount[g][j];
                for (int i = 0; i < f; i++) {
                    poolOfPart[ps[taken++]] = poolIds[g][j];
                    pooled++;
                }
            }
        }
        int pools = pool.node.length;
        int[][] left = new int[pools][];
        for (int k = 0; k < pools; k++) {
            left[k] = new int[pool.members[k].length];
            for (int i = 0; i < left[k].length; i++) {
                left[k][i] = (int) net.flow(pool.arcs[k][i]);
                given[pool.members[k][i]] += left[k][i];
            }
        }
        double totalWeight = 0;
        for (int p = 0; p < in.parts; p++) {
            totalWeight += in.pWeight[p];
        }

        // 2. Pools, heaviest first.
        Integer[] order = new Integer[pooled];
        int o = 0;
        for (int p = 0; p < in.parts; p++) {
            if (poolOfPart[p] >= 0) {
                order[o++] = p;
            }
        }
        Arrays.sort(order, (x, y) -> {
            int c = Double.compare(in.pWeight[y], in.pWeight[x]);
            return c != 0 ? c : Integer.compare(x, y);
        });
        for (int p : order) {
            int k = poolOfPart[p];
            int[] ms = pool.members[k];
            double w = in.pWeight[p];
            int prev = in.pOwner[p];
            int pick = -1;
            if (prev >= 0) {
                int i = Arrays.binarySearch(ms, prev); // pool members are sorted by index
                if (i >= 0 && left[k][i] > 0) {
                    double fair = given[prev] * totalWeight / in.parts;
                    if (load[prev] + w <= Math.max(fair, w)) {
                        pick = i;
                    }
                }
            }
            if (pick < 0) {
                for (int i = 0; i < ms.length; i++) {
                    if (left[k][i] == 0) {
                        continue;
                    }
                    if (pick < 0 || load[ms[i]] < load[ms[pick]]
                            || load[ms[i]] == load[ms[pick]] && count[ms[i]] < count[ms[pick]]) {
                        pick = i;
                    }
                }
            }
            left[k][pick]--;
            give(in, p, ms[pick], owner, load, count);
        }

        // 3. Shifts and swaps: cost-neutral moves that lower the busiest member's load.
        if (!sameWeights(in)) {
            swaps(in, owner, load);
        }

        List<List<Integer>> lists = new ArrayList<>();
        for (int m = 0; m < n; m++) {
            lists.add(new ArrayList<>());
        }
        double cost = 0;
        long objective = 0;
        int moved = 0;
        for (int p = 0; p < in.parts; p++) {
            int m = owner[p];
            lists.get(m).add(p);
            cost += in.trafficCost(p, m);
            objective += in.unit(p, m);
            if (in.pOwner[p] != Instance.NO_OWNER && in.pOwner[p] != m) {
                moved++;
            }
        }
        cost += in.beta * moved;
        SortedMap<String, List<TopicPartition>> out = new TreeMap<>();
        for (int m = 0; m < n; m++) {
            List<TopicPartition> tps = new ArrayList<>(lists.get(m).size());
            for (int p : lists.get(m)) {
                tps.add(in.tp(p)); // partition indices are in (topic, partition) order
            }
            out.put(in.memberIds[m], Collections.unmodifiableList(tps));
        }
        return new Solution(Collections.unmodifiableSortedMap(out), cost, objective, moved);
    }

    private static void give(Instance in, int p, int m, int[] owner, double[] load, int[] count) {
        owner[p] = m;
        load[m] += in.pWeight[p];
        count[m]++;
    }

    /** x before y in (load, id) order. */
    private static boolean lighter(double[] load, int x, int y) {
        int c = Double.compare(load[x], load[y]);
        return c < 0 || c == 0 && x < y;
    }

    /** Moves member m to its place in the (load, id) order after its load changed. */
    private static void resort(int[] order, int[] at, double[] load, int m) {
        int i = at[m];
        while (i > 0 && lighter(load, m, order[i - 1])) {
            order[i] = order[i - 1];
            at[order[i]] = i;
            i--;
        }
        while (i + 1 < order.length && lighter(load, order[i + 1], m)) {
            order[i] = order[i + 1];
            at[order[i]] = i;
            i++;
        }
        order[i] = m;
        at[m] = i;
    }

    private static boolean sameWeights(Instance in) {
        for (int p = 1; p < in.parts; p++) {
            if (in.pWeight[p] != in.pWeight[0]) {
                return false;
            }
        }
        return true;
    }

    /** Removes p from the first {@code size} entries of {@code held} (order does not matter). */
    private static void remove(int[] held, int size, int p) {
        for (int i = 0; i < size; i++) {
            if (held[i] == p) {
                held[i] = held[size - 1];
                return;
            }
        }
    }

    private static void swaps(Instance in, int[] owner, double[] load) {
        int n = in.n;
        int[][] held = new int[n][];
        int[] size = new int[n];
        for (int p = 0; p < in.parts; p++) {
            size[owner[p]]++;
        }
        for (int m = 0; m < n; m++) {
            held[m] = new int[size[m]];
            size[m] = 0;
        }
        for (int p = 0; p < in.parts; p++) {
            held[owner[p]][size[owner[p]]++] = p;
        }
        // Members by (load, id), kept sorted: a swap changes two loads, so two insertion steps.
        Integer[] boxed = new Integer[n];
        for (int m = 0; m < n; m++) {
            boxed[m] = m;
        }
        Arrays.sort(boxed, (x, y) -> lighter(load, x, y) ? -1 : lighter(load, y, x) ? 1 : 0);
        int[] byLoad = new int[n];
        int[] at = new int[n];
        for (int i = 0; i < n; i++) {
            byLoad[i] = boxed[i];
            at[boxed[i]] = i;
        }
        for (int round = 0; round < 2 * n + 10; round++) {
            int a = 0;
            for (int m = 1; m < n; m++) {
                if (load[m] > load[a]) {
                    a = m;
                }
            }
            Integer[] mine = new Integer[size[a]];
            for (int i = 0; i < mine.length; i++) {
                mine[i] = held[a][i];
            }
            Arrays.sort(mine, (x, y) -> {
                int c = Double.compare(in.pWeight[y], in.pWeight[x]);
                return c != 0 ? c : Integer.compare(x, y);
            });
            boolean swapped = false;
            search:
            for (int p : mine) {
                if (in.pOwner[p] == a) {
                    continue; // the spread never moves a partition off its previous owner (§ 5)
                }
                double wp = in.pWeight[p];
                long upa = in.unit(p, a);
                for (int b : byLoad) {
                    if (!(load[b] < load[a])) {
                        break;
                    }
                    if (!in.inClass[in.pClass[p]][b] || in.unit(p, b) != upa) {
                        continue;
                    }
                    // A shift: b holds one partition fewer, so a and b trade counts.
                    boolean shift = size[b] == size[a] - 1 && Math.max(load[a] - wp, load[b] + wp) < load[a];
                    double bestMax = shift ? Math.max(load[a] - wp, load[b] + wp) : 0;
                    int best = -1;
                    int bestAt = -1;
                    for (int i = 0; i < size[b]; i++) {
                        int q = held[b][i];
                        double wq = in.pWeight[q];
                        if (!(wq < wp) || in.pOwner[q] == b || !in.inClass[in.pClass[q]][a]
                                || in.unit(q, a) != in.unit(q, b)) {
                            continue;
                        }
                        double worst = Math.max(load[a] - wp + wq, load[b] + wp - wq);
                        if (!(worst < load[a])) {
                            continue;
                        }
                        // ties: the shift, then the lightest q, then (topic, partition)
                        if ((best < 0 && !shift) || worst < bestMax
                                || best >= 0 && worst == bestMax
                                && (wq < in.pWeight[best] || wq == in.pWeight[best] && q < best)) {
                            best = q;
                            bestMax = worst;
                            bestAt = i;
                            shift = false;
                        }
                    }
                    if (shift) {
                        load[a] -= wp;
                        load[b] += wp;
                        owner[p] = b;
                        remove(held[a], size[a]--, p);
                        if (size[b] == held[b].length) {
                            held[b] = Arrays.copyOf(held[b], 2 * held[b].length + 1);
                        }
                        held[b][size[b]++] = p;
                        resort(byLoad, at, load, a);
                        resort(byLoad, at, load, b);
                        swapped = true;
                        break search;
                    }
                    if (best >= 0) {
                        load[a] = load[a] - wp + in.pWeight[best];
                        load[b] = load[b] + wp - in.pWeight[best];
                        owner[p] = b;
                        owner[best] = a;
                        held[b][bestAt] = p;
                        for (int i = 0; i < size[a]; i++) {
                            if (held[a][i] == p) {
                                held[a][i] = best;
                                break;
                            }
                        }
                        resort(byLoad, at, load, a);
                        resort(byLoad, at, load, b);
                        swapped = true;
                        break search;
                    }
                }
            }
            if (!swapped) {
                return;
            }
        }
    }
}
