package dev.rackwise.core;

import java.util.Arrays;

/**
 * How many partitions each member must and may get (docs/rack-optimal.md § 3).
 *
 * <p>Uniform subscriptions: every member {@code floor(P/N)} or {@code ceil(P/N)}. Mixed: the
 * band {@code [lo, hi]} of the best reachable maximum, then the best reachable minimum under
 * it, each by binary search over max-flow feasibility on the classes &times; groups network
 * (members with the same classes are one group).
 *
 * <p>Example: t1 (2 partitions) for a and b, t2 (6 partitions) for c: lo = 1, hi = 6.
 */
final class Balance {
    final int lo;
    final int hi;
    final boolean uniform;
    /** Per member, how many partitions its classes hold in all (it can take no more). */
    final int[] caps;
    /**
     * Per member, a load every balanced assignment gives it (at least lo): the classes it
     * alone subscribes, or a class's size less what its other subscribers can take at hi.
     * The flow starts members there, so a member alone on a big topic does not cost one
     * shortest-path phase per partition.
     */
    final int[] floors;

    private Balance(int lo, int hi, boolean uniform, int[] caps, int[][] classMembers, int[] classSizes) {
        this.lo = lo;
        this.hi = hi;
        this.uniform = uniform;
        this.caps = caps;
        this.floors = new int[caps.length];
        int[] alone = new int[caps.length];
        Arrays.fill(floors, lo);
        for (int c = 0; c < classSizes.length; c++) {
            int[] subs = classMembers[c];
            if (subs.length == 1) {
                alone[subs[0]] += classSizes[c];
            }
            long rest = classSizes[c] - (long) hi * (subs.length - 1);
            for (int m : subs) {
                floors[m] = (int) Math.max(floors[m], Math.min(rest, hi));
            }
        }
        for (int m = 0; m < caps.length; m++) {
            floors[m] = Math.min(Math.max(floors[m], alone[m]), Math.min(caps[m], hi));
        }
    }

    /** {@code classMembers[c]}: the members (indices below {@code members}) of class c. */
    static Balance of(int members, int[] classSizes, int[][] classMembers) {
        int[] caps = new int[members];
        long total = 0;
        boolean uniform = true;
        for (int c = 0; c < classSizes.length; c++) {
            total += classSizes[c];
            for (int m : classMembers[c]) {
                caps[m] += classSizes[c];
            }
            uniform &= classMembers[c].length == members;
        }
        if (members == 0) {
            return new Balance(0, 0, true, caps, classMembers, classSizes);
        }
        int p = (int) total;
        if (uniform) {
            return new Balance(p / members, (p + members - 1) / members, true, caps, classMembers, classSizes);
        }
        Groups groups = Groups.of(members, classMembers);
        int a = (p + members - 1) / members;
        int b = Math.max(p, a);
        while (a < b) { // smallest feasible maximum
            int mid = (a + b) >>> 1;
            if (feasible(members, classSizes, groups, 0, mid)) {
                b = mid;
            } else {
                a = mid + 1;
            }
        }
        int hi = a;
        int minCap = Integer.MAX_VALUE;
        for (int c : caps) {
            minCap = Math.min(minCap, c);
        }
        a = 0;
        b = Math.min(p / members, minCap);
        while (a < b) { // largest feasible minimum under that maximum
            int mid = (a + b + 1) >>> 1;
            if (feasible(members, classSizes, groups, mid, hi)) {
                a = mid;
            } else {
                b = mid - 1;
            }
        }
        return new Balance(a, hi, false, caps, classMembers, classSizes);
    }

    /**
     * Whether some assignment gives every member between lo and hi partitions: a max flow on
     * classes &times; groups, a group being the members with the same classes. Exact: a group
     * of k members takes between k lo and k hi, and any such amount splits among its members
     * (no member-and-class arc is narrower than its class), so the group stands for them all.
     */
    private static boolean feasible(int members, int[] classSizes, Groups groups, int lo, int hi) {
        long total = 0;
        for (int s : classSizes) {
            total += s;
        }
        if (total - (long) lo * members < 0) {
            return false;
        }
        MinCostFlow net = new MinCostFlow();
        int src = net.addNode();
        int sink = net.addNode();
        int[] node = new int[groups.count];
        for (int g = 0; g < groups.count; g++) {
            node[g] = net.addNode();
        }
        for (int c = 0; c < classSizes.length; c++) {
            int cn = net.addNode();
            net.addArc(src, cn, classSizes[c], 0);
            for (int g : groups.ofClass[c]) {
                net.addArc(cn, node[g], classSizes[c], 0);
            }
        }
        for (int g = 0; g < groups.count; g++) {
            long k = groups.size[g];
            net.addSupply(node[g], -lo * k);
            net.addArc(node[g], sink, (hi - lo) * k, 0);
        }
        net.addSupply(src, total);
        net.addSupply(sink, -(total - (long) lo * members));
        return net.solve() >= 0;
    }

    /** Members with the same classes, as groups: their sizes and, per class, its groups (ascending). */
    private static final class Groups {
        final int count;
        final int[] size;
        final int[][] ofClass;

        private Groups(int count, int[] size, int[][] ofClass) {
            this.count = count;
            this.size = size;
            this.ofClass = ofClass;
        }

        static Groups of(int members, int[][] classMembers) {
            // each member's classes, in class order, as a key
            Instance.IntList[] keys = new Instance.IntList[members];
            for (int m = 0; m < members; m++) {
                keys[m] = new Instance.IntList();
            }
            for (int c = 0; c < classMembers.length; c++) {
                for (int m : classMembers[c]) {
                    keys[m].add(c);
                }
            }
            java.util.Map<Instance.IntList, Integer> ids = new java.util.HashMap<>();
            int[] groupOf = new int[members];
            Instance.IntList sizes = new Instance.IntList();
            for (int m = 0; m < members; m++) {
                Integer g = ids.get(keys[m]);
                if (g == null) {
                    g = ids.size();
                    ids.put(keys[m], g);
                    sizes.add(0);
                }
                groupOf[m] = g;
                sizes.a[g]++;
            }
            int[][] ofClass = new int[classMembers.length][];
            boolean[] seen = new boolean[ids.size()];
            for (int c = 0; c < classMembers.length; c++) {
                Instance.IntList gs = new Instance.IntList();
                for (int m : classMembers[c]) {
                    if (!seen[groupOf[m]]) {
                        seen[groupOf[m]] = true;
                        gs.add(groupOf[m]);
                    }
                }
                int[] list = gs.toArray();
                for (int g : list) {
                    seen[g] = false;
                }
                Arrays.sort(list);
                ofClass[c] = list;
            }
            return new Groups(ids.size(), sizes.toArray(), ofClass);
        }
    }
}
