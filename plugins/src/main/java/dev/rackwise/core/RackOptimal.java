package dev.rackwise.core;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * The rack-optimal assignment (docs/rack-optimal.md § 4-5): among the balanced assignments, one
 * of least cost, then fewest moves, then the one the shared perturbation picks, found as a
 * min-cost flow over the collapsed network of § 4.2 and decoded to partitions (§ 4.3, 4.4, 5).
 *
 * <p>Network (nodes: the sink, one per kind, one per pool, one per supply; arcs in exactly the
 * stated order): kinds drain to the sink above their floors, pools feed the kinds at their place
 * that subscribe their class, supplies (partitions of one type, with or without an owner kind)
 * feed their owner kind directly (keep) and every pool of their class. Its size depends on how
 * many kinds of members and partitions there are, not on how many partitions.
 *
 * <p>Example: members m1 (az1) and m2 (az2) reading followers, topic t with t-0 only in az1
 * and t-1 only in az2: m1 gets t-0, m2 gets t-1, cost 0.
 *
 * <p>Stateless and thread-safe: each call builds its own arrays.
 */
public final class RackOptimal {
    private RackOptimal() {
    }

    /** An optimal assignment of {@code problem}; a {@link CoreInputException} says why not. */
    public static Solution solve(Problem problem) {
        return solve(IndexedProblem.of(problem)).toSolution();
    }

    /**
     * An optimal assignment of {@code problem}, the same one {@link #solve(Problem)} gives for
     * the same problem as a {@link Problem}; a {@link CoreInputException} says why not.
     */
    public static IndexedSolution solve(IndexedProblem problem) {
        long t0 = System.nanoTime();
        Instance in = new Instance(problem);
        long t1 = System.nanoTime();
        Network net = build(in);
        long t2 = System.nanoTime();
        net.flow.solveInTwoStages();
        long t3 = System.nanoTime();
        IndexedSolution s = Decode.assign(in, net);
        long t4 = System.nanoTime();
        if (TIMING) {
            System.err.printf("core: instance %d ms, network %d ms (%d nodes, %d arcs, band %d ms), flow %d ms (bits %d), decode %d ms%n",
                    (t1 - t0) / 1000000, (t2 - t1) / 1000000, net.flow.nodeCount(), net.flow.arcCount(), net.bandNanos / 1000000,
                    (t3 - t2) / 1000000, net.flow.bitsUsed(), (t4 - t3) / 1000000);
        }
        return s;
    }

    private static final boolean TIMING = Boolean.getBoolean("rackwise.core.timing");

    /** The collapsed network of § 4.1-4.2, with what the decode needs to read its flow. */
    static final class Network {
        final LexFlow flow = new LexFlow()
                .keep(2, "costs too large to solve exactly: lower traffic_cost or weights");
        final Balance band;
        int kinds;
        /** Per kind: its members (ascending), its place, its floor lo. */
        int[][] kindMembers;
        int[] kindPlace;
        /** Per kind, its arcs to the sink. */
        int[][] kindSinkArcs;
        /** Per kind, its pool arcs (in pool order): the pools and the arcs. */
        int[][] kindPools;
        int[][] kindPoolArcs;
        /** Per kind, its owned supplies in supply order (so type order): supply ids. */
        int[][] kindSupplies;
        int pools;
        int[] poolClass;
        int[] poolPlace;
        /** Per (class, place): the pool, or -1. */
        int[] poolOf;
        int supplies;
        int[] supplyType;
        /** The owner kind, or -1 for (type, none). */
        int[] supplyKind;
        long[] supplyUnits;
        /** The keep arc (owned supplies), else -1. */
        int[] keepArc;
        /** The arcs to the pools of the supply's class, in pool order (parallel to classPools). */
        int[][] supplyPoolArcs;
        /** Per class, its pools in pool order. */
        int[][] classPools;
        /** The decode's § 4.3.1 cursor per kind. */
        int[] cursors;
        long bandNanos;

        Network(Balance band) {
            this.band = band;
        }
    }

