package dev.rackwise.plugins.broker;

import java.lang.ref.WeakReference;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.ReentrantLock;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.coordinator.group.api.assignor.MemberAssignment;

/**
 * Each member's current target as flat arrays (topic ids' bits, partition numbers), kept across
 * calls by the identity of the coordinator's own map, so that a call reads Kafka's per-member
 * {@code HashMap<Uuid, HashSet<Integer>>} only for members whose target changed since the last
 * call. Reading those maps is a chain of dependent loads per partition; on a large homogeneous
 * group it was most of an incremental call (bench/README.md).
 *
 * <p><b>Why the identity is a safe key.</b> A coordinator hands {@code assign()} each member's
 * current target as {@code partitions()} of the group's stored
 * {@code org.apache.kafka.coordinator.group.modern.Assignment}, through Kafka's
 * {@code MemberSubscriptionAndAssignmentImpl}. That map is {@code Collections.unmodifiableMap}
 * over sets built once, when the target-assignment record is replayed, and never written again:
 * a changed target is a new {@code Assignment}, and an unchanged one is the same object on the
 * next call (TargetAssignmentBuilder keeps it when the new target equals it; 4.1.2, 4.2.2, 4.3.1
 * and 4.4.0 bytecode). So the same map object always has the same content. Only Kafka's own
 * member class is trusted; any other {@link MemberAssignment} is read on every call.
 *
 * <p>Keys are held weakly: a target Kafka has replaced is dropped once it is collected. Entries
 * are immutable. Lookups and stores each try the lock once per call and never wait for it: a
 * call that finds another thread's call inside reads its targets itself (and keeps none), so
 * coordinator threads never wait on one another here. A KIP-1263 offload on a copy of the
 * group simply misses.
 */
public final class HeldTargets {
    /** The member class whose targets are Kafka's immutable stored assignments. */
    static final String KAFKA_MEMBER = "org.apache.kafka.coordinator.group.modern.MemberSubscriptionAndAssignmentImpl";
    /** More entries than this are not kept (a bound on memory; reading still works). */
    private static final int MAX_ENTRIES = 1 << 22;

    /** Keeps nothing: every target is read on every call. */
    static final HeldTargets NONE = new HeldTargets(false);

    /**
     * One member's target: topic {@code j} (ids' bits {@code hi[j]}, {@code lo[j]}) holds
     * {@code parts[start[j]] .. parts[start[j + 1] - 1]}, in the order the map gave them.
     */
    static final class Held {
        static final Held EMPTY = new Held(new long[0], new long[0], new int[] {0}, new int[0]);

        final long[] hi;
        final long[] lo;
        final int[] start;
        final int[] parts;

        private Held(long[] hi, long[] lo, int[] start, int[] parts) {
            this.hi = hi;
            this.lo = lo;
            this.start = start;
            this.parts = parts;
        }

        int topics() {
            return hi.length;
        }

        /** Every partition held, whatever its topic (the size of the target). */
        int size() {
            return parts.length;
        }

        /** A target read once from Kafka's map. */
        static Held read(Map<Uuid, Set<Integer>> partitions) {
            int topics = partitions.size();
            if (topics == 0) {
                return EMPTY;
            }
            long[] hi = new long[topics];
            long[] lo = new long[topics];
            int[] start = new int[topics + 1];
            int[][] sets = new int[topics][];
            int j = 0;
            int total = 0;
            for (Map.Entry<Uuid, Set<Integer>> e : partitions.entrySet()) {
                hi[j] = e.getKey().getMostSignificantBits();
                lo[j] = e.getKey().getLeastSignificantBits();
                Set<Integer> held = e.getValue();
                int[] ps = new int[held.size()];
                int k = 0;
                for (int p : held) {
                    if (k == ps.length) { // a set that grew while read: not Kafka's; keep what fits
                        break;
                    }
                    ps[k++] = p;
                }
                sets[j] = k == ps.length ? ps : java.util.Arrays.copyOf(ps, k);
                total += sets[j].length;
                start[++j] = total;
            }
            int[] parts = new int[total];
            for (int t = 0; t < topics; t++) {
                System.arraycopy(sets[t], 0, parts, start[t], sets[t].length);
            }
            return new Held(hi, lo, start, parts);
        }
    }

    private final boolean keeps;
    private final LongAdder hits = new LongAdder();
    private final LongAdder reads = new LongAdder();
    /** Tried, never waited for, on the assignment path. */
    private final ReentrantLock lock = new ReentrantLock();
    @SuppressWarnings("unchecked")
    private WeakReference<Object>[] refs = new WeakReference[64];
    private int[] hashes = new int[64];
    private Held[] values = new Held[64];
    private int size;

