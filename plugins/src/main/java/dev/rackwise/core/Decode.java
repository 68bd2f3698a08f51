package dev.rackwise.core;

import java.util.ArrayList;
import java.util.Arrays;

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

    /** The assignment as the instance's indices: each member's partitions, their cost and moves. */
    static IndexedSolution assign(Instance in, RackOptimal.Network net) {
        // One method per section, so that the JIT compiles (and, when a profile changes,
        // recompiles) each on its own rather than one large method.
        int n = in.n;
        int[] owner = new int[in.parts];
        Arrays.fill(owner, -1);
        double[] load = new double[n];
        int[] count = new int[n];
        int[] kept = new int[n];
        int[] poolOfPart = new int[in.parts];
        Arrays.fill(poolOfPart, -1);
        int pooled = keepAndPool(in, net, owner, count, kept, poolOfPart);

        // § 5.2: a member's load starts as its kept partitions summed in (topic, partition) order.
        Arrays.fill(load, 0.0);
        for (int p = 0; p < in.parts; p++) {
            if (owner[p] >= 0) {
                load[owner[p]] += in.pWeight[p];
            }
        }

        Slots slots = Slots.of(in, net, kept);
        distribute(in, net, slots, poolOfPart, pooled, owner, load, count);

        // § 5.3: shifts and swaps, cost-neutral moves that lower the busiest member's load.
        if (!in.sameWeights) {
            swaps(in, owner, load);
        }
        return solution(in, net, owner);
    }

    /**
     * § 4.3.1 and § 4.4: each member's kept partitions ({@code owner}, {@code count},
     * {@code kept}) and the rest of each supply to its pools ({@code poolOfPart}); returns how many
     * partitions were pooled.
     */
    private static int keepAndPool(Instance in, RackOptimal.Network net, int[] owner, int[] count, int[] kept,
                                   int[] poolOfPart) {
        int n = in.n;
        LexFlow f = net.flow;
        int pooled = 0;

        // Partitions of each (type, none) supply, in (topic, partition) order.
        int[] noneStart = new int[in.types + 1];
        for (int p = 0; p < in.parts; p++) {
            if (in.pKeeper[p] < 0) {
                noneStart[in.pType[p] + 1]++;
            }
        }
        for (int t = 0; t < in.types; t++) {
            noneStart[t + 1] += noneStart[t];
        }
        int[] noneParts = new int[noneStart[in.types]];
        int[] fill = Arrays.copyOf(noneStart, in.types);
        for (int p = 0; p < in.parts; p++) {
            if (in.pKeeper[p] < 0) {
                noneParts[fill[in.pType[p]]++] = p;
            }
        }

        // § 4.3.1 and § 4.4: kept partitions, and the rest of each supply to its pools.
        int[] ptr = Arrays.copyOf(in.ownedStart, n);
        int[] rest = new int[16];
        for (int s = 0; s < net.supplies; s++) {
            int t = net.supplyType[s];
            int k = net.supplyKind[s];
            int size = 0;
            if (k < 0) {
                int from = noneStart[t];
                size = noneStart[t + 1] - from;
                if (rest.length < size) {
                    rest = new int[size];
                }
                System.arraycopy(noneParts, from, rest, 0, size);
            }
            if (k >= 0) {
                int[] ms = net.kindMembers[k];
                int kn = ms.length;
                long keep = f.flow(net.keepArc[s]);
                int q = (int) (keep / kn);
                int r = (int) (keep % kn);
                int cursor = cursors(net)[k];
                for (int i = 0; i < kn; i++) {
                    int m = ms[i];
                    int give = q + (Math.floorMod(i - cursor, kn) < r ? 1 : 0);
                    int j = ptr[m];
                    int end = in.ownedStart[m + 1];
                    int runEnd = j;
                    while (runEnd < end && in.ownedType[runEnd] == t) {
                        runEnd++;
                    }
                    // the run's first `give` partitions stay (loads are summed below), the rest go to the pools
                    int stay = Math.min(give, runEnd - j);
                    for (int x = j; x < j + stay; x++) {
                        owner[in.owned[x]] = m;
                    }
                    count[m] += stay;
                    kept[m] += stay;
                    int back = runEnd - j - stay;
                    if (size + back > rest.length) {
                        rest = Arrays.copyOf(rest, Math.max(2 * rest.length, size + back));
                    }
                    System.arraycopy(in.owned, j + stay, rest, size, back);
                    size += back;
                    ptr[m] = runEnd;
                }
                cursors(net)[k] = (cursor + r) % kn;
                Arrays.sort(rest, 0, size);
            }
            int i = 0;
            int[] cp = net.classPools[in.tClass[t]];
            for (int a = 0; a < cp.length; a++) {
                long fl = f.flow(net.supplyPoolArcs[s][a]);
                for (long u = 0; u < fl; u++) {
                    poolOfPart[rest[i++]] = cp[a];
                }
            }
            pooled += i;
        }
        return pooled;
    }

    /** § 4.3.2-3: per member, its total and how many it takes from each pool (slots). */
    private static final class Slots {
        final int count;
        final int[] member;
        final int[] pool;
        final int[] left;
        final int[] memberTotal;
        final int[] classOffset;
        /** Per member and class it subscribes, its slot ({@code classOffset[m] + class rank}): -1 if none. */
        final int[] slotOf;

        private Slots(int count, int[] member, int[] pool, int[] left, int[] memberTotal, int[] classOffset,
                      int[] slotOf) {
            this.count = count;
            this.member = member;
            this.pool = pool;
            this.left = left;
            this.memberTotal = memberTotal;
            this.classOffset = classOffset;
            this.slotOf = slotOf;
        }

        static Slots of(Instance in, RackOptimal.Network net, int[] kept) {
            int n = in.n;
            LexFlow f = net.flow;
            int slots = 0;
            for (int k = 0; k < net.kinds; k++) {
                slots += net.kindMembers[k].length * net.kindPools[k].length;
            }
            int[] slotMember = new int[slots];
            int[] slotPool = new int[slots];
            int[] slotLeft = new int[slots];
            int[] memberTotal = new int[n];
            slots = 0;
            for (int k = 0; k < net.kinds; k++) {
                int[] ms = net.kindMembers[k];
                int kn = ms.length;
                long total = (long) kn * net.band.lo;
                for (int arc : net.kindSinkArcs[k]) {
                    total += f.flow(arc);
                }
                int base = (int) (total / kn);
                int extra = (int) (total % kn);
                int maxKept = 0;
                for (int m : ms) {
                    maxKept = Math.max(maxKept, kept[m]);
                }
                long[] order = new long[kn];
                for (int i = 0; i < kn; i++) {
                    order[i] = ((long) (maxKept - kept[ms[i]]) << 32) | i;
                }
                if (extra > 0) {
                    Arrays.sort(order);
                }
                int[] need = new int[kn];
                for (int i = 0; i < kn; i++) {
                    int at = (int) order[i];
                    int l = base + (i < extra ? 1 : 0);
                    memberTotal[ms[at]] = l;
                    need[at] = l - kept[ms[at]];
                }
                int at = 0;
                for (int j = 0; j < net.kindPools[k].length; j++) {
                    long fl = f.flow(net.kindPoolArcs[k][j]);
                    while (fl > 0) {
                        while (need[at] == 0) {
                            at++;
                        }
                        int take = (int) Math.min(fl, need[at]);
                        need[at] -= take;
                        fl -= take;
                        slotMember[slots] = ms[at];
                        slotPool[slots] = net.kindPools[k][j];
                        slotLeft[slots++] = take;
                    }
                }
            }
            // Per member, its slot per class (members take from one pool per class): -1 if none.
            int[] classOffset = new int[n + 1];
            for (int m = 0; m < n; m++) {
                classOffset[m + 1] = classOffset[m] + in.memberClasses[m].length;
            }
            int[] slotOf = new int[classOffset[n]];
            Arrays.fill(slotOf, -1);
            for (int x = 0; x < slots; x++) {
                int m = slotMember[x];
                slotOf[classOffset[m] + Arrays.binarySearch(in.memberClasses[m], net.poolClass[slotPool[x]])] = x;
            }
            return new Slots(slots, slotMember, slotPool, slotLeft, memberTotal, classOffset, slotOf);
        }
    }

    /**
     * § 5.2: every pooled partition, heaviest first, to its previous owner when that makes no
     * hot spot, else to the least loaded member of its pool that has a slot left.
     */
    private static void distribute(Instance in, RackOptimal.Network net, Slots s, int[] poolOfPart, int pooled,
                                   int[] owner, double[] load, int[] count) {
        int slots = s.count;
        int[] slotMember = s.member;
        int[] slotPool = s.pool;
        int[] slotLeft = s.left;
        int[] memberTotal = s.memberTotal;
        int[] classOffset = s.classOffset;
        int[] slotOf = s.slotOf;
        // § 5.2: pooled partitions heaviest first, then (topic, partition).
        int[] order = new int[pooled];
        if (in.sameWeights) {
            int o = 0;
            for (int p = 0; p < in.parts; p++) {
                if (poolOfPart[p] >= 0) {
                    order[o++] = p;
                }
            }
        } else {
            heaviestFirst(in, poolOfPart, order);
        }
        // The least loaded pool member: (load, count, id) order, kept in a heap per pool whose
        // entries are refreshed when popped. With one weight for all, a load is a function of
        // the count, so (count, id) is the same order, packed in one long.
        Heap[] heaps = in.sameWeights ? null : new Heap[net.pools];
        CountHeap[] counted = in.sameWeights ? new CountHeap[net.pools] : null;
        Rounds[] rounds = in.sameWeights ? Rounds.of(in, net, order, poolOfPart, slots, slotMember, slotPool, count) : null;
        for (int x = 0; x < slots; x++) {
            int k = slotPool[x];
            if (rounds != null && rounds[k] != null) {
                continue;
            }
            if (in.sameWeights) {
                if (counted[k] == null) {
                    counted[k] = new CountHeap();
                }
                counted[k].push(CountHeap.key(0, slotMember[x]), x);
            } else {
                if (heaps[k] == null) {
                    heaps[k] = new Heap();
                }
                heaps[k].push(0.0, 0, slotMember[x], x);
            }
        }
        double totalWeight = in.totalWeight;
        for (int p : order) {
            int k = poolOfPart[p];
            double w = in.pWeight[p];
            int prev = in.pOwner[p];
            int pick = -1;
            if (prev >= 0 && in.placeOf[prev] == net.poolPlace[k]) {
                int i = Arrays.binarySearch(in.memberClasses[prev], net.poolClass[k]);
                int x = i < 0 ? -1 : slotOf[classOffset[prev] + i];
                if (x >= 0 && slotLeft[x] > 0) {
                    double fair = memberTotal[prev] * totalWeight / in.parts;
                    if (load[prev] + w <= Math.max(fair, w)) {
                        pick = x;
                    }
                }
            }
            boolean pooledPick = pick < 0; // the least loaded pool member, then back into its heap
            Rounds r = rounds != null ? rounds[k] : null;
            if (r != null) {
                pick = r.next(slotLeft);
            } else if (pooledPick) {
                pick = counted != null ? counted[k].least(slotLeft, count) : heaps[k].least(slotLeft, load, count);
            }
            int m = slotMember[pick];
            slotLeft[pick]--;
            give(in, p, m, owner, load, count);
            if (pooledPick && r == null && slotLeft[pick] > 0) {
                if (counted != null) {
                    counted[k].push(CountHeap.key(count[m], m), pick);
                } else {
                    heaps[k].push(load[m], count[m], m, pick);
                }
            }
        }
    }

    /** The owners as a solution: each member's partitions in (topic, partition) order, cost, moves. */
    private static IndexedSolution solution(Instance in, RackOptimal.Network net, int[] owner) {
        int n = in.n;
        LexFlow f = net.flow;
        int[] start = new int[n + 1];
        for (int p = 0; p < in.parts; p++) {
            start[owner[p] + 1]++;
        }
        for (int m = 0; m < n; m++) {
            start[m + 1] += start[m];
        }
        int[] all = new int[in.parts];
        int[] put = Arrays.copyOf(start, n);
        double cost = 0;
        long objective = 0;
        int moved = 0;
        for (int p = 0; p < in.parts; p++) {
            int m = owner[p];
            all[put[m]++] = p; // partition indices are in (topic, partition) order
            cost += in.trafficCost(p, m);
            objective += in.unit(p, m);
            if (in.pOwner[p] != Instance.NO_OWNER && in.pOwner[p] != m) {
                moved++;
            }
        }
        cost += in.beta * moved;
        return new IndexedSolution(in, start, all, cost, objective, moved, f.bitsUsed(), f.levelsUsed());
    }

    /** One cursor per kind for § 4.3.1, going on from type to type. */
    private static int[] cursors(RackOptimal.Network net) {
        if (net.cursors == null) {
            net.cursors = new int[net.kinds];
        }
        return net.cursors;
    }

    /** The pooled partitions by weight descending, then index: a counting sort over the types' weights. */
    private static void heaviestFirst(Instance in, int[] poolOfPart, int[] order) {
        double[] weights = new double[in.types];
        for (int p = 0; p < in.parts; p++) {
            weights[in.pType[p]] = in.pWeight[p];
        }
        double[] distinct = weights.clone();
        Arrays.sort(distinct);
        int k = 0;
        for (int i = 0; i < distinct.length; i++) {
            if (i == 0 || distinct[i] != distinct[k - 1]) {
                distinct[k++] = distinct[i];
            }
        }
        int[] rankOfType = new int[in.types];
        for (int t = 0; t < in.types; t++) {
            rankOfType[t] = k - 1 - Arrays.binarySearch(distinct, 0, k, weights[t]);
        }
        int[] start = new int[k + 1];
        for (int p = 0; p < in.parts; p++) {
            if (poolOfPart[p] >= 0) {
                start[rankOfType[in.pType[p]] + 1]++;
            }
        }
        for (int r = 0; r < k; r++) {
            start[r + 1] += start[r];
        }
        for (int p = 0; p < in.parts; p++) {
            if (poolOfPart[p] >= 0) {
                order[start[rankOfType[in.pType[p]]]++] = p;
            }
        }
    }

    /**
     * The least (count, id) pool member with room, in rounds, for a pool where that order can
     * only come round: one weight for all, every member of the pool at the same count when the
     * pooled partitions start, taking partitions from this pool alone (one class each), and no
     * partition of the pool going back to its previous owner (that owner is in another place).
     * Then each round gives every member with room one partition, in id order: the same picks
     * as the heap's, with no heap.
     */
    private static final class Rounds {
        private int[] list;
        private int size;
        private int at;

        static Rounds[] of(Instance in, RackOptimal.Network net, int[] order, int[] poolOfPart,
                           int slots, int[] slotMember, int[] slotPool, int[] count) {
            boolean[] no = new boolean[net.pools];
            int[] level = new int[net.pools];
            Arrays.fill(level, -1);
            int[] sizes = new int[net.pools];
            for (int x = 0; x < slots; x++) {
                int k = slotPool[x];
                int m = slotMember[x];
                sizes[k]++;
                if (in.memberClasses[m].length != 1 || level[k] >= 0 && level[k] != count[m]) {
                    no[k] = true;
                }
                level[k] = count[m];
            }
            int left = 0;
            for (int k = 0; k < net.pools; k++) {
                left += no[k] ? 0 : 1;
            }
            for (int i = 0; i < order.length && left > 0; i++) {
                int p = order[i];
                int prev = in.pOwner[p];
                int k = poolOfPart[p];
                if (prev >= 0 && !no[k] && in.placeOf[prev] == net.poolPlace[k]) {
                    no[k] = true;
                    left--;
                }
            }
            if (left == 0) {
                return null;
            }
            long[] byMember = new long[slots];
            for (int x = 0; x < slots; x++) {
                byMember[x] = (long) slotMember[x] << 32 | x;
            }
            Arrays.sort(byMember);
            Rounds[] rounds = new Rounds[net.pools];
            for (long key : byMember) {
                int x = (int) key;
                int k = slotPool[x];
                if (no[k]) {
                    continue;
                }
                Rounds r = rounds[k];
                if (r == null) {
                    r = rounds[k] = new Rounds();
                    r.list = new int[sizes[k]];
                }
                r.list[r.size++] = x;
            }
            return rounds;
        }

        /** The next member's slot: the rest of this round in id order, then a new round of those with room. */
        int next(int[] slotLeft) {
            if (at == size) {
                int kept = 0;
                for (int i = 0; i < size; i++) {
                    if (slotLeft[list[i]] > 0) {
                        list[kept++] = list[i];
                    }
                }
                size = kept;
                at = 0;
            }
            return list[at++];
        }
    }

    /**
     * A min-heap of (count, member) keys packed in longs (count above, member below; both
     * non-negative), each with its slot: the least loaded pool member when every partition
     * weighs the same.
     */
    private static final class CountHeap {
        long[] key = new long[8];
        int[] slot = new int[8];
        int size;

        static long key(int count, int member) {
            return (long) count << 32 | member;
        }

        void push(long k, int x) {
            if (size == key.length) {
                key = Arrays.copyOf(key, 2 * size);
                slot = Arrays.copyOf(slot, 2 * size);
            }
            int i = size++;
            while (i > 0) { // the hole climbs to where k belongs
                int up = (i - 1) >>> 1;
                if (key[up] <= k) {
                    break;
                }
                key[i] = key[up];
                slot[i] = slot[up];
                i = up;
            }
            key[i] = k;
            slot[i] = x;
        }

        void pop() {
            size--;
            if (size > 0) {
                replaceTop(key[size], slot[size]);
            }
        }

        /** Pops the least (count, id) slot with room, refreshing stale counts on the way. */
        int least(int[] slotLeft, int[] count) {
            while (true) {
                int x = slot[0];
                int m = (int) key[0];
                if (slotLeft[x] == 0) {
                    pop();
                } else if ((int) (key[0] >>> 32) != count[m]) {
                    replaceTop(key(count[m], m), x);
                } else {
                    pop();
                    return x;
                }
            }
        }

        /** The top replaced by (k, x): one sift down; the same pops as pop() then push() (keys are unique). */
        void replaceTop(long k, int x) {
            int i = 0;
            while (true) {
                int c = 2 * i + 1;
                if (c >= size) {
                    break;
                }
                if (c + 1 < size && key[c + 1] < key[c]) {
                    c++;
                }
                if (key[c] >= k) {
                    break;
                }
                key[i] = key[c];
                slot[i] = slot[c];
                i = c;
            }
            key[i] = k;
            slot[i] = x;
        }
    }

    /** A min-heap of pool slots keyed (load, count, member) as they were when pushed. */
    private static final class Heap {
        double[] load = new double[8];
        int[] count = new int[8];
        int[] member = new int[8];
        int[] slot = new int[8];
        int size;

        private boolean less(int i, int j) {
            if (load[i] != load[j]) {
                return load[i] < load[j];
            }
            if (count[i] != count[j]) {
                return count[i] < count[j];
            }
            return member[i] < member[j];
        }

        private void swap(int i, int j) {
            double l = load[i];
            load[i] = load[j];
            load[j] = l;
            int c = count[i];
            count[i] = count[j];
            count[j] = c;
            c = member[i];
            member[i] = member[j];
            member[j] = c;
            c = slot[i];
            slot[i] = slot[j];
            slot[j] = c;
        }

        /** Pops the least (load, count, id) slot with room, refreshing stale entries on the way. */
        int least(int[] slotLeft, double[] loads, int[] counts) {
            while (true) {
                int x = slot[0];
                int m = member[0];
                if (slotLeft[x] == 0) {
                    pop();
                } else if (load[0] != loads[m] || count[0] != counts[m]) {
                    pop();
                    push(loads[m], counts[m], m, x);
                } else {
                    pop();
                    return x;
                }
            }
        }

        void push(double l, int c, int m, int x) {
            if (size == load.length) {
                int cap = size * 2;
                load = Arrays.copyOf(load, cap);
                count = Arrays.copyOf(count, cap);
                member = Arrays.copyOf(member, cap);
                slot = Arrays.copyOf(slot, cap);
            }
            int i = size++;
            load[i] = l;
            count[i] = c;
            member[i] = m;
            slot[i] = x;
            while (i > 0 && less(i, (i - 1) >>> 1)) {
                swap(i, (i - 1) >>> 1);
                i = (i - 1) >>> 1;
            }
        }

        void pop() {
            size--;
            if (size > 0) {
                load[0] = load[size];
                count[0] = count[size];
                member[0] = member[size];
                slot[0] = slot[size];
                int i = 0;
                while (true) {
                    int l = 2 * i + 1;
                    if (l >= size) {
                        break;
                    }
                    int c = l + 1 < size && less(l + 1, l) ? l + 1 : l;
                    if (!less(c, i)) {
                        break;
                    }
                    swap(i, c);
                    i = c;
                }
            }
        }
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

    /**
     * § 5.3: a member's load, its weights summed in (topic, partition) order (partition
     * indices are in that order), never updated by adding and subtracting: both languages
     * then hold the same doubles. Sorts the first {@code size} entries of {@code held}.
     */
    private static double resum(Instance in, int[] held, int size) {
        Arrays.sort(held, 0, size);
        double total = 0.0;
        for (int i = 0; i < size; i++) {
            total += in.pWeight[held[i]];
        }
        return total;
    }

    /** The weights of the first {@code size} entries of {@code held}, ascending. */
    private static double[] sortedWeights(Instance in, int[] held, int size) {
        double[] w = new double[size];
        for (int i = 0; i < size; i++) {
            w[i] = in.pWeight[held[i]];
        }
        Arrays.sort(w);
        return w;
    }

    /**
     * Whether some weight wq among b's ({@code sorted}, ascending) passes the swap's weight tests
     * against p's {@code wp}: wq < wp and max(la - wp + wq, lb + wp - wq) < la, the very
     * expressions {@link #swaps} evaluates. The second term falls as wq grows and the first
     * rises, so the passing weights are a run of the sorted ones: the lightest wq whose second
     * term is under la passes if any does. False means b's scan would find no q; true only that
     * it may (the scan's other tests decide). Skipping those scans changes no answer.
     */
    static boolean mayTrade(double[] sorted, double la, double lb, double wp) {
        int lo = 0;
        int hi = sorted.length;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (lb + wp - sorted[mid] < la) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        if (lo == sorted.length) {
            return false;
        }
        double wq = sorted[lo];
        return wq < wp && la - wp + wq < la;
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
        // § 5.3: loads summed afresh in (topic, partition) order, here and after every move.
        Arrays.fill(load, 0.0);
        for (int p = 0; p < in.parts; p++) {
            held[owner[p]][size[owner[p]]++] = p;
            load[owner[p]] += in.pWeight[p];
        }
        // each member's weights in ascending order: which b can hold a q for the swap at all
        double[][] sortedWeights = new double[n][];
        for (int m = 0; m < n; m++) {
            sortedWeights[m] = sortedWeights(in, held[m], size[m]);
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
                    if (!in.subscribes(b, in.pClass[p]) || in.unit(p, b) != upa) {
                        continue;
                    }
                    // A shift: b holds one partition fewer, so a and b trade counts.
                    boolean shift = size[b] == size[a] - 1 && Math.max(load[a] - wp, load[b] + wp) < load[a];
                    double bestMax = shift ? Math.max(load[a] - wp, load[b] + wp) : 0;
                    int best = -1;
                    int bestAt = -1;
                    int candidates = mayTrade(sortedWeights[b], load[a], load[b], wp) ? size[b] : 0;
                    for (int i = 0; i < candidates; i++) {
                        int q = held[b][i];
                        double wq = in.pWeight[q];
                        if (!(wq < wp) || in.pOwner[q] == b || !in.subscribes(a, in.pClass[q])
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
                        owner[p] = b;
                        remove(held[a], size[a]--, p);
                        if (size[b] == held[b].length) {
                            held[b] = Arrays.copyOf(held[b], 2 * held[b].length + 1);
                        }
                        held[b][size[b]++] = p;
                        load[a] = resum(in, held[a], size[a]);
                        load[b] = resum(in, held[b], size[b]);
                        sortedWeights[a] = sortedWeights(in, held[a], size[a]);
                        sortedWeights[b] = sortedWeights(in, held[b], size[b]);
                        resort(byLoad, at, load, a);
                        resort(byLoad, at, load, b);
                        swapped = true;
                        break search;
                    }
                    if (best >= 0) {
                        owner[p] = b;
                        owner[best] = a;
                        held[b][bestAt] = p;
                        for (int i = 0; i < size[a]; i++) {
                            if (held[a][i] == p) {
                                held[a][i] = best;
                                break;
                            }
                        }
                        load[a] = resum(in, held[a], size[a]);
                        load[b] = resum(in, held[b], size[b]);
                        sortedWeights[a] = sortedWeights(in, held[a], size[a]);
                        sortedWeights[b] = sortedWeights(in, held[b], size[b]);
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