    static Network build(Instance in) {
        long b0 = System.nanoTime();
        Balance band = Balance.of(in.n, in.classSize, in.classMembers);
        Network net = new Network(band);
        // Every unit runs supply -> pool -> kind -> sink at most: the path bound 3P (§ 4.2).
        net.flow.pathBound(3L * in.parts);
        net.bandNanos = System.nanoTime() - b0;
        // One method per section: the JIT compiles (and recompiles) each on its own.
        int[] kindFirst = kinds(in, net);
        PoolKinds pk = pools(in, net, kindFirst);
        supplies(in, net, kindFirst);
        arcs(in, net, band, kindFirst, pk);
        return net;
    }

    /** Kinds (§ 4.1): members by (signature, place, owned profile); each kind's first member. */
    private static int[] kinds(Instance in, Network net) {
        int n = in.n;
        // Signatures (the set of classes a member subscribes) as ids.
        Map<Instance.IntList, Integer> sigIds = new HashMap<>();
        int[] sigOf = new int[n];
        for (int m = 0; m < n; m++) {
            Instance.IntList key = new Instance.IntList();
            key.a = in.memberClasses[m];
            key.size = key.a.length;
            sigOf[m] = sigIds.computeIfAbsent(key, x -> sigIds.size());
        }
        // Kinds: (signature, place, profile); members ascending, kinds by their first member.
        Map<Instance.IntList, Integer> kindIds = new HashMap<>();
        int[] kindOf = new int[n];
        int[] kindSize = new int[n];
        int kinds = 0;
        for (int m = 0; m < n; m++) {
            Instance.IntList key = new Instance.IntList();
            key.add(sigOf[m]);
            key.add(in.placeOf[m]);
            int from = in.ownedStart[m];
            int to = in.ownedStart[m + 1];
            for (int i = from; i < to; ) {
                int t = in.ownedType[i];
                int j = i;
                while (j < to && in.ownedType[j] == t) {
                    j++;
                }
                key.add(t);
                key.add(j - i);
                i = j;
            }
            Integer k = kindIds.get(key);
            if (k == null) {
                k = kinds++;
                kindIds.put(key, k);
            }
            kindOf[m] = k;
            kindSize[k]++;
        }
        net.kinds = kinds;
        net.kindMembers = new int[kinds][];
        net.kindPlace = new int[kinds];
        int[] kindFirst = new int[kinds];
        for (int k = 0; k < kinds; k++) {
            net.kindMembers[k] = new int[kindSize[k]];
            kindSize[k] = 0;
        }
        for (int m = n - 1; m >= 0; m--) {
            kindFirst[kindOf[m]] = m;
        }
        for (int m = 0; m < n; m++) {
            int k = kindOf[m];
            net.kindMembers[k][kindSize[k]++] = m;
            net.kindPlace[k] = in.placeOf[m];
        }

        return kindFirst;
    }

    /** Per pool, the kinds it feeds: kinds {@code kinds[start[pool]] .. kinds[start[pool + 1] - 1]}. */
    private record PoolKinds(int[] start, int[] kinds) {
    }

    /** Pools (§ 4.1): (class, place) where some member of the class sits, and the kinds each feeds. */
    private static PoolKinds pools(Instance in, Network net, int[] kindFirst) {
        int classes = in.classSize.length;
        int places = in.places;
        int kinds = net.kinds;
        // Pools: (class, place) where some member of the class sits, in (class, place) order.
        net.poolOf = new int[classes * places];
        Arrays.fill(net.poolOf, -1);
        int pools = 0;
        net.classPools = new int[classes][];
        boolean[] at = new boolean[places];
        for (int c = 0; c < classes; c++) {
            Arrays.fill(at, false);
            int count = 0;
            for (int m : in.classMembers[c]) {
                if (!at[in.placeOf[m]]) {
                    at[in.placeOf[m]] = true;
                    count++;
                }
            }
            net.classPools[c] = new int[count];
            int i = 0;
            for (int q = 0; q < places; q++) {
                if (at[q]) {
                    net.poolOf[c * places + q] = pools;
                    net.classPools[c][i++] = pools++;
                }
            }
        }
        net.pools = pools;
        net.poolClass = new int[pools];
        net.poolPlace = new int[pools];
        for (int c = 0; c < classes; c++) {
            for (int q = 0; q < places; q++) {
                int k = net.poolOf[c * places + q];
                if (k >= 0) {
                    net.poolClass[k] = c;
                    net.poolPlace[k] = q;
                }
            }
        }
        // Per pool, the kinds it feeds (kind order): every kind at its place whose signature holds its class.
        int[] poolKindCount = new int[pools + 1];
        for (int k = 0; k < kinds; k++) {
            for (int c : in.memberClasses[kindFirst[k]]) {
                poolKindCount[net.poolOf[c * places + net.kindPlace[k]] + 1]++;
            }
        }
        for (int k = 0; k < pools; k++) {
            poolKindCount[k + 1] += poolKindCount[k];
        }
        int[] poolKinds = new int[poolKindCount[pools]];
        int[] fill = Arrays.copyOf(poolKindCount, pools);
        for (int k = 0; k < kinds; k++) {
            for (int c : in.memberClasses[kindFirst[k]]) {
                int pool = net.poolOf[c * places + net.kindPlace[k]];
                poolKinds[fill[pool]++] = k;
            }
        }

        return new PoolKinds(poolKindCount, poolKinds);
    }

