package dev.rackwise.plugins.broker;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.coordinator.group.api.assignor.SubscribedTopicDescriber;

/**
 * One topic's replica racks as the describer gave them: its distinct rack sets and, per
 * partition, which of them it has. Immutable once built, so calls on any thread may share it.
 *
 * <p>Example: a topic of 4 partitions on racks {a,b}, {b,c}, {a,b}, {b,c} is
 * {@code sets = [{a,b}, {b,c}]}, {@code setOf = [0, 1, 0, 1]}.
 */
public final class TopicRacks {
    /** Up to this many rack sets a scan finds one; past it, a hash of masks. */
    private static final int SCAN = 16;
    /** The distinct rack sets, in the order their first partition comes. Never modified. */
    private final Set<String>[] sets;
    /** Per partition, its index in {@link #sets}. Never modified. */
    private final int[] setOf;

    private TopicRacks(Set<String>[] sets, int[] setOf) {
        this.sets = sets;
        this.setOf = setOf;
    }

    int partitions() {
        return setOf.length;
    }

    int distinct() {
        return sets.length;
    }

    /** The {@code j}-th distinct rack set (read only). */
    Set<String> set(int j) {
        return sets[j];
    }

    /** Which distinct set partition {@code p} has. */
    int setOf(int p) {
        return setOf[p];
    }

    /**
     * Reads partitions {@code 0 … count-1} of a topic from the describer: one call per partition.
     * Sets are told apart by a mask of rack bits; a rack's bit is found by identity first (the
     * describer's strings are the metadata image's own), then by value.
     */
    @SuppressWarnings("unchecked")
    static TopicRacks read(SubscribedTopicDescriber describer, Uuid topic, int count) {
        int[] setOf = new int[count];
        List<Set<String>> sets = new ArrayList<>();
        long[] masks = new long[SCAN];
        int[] maskSet = new int[SCAN];
        int maskCount = 0; // sets told apart by mask (all but those past 63 racks)
        Map<Long, Integer> byMask = new HashMap<>();
        Map<Set<String>, Integer> bySet = null; // past 63 racks in one topic: by the sets themselves
        String[] known = new String[8];
        int knownCount = 0;
        Map<String, Integer> bitOf = new HashMap<>();
        long lastMask = -1;
        int last = -1;
        for (int p = 0; p < count; p++) {
            Set<String> racks = describer.racksForPartition(topic, p);
            long mask = 0;
            for (String r : racks) {
                int bit = -1;
                for (int i = 0; i < knownCount; i++) {
                    if (known[i] == r) {
                        bit = i;
                        break;
                    }
                }
                if (bit < 0) {
                    bit = bitOf.computeIfAbsent(r, x -> bitOf.size());
                    if (bit == knownCount && knownCount < known.length) {
                        known[knownCount++] = r;
                    }
                }
                if (bit >= 63) {
                    mask = -1;
                    break;
                }
                mask |= 1L << bit;
            }
            int j;
            if (mask == -1) {
                if (bySet == null) {
                    bySet = new HashMap<>();
                }
                Integer seen = bySet.get(racks);
                if (seen == null) {
                    seen = sets.size();
                    sets.add(racks);
                    bySet.put(racks, seen);
                }
                j = seen;
            } else if (mask == lastMask) {
                j = last;
            } else {
                j = -1;
                if (maskCount <= SCAN) { // all masks are in the array: a short scan, no boxing
                    for (int i = 0; i < maskCount; i++) {
                        if (masks[i] == mask) {
                            j = maskSet[i];
                            break;
                        }
                    }
                } else {
                    Integer seen = byMask.get(mask);
                    j = seen == null ? -1 : seen;
                }
                if (j < 0) {
                    j = sets.size();
                    sets.add(racks);
                    if (maskCount < SCAN) {
                        masks[maskCount] = mask;
                        maskSet[maskCount] = j;
                    } else if (maskCount == SCAN) {
                        for (int i = 0; i < SCAN; i++) {
                            byMask.put(masks[i], maskSet[i]);
                        }
                    }
                    if (maskCount >= SCAN) {
                        byMask.put(mask, j);
                    }
                    maskCount++;
                }
                lastMask = mask;
                last = j;
            }
            setOf[p] = j;
        }
        return new TopicRacks(sets.toArray(new Set[0]), setOf);
    }