    /** An empty cache; an assignor holds one for its life. */
    public HeldTargets() {
        this(true);
    }

    private HeldTargets(boolean keeps) {
        this.keeps = keeps;
    }

    /** Members' targets found kept, since the cache was made. */
    public long hits() {
        return hits.sum();
    }

    /** Members' targets read from Kafka's maps, since the cache was made. */
    public long reads() {
        return reads.sum();
    }

    /** Each member's target, from the cache where its map was read before, else read now (and kept when trusted). */
    Held[] of(MemberAssignment[] members) {
        int n = members.length;
        Held[] out = new Held[n];
        Object[] keys = new Object[n];
        int trusted = 0;
        if (keeps) {
            for (int i = 0; i < n; i++) {
                if (trusted(members[i].getClass())) {
                    keys[i] = members[i].partitions();
                    trusted++;
                }
            }
        }
        int found = 0;
        if (trusted > 0 && lock.tryLock()) {
            try {
                found = find(keys, out);
            } finally {
                lock.unlock();
            }
        }
        int read = 0;
        for (int i = 0; i < n; i++) {
            if (out[i] == null) {
                out[i] = Held.read(members[i].partitions());
                read++;
            }
        }
        hits.add(found);
        reads.add(read);
        if (trusted > found && lock.tryLock()) {
            try {
                store(keys, out);
            } finally {
                lock.unlock();
            }
        }
        return out;
    }

    /** Kafka's member class, once seen (its name is compared once per class, not per member). */
    private static volatile Class<?> kafkaMember;

    private static boolean trusted(Class<?> c) {
        if (c == kafkaMember) {
            return true;
        }
        if (c.getName().equals(KAFKA_MEMBER)) {
            kafkaMember = c;
            return true;
        }
        return false;
    }

    private int find(Object[] keys, Held[] out) {
        int found = 0;
        int mask = refs.length - 1;
        for (int i = 0; i < keys.length; i++) {
            Object key = keys[i];
            if (key == null) {
                continue;
            }
            int h = System.identityHashCode(key);
            for (int s = spread(h) & mask;; s = (s + 1) & mask) {
                WeakReference<Object> r = refs[s];
                if (r == null) {
                    break;
                }
                if (hashes[s] == h && r.get() == key) {
                    out[i] = values[s];
                    keys[i] = null; // found: nothing to store
                    found++;
                    break;
                }
            }
        }
        return found;
    }

    private void store(Object[] keys, Held[] values) {
        for (int i = 0; i < keys.length; i++) {
            if (keys[i] != null) {
                if (2 * (size + 1) > refs.length && !rebuild()) {
                    return;
                }
                insert(keys[i], System.identityHashCode(keys[i]), values[i]);
            }
        }
    }

    private void insert(Object key, int h, Held value) {
        int mask = refs.length - 1;
        for (int s = spread(h) & mask;; s = (s + 1) & mask) {
            WeakReference<Object> r = refs[s];
            if (r == null) {
                refs[s] = new WeakReference<>(key);
                hashes[s] = h;
                values[s] = value;
                size++;
                return;
            }
            if (hashes[s] == h && r.get() == key) { // stored meanwhile by another call
                return;
            }
        }
    }

    /** Drops the collected keys and resizes to twice what is left; false when full. */
    @SuppressWarnings("unchecked")
    private boolean rebuild() {
        WeakReference<Object>[] oldRefs = refs;
        int[] oldHashes = hashes;
        Held[] oldValues = values;
        int live = 0;
        for (WeakReference<Object> r : oldRefs) {
            if (r != null && r.get() != null) {
                live++;
            }
        }
        if (live >= MAX_ENTRIES) {
            return false;
        }
        int capacity = 64;
        while (capacity < 4 * (live + 1)) {
            capacity *= 2;
        }
        refs = new WeakReference[capacity];
        hashes = new int[capacity];
        values = new Held[capacity];
        size = 0;
        int mask = capacity - 1;
        for (int s = 0; s < oldRefs.length; s++) {
            WeakReference<Object> r = oldRefs[s];
            if (r == null || r.get() == null) {
                continue;
            }
            int at = spread(oldHashes[s]) & mask;
            while (refs[at] != null) {
                at = (at + 1) & mask;
            }
            refs[at] = r;
            hashes[at] = oldHashes[s];
            values[at] = oldValues[s];
            size++;
        }
        return true;
    }

    private static int spread(int h) {
        return h * 0x9E3779B9;
    }

    /** Entries kept now, collected keys included until the next resize (tests). */
    int size() {
        lock.lock(); // tests only: the assignment path never waits for the lock
        try {
            return size;
        } finally {
            lock.unlock();
        }
    }
}