    /** Supplies (§ 4.1): (type, none) then (type, owner kind), and each one's units. */
    private static void supplies(Instance in, Network net, int[] kindFirst) {
        int kinds = net.kinds;
        // Supplies: (type, none) then (type, owner kind) by kind, in type order.
        long[] noneUnits = new long[in.types];
        for (int p = 0; p < in.parts; p++) {
            if (in.pKeeper[p] < 0) {
                noneUnits[in.pType[p]]++;
            }
        }
        // (type, kind, per-member count) of every kind's profile
        int profiles = 0;
        for (int k = 0; k < kinds; k++) {
            int m = kindFirst[k];
            for (int i = in.ownedStart[m]; i < in.ownedStart[m + 1]; i++) {
                if (i == in.ownedStart[m] || in.ownedType[i] != in.ownedType[i - 1]) {
                    profiles++;
                }
            }
        }
        long[] ownedKeys = new long[profiles];
        int[] ownedPer = new int[kinds * 0 + profiles];
        profiles = 0;
        for (int k = 0; k < kinds; k++) {
            int m = kindFirst[k];
            for (int i = in.ownedStart[m]; i < in.ownedStart[m + 1]; i++) {
                if (i == in.ownedStart[m] || in.ownedType[i] != in.ownedType[i - 1]) {
                    ownedKeys[profiles++] = (long) in.ownedType[i] * (kinds + 1L) + k + 1;
                }
            }
        }
        Arrays.sort(ownedKeys);
        int noneCount = 0;
        for (long u : noneUnits) {
            noneCount += u > 0 ? 1 : 0;
        }
        int supplies = noneCount + profiles;
        net.supplies = supplies;
        net.supplyType = new int[supplies];
        net.supplyKind = new int[supplies];
        net.supplyUnits = new long[supplies];
        int s = 0;
        int o = 0;
        for (int t = 0; t < in.types; t++) {
            if (noneUnits[t] > 0) {
                net.supplyType[s] = t;
                net.supplyKind[s] = -1;
                net.supplyUnits[s++] = noneUnits[t];
            }
            while (o < profiles && ownedKeys[o] / (kinds + 1L) == t) {
                int k = (int) (ownedKeys[o] % (kinds + 1L)) - 1;
                net.supplyType[s] = t;
                net.supplyKind[s] = k;
                s++;
                o++;
            }
        }
        // Units of owned supplies: the kind's size x its members' count of the type.
        int[] kindSupplyCount = new int[kinds];
        for (s = 0; s < supplies; s++) {
            if (net.supplyKind[s] >= 0) {
                kindSupplyCount[net.supplyKind[s]]++;
            }
        }
        net.kindSupplies = new int[kinds][];
        for (int k = 0; k < kinds; k++) {
            net.kindSupplies[k] = new int[kindSupplyCount[k]];
            kindSupplyCount[k] = 0;
        }
        for (s = 0; s < supplies; s++) {
            int k = net.supplyKind[s];
            if (k >= 0) {
                net.kindSupplies[k][kindSupplyCount[k]++] = s;
            }
        }
        for (int k = 0; k < kinds; k++) {
            int m = kindFirst[k];
            int i = in.ownedStart[m];
            for (int sup : net.kindSupplies[k]) { // type order, like the member's owned runs
                int t = net.supplyType[sup];
                int j = i;
                while (j < in.ownedStart[m + 1] && in.ownedType[j] == t) {
                    j++;
                }
                net.supplyUnits[sup] = (long) (j - i) * net.kindMembers[k].length;
                i = j;
            }
        }

    }