    /**
     * Topics' racks kept across assign() calls for as long as the coordinator's metadata is the
     * same, so that a call on unchanged metadata does not ask the describer for every partition.
     *
     * <p><b>Never stale.</b> Only Kafka's own describer ({@value #KAFKA_DESCRIBER}) is trusted:
     * it wraps the coordinator's metadata image, which is immutable, and its {@code equals} is
     * the equality of those images (4.1 and 4.4 bytecode). Racks read under one describer are
     * reused only under a describer {@code equals} to it: the same metadata, so the same
     * replicas and broker racks. A replica move, a broker's new rack or a new partition is a new
     * image, unequal (its provenance offset differs), and the racks are read again. Any other
     * describer (a test's, a later Kafka's of another class) is read afresh on every call.
     *
     * <p><b>Threads.</b> Coordinator threads share one assignor, and Kafka may run assign() on a
     * copy of the group off those threads (KIP-1263): the held image and its map are published
     * through an {@link AtomicReference} and a {@link ConcurrentHashMap}, every entry is
     * immutable, and a call only ever reads entries held for a describer equal to its own. Two
     * threads on two images replace each other's entry: slower, never wrong.
     *
     * <p><b>Memory.</b> One image's topics at a time: an int per partition and its distinct
     * sets, and a reference to the last describer (so to one metadata image, most of which the
     * coordinator's current image shares).
     */
    public static final class Cache {
        /** The class whose describers are trusted to be immutable with content equality. */
        static final String KAFKA_DESCRIBER = "org.apache.kafka.coordinator.group.modern.SubscribedTopicDescriberImpl";

        private record Held(SubscribedTopicDescriber describer, ConcurrentHashMap<Uuid, TopicRacks> topics) {
        }

        private final AtomicReference<Held> held = new AtomicReference<>();
        private final LongAdder hits = new LongAdder();
        private final LongAdder reads = new LongAdder();

        /** A cache that keeps nothing: every call reads the describer. */
        static final Cache NONE = new Cache();

        /** An empty cache; an assignor holds one for its life. */
        public Cache() {
        }

        /**
         * The racks of this call's topics: those kept under an equal describer, the rest read
         * now (and kept when the describer can be trusted).
         */
        Lookup forCall(SubscribedTopicDescriber describer) {
            if (this == NONE || describer == null || !describer.getClass().getName().equals(KAFKA_DESCRIBER)) {
                return new Lookup(describer, null);
            }
            Held h = held.get();
            if (h == null || !(h.describer == describer || h.describer.equals(describer))) {
                Held fresh = new Held(describer, new ConcurrentHashMap<>());
                held.set(fresh);
                h = fresh;
            }
            return new Lookup(describer, h.topics);
        }

        /** Topics served from the cache since start-up. */
        public long hits() {
            return hits.sum();
        }

        /** Topics read from the describer, partition by partition, since start-up. */
        public long reads() {
            return reads.sum();
        }

        /** One call's view: the kept racks, or none. */
        final class Lookup {
            private final SubscribedTopicDescriber describer;
            private final ConcurrentHashMap<Uuid, TopicRacks> kept;

            private Lookup(SubscribedTopicDescriber describer, ConcurrentHashMap<Uuid, TopicRacks> kept) {
                this.describer = describer;
                this.kept = kept;
            }

            /** The racks of {@code topic}, which has {@code count} partitions in this call's metadata. */
            TopicRacks racks(Uuid topic, int count) {
                if (kept != null) {
                    TopicRacks k = kept.get(topic);
                    if (k != null && k.partitions() == count) {
                        hits.increment();
                        return k;
                    }
                }
                reads.increment();
                TopicRacks r = read(describer, topic, count);
                if (kept != null) {
                    kept.put(topic, r);
                }
                return r;
            }
        }
    }

    @Override
    public String toString() {
        return "TopicRacks" + Arrays.toString(sets) + Arrays.toString(setOf);
    }
}
