package dev.rackwise.plugins.broker;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.coordinator.group.api.assignor.SubscribedTopicDescriber;
import org.apache.kafka.image.ClusterImage;
import org.apache.kafka.image.TopicImage;

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
     * Topics' racks kept across assign() calls while their metadata is the same, so that a call
     * does not ask the describer for every partition of topics whose replicas have not changed.
     *
     * <p><b>Never stale.</b> Only Kafka's own describer is trusted, and a topic's racks are kept
     * with the key they were read under: the topic's {@code TopicImage} and the
     * {@code ClusterImage} of the describer's metadata image, by identity ({@link KafkaImage}).
     * Kafka's racks are made of nothing else, both objects are immutable, and a replica move, a
     * new partition or a broker's new rack replaces one of them. A call reuses a topic's racks
     * only when its own image holds the very same two objects; any other describer is read
     * afresh on every call.
     *
     * <p><b>Threads.</b> Coordinator threads share one assignor, and Kafka may run assign() on a
     * copy of the group off those threads (KIP-1263): entries are immutable and published
     * through a {@link ConcurrentHashMap}, and a call only uses an entry whose key is its own
     * image's. Two threads on two images may replace each other's entries: slower, never wrong.
     *
     * <p><b>Memory.</b> An int per partition of each topic assigned, and its distinct rack sets,
     * plus references to the topic and cluster images they were read under (shared with the
     * coordinator's current image unless they changed). Entries of deleted or changed topics are
     * dropped when the map holds more than twice the image's topics.
     */
    public static final class Cache {
        private record Kept(TopicImage topic, ClusterImage cluster, TopicRacks racks) {
        }

        private final ConcurrentHashMap<Uuid, Kept> kept = new ConcurrentHashMap<>();
        private final LongAdder hits = new LongAdder();
        private final LongAdder reads = new LongAdder();
        private final boolean keeps;

        /** A cache that keeps nothing: every call reads the describer. */
        static final Cache NONE = new Cache(false);

        /** An empty cache; an assignor holds one for its life. */
        public Cache() {
            this(true);
        }

        private Cache(boolean keeps) {
            this.keeps = keeps;
        }

        /** This call's view of the kept racks, under its describer's image. */
        Lookup forCall(SubscribedTopicDescriber describer) {
            KafkaImage image = null;
            if (keeps) {
                try {
                    image = KafkaImage.of(describer);
                } catch (LinkageError e) { // no kafka-metadata classes here: read every call
                    image = null;
                }
            }
            if (image != null && kept.size() > 2 * image.topics() + 64) {
                prune(image);
            }
            return new Lookup(describer, image);
        }

        private void prune(KafkaImage image) {
            kept.entrySet().removeIf(e -> e.getValue().topic != image.topic(e.getKey())
                || e.getValue().cluster != image.cluster());
        }

        /** Topics served from the cache since start-up. */
        public long hits() {
            return hits.sum();
        }

        /** Topics read from the describer, partition by partition, since start-up. */
        public long reads() {
            return reads.sum();
        }

        /** One call's view: its describer and, when it is Kafka's, its image. */
        final class Lookup {
            private final SubscribedTopicDescriber describer;
            private final KafkaImage image;
            private final ClusterImage cluster;

            private Lookup(SubscribedTopicDescriber describer, KafkaImage image) {
                this.describer = describer;
                this.image = image;
                this.cluster = image == null ? null : image.cluster();
            }

            /** The racks of {@code topic}, which has {@code count} partitions in this call's metadata. */
            TopicRacks racks(Uuid topic, int count) {
                TopicImage topicImage = image == null ? null : image.topic(topic);
                if (topicImage != null) {
                    Kept k = kept.get(topic);
                    if (k != null && k.topic == topicImage && k.cluster == cluster && k.racks.partitions() == count) {
                        hits.increment();
                        return k.racks;
                    }
                }
                reads.increment();
                TopicRacks r = read(describer, topic, count);
                if (topicImage != null) {
                    kept.put(topic, new Kept(topicImage, cluster, r));
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