    /** The nodes (sink, kinds, pools, supplies) and their arcs (§ 4.2). */
    private static void arcs(Instance in, Network net, Balance band, int[] kindFirst, PoolKinds pk) {
        int kinds = net.kinds;
        int pools = net.pools;
        int supplies = net.supplies;
        int[] poolKindCount = pk.start();
        int[] poolKinds = pk.kinds();
        int s;
        // Nodes: the sink, kinds, pools, supplies.
        LexFlow f = net.flow;
        int sink = f.addNode();
        int kindNode0 = sink + 1;
        for (int k = 0; k < kinds; k++) {
            f.addNode();
        }
        int poolNode0 = kindNode0 + kinds;
        for (int k = 0; k < pools; k++) {
            f.addNode();
        }
        int supplyNode0 = poolNode0 + pools;
        for (s = 0; s < supplies; s++) {
            f.addNode();
            f.setSupply(supplyNode0 + s, net.supplyUnits[s]);
        }
        // 1. kinds to the sink above their floors
        long floors = 0;
        net.kindSinkArcs = new int[kinds][];
        int lo = band.lo;
        for (int k = 0; k < kinds; k++) {
            int size = net.kindMembers[k].length;
            int top = Math.min(band.caps[kindFirst[k]], band.hi);
            f.setSupply(kindNode0 + k, -(long) size * lo);
            floors += (long) size * lo;
            if (band.uniform) {
                net.kindSinkArcs[k] = top > lo
                        ? new int[] {f.addArc(kindNode0 + k, sink, (long) size * (top - lo), 0, 0, 0)}
                        : new int[0];
            } else {
                int[] arcs = new int[Math.max(0, top - lo)];
                for (int l = lo + 1; l <= top; l++) {
                    arcs[l - lo - 1] = f.addArc(kindNode0 + k, sink, size, 2L * l - 1, 0, 0);
                }
                net.kindSinkArcs[k] = arcs;
            }
        }
        f.setSupply(sink, -(in.parts - floors));
        // 2. pools to kinds
        int[] kindPoolCount = new int[kinds];
        for (int k : poolKinds) {
            kindPoolCount[k]++;
        }
        net.kindPools = new int[kinds][];
        net.kindPoolArcs = new int[kinds][];
        for (int k = 0; k < kinds; k++) {
            net.kindPools[k] = new int[kindPoolCount[k]];
            net.kindPoolArcs[k] = new int[kindPoolCount[k]];
            kindPoolCount[k] = 0;
        }
        for (int pool = 0; pool < pools; pool++) {
            long size = in.classSize[net.poolClass[pool]];
            for (int i = poolKindCount[pool]; i < poolKindCount[pool + 1]; i++) {
                int k = poolKinds[i];
                int arc = f.addArc(poolNode0 + pool, kindNode0 + k, size, 0, 0, 0);
                net.kindPools[k][kindPoolCount[k]] = pool;
                net.kindPoolArcs[k][kindPoolCount[k]++] = arc;
            }
        }
        // 3. supplies: keep, then every pool of the class
        net.keepArc = new int[supplies];
        net.supplyPoolArcs = new int[supplies][];
        for (s = 0; s < supplies; s++) {
            int t = net.supplyType[s];
            int k = net.supplyKind[s];
            long units = net.supplyUnits[s];
            boolean ownedSupply = k >= 0;
            net.keepArc[s] = ownedSupply
                    ? f.addArc(supplyNode0 + s, kindNode0 + k, units, 0, in.typeUnit(t, net.kindPlace[k]), 0)
                    : -1;
            int[] cp = net.classPools[in.tClass[t]];
            int[] arcs = new int[cp.length];
            for (int i = 0; i < cp.length; i++) {
                int pool = cp[i];
                long cost = in.typeUnit(t, net.poolPlace[pool]) + (ownedSupply ? in.moveUnit : 0);
                arcs[i] = f.addArc(supplyNode0 + s, poolNode0 + pool, units, 0, cost, ownedSupply ? 1 : 0);
            }
            net.supplyPoolArcs[s] = arcs;
        }
    }
}
