package dev.rackwise.core;

import java.util.AbstractSet;
import java.util.Arrays;
import java.util.Collection;
import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.Set;
import java.util.TreeSet;

/**
 * One group member: its id, its rack ({@code client.rack}; null or empty when unknown),
 * whether it reads from followers (KIP-392; ignored without a rack) and its topics.
 *
 * <p>The topics are held as an immutable sorted set. Adapters that see many members with the
 * same subscription build it once with {@link #topicSet(Collection)} and pass the same set to
 * every such member: it is then neither copied nor sorted again, and the core groups those
 * members by identity (docs/rack-optimal.md § 7).
 */
public record MemberSpec(String id, String rack, boolean readsFollowers, Set<String> topics) {
    public MemberSpec {
        if (id == null || id.isEmpty()) {
            throw new CoreInputException("a member id is null or empty");
        }
        if (rack != null && rack.isEmpty()) {
            rack = null;
        }
        if (!(topics instanceof Topics)) {
            topics = sorted(topics, "member " + id);
        }
        // Follower fetching needs a rack to pick a replica by: without one it reads the leader.
        readsFollowers = readsFollowers && rack != null;
    }

    /** {@code topics} (null: none) as the immutable sorted set a MemberSpec holds. */
    public static Set<String> topicSet(Collection<String> topics) {
        return topics instanceof Topics t ? t : sorted(topics, "a member");
    }

    private static Set<String> sorted(Collection<String> topics, String who) {
        TreeSet<String> sorted = new TreeSet<>();
        if (topics != null) {
            for (String t : topics) {
                if (t == null) {
                    throw new CoreInputException(who + " subscribes a null topic");
                }
                sorted.add(t);
            }
        }
        return new Topics(sorted.toArray(new String[0]));
    }

    /** An immutable set of topic names in ascending order, its hash computed once. */
    static final class Topics extends AbstractSet<String> {
        final String[] names;
        /** 0: not computed yet (racy but benign, as String's). */
        private int hash;

        Topics(String[] sortedDistinct) {
            this.names = sortedDistinct;
        }

        @Override
        public Iterator<String> iterator() {
            return new Iterator<>() {
                private int i;

                @Override
                public boolean hasNext() {
                    return i < names.length;
                }

                @Override
                public String next() {
                    if (i >= names.length) {
                        throw new NoSuchElementException();
                    }
                    return names[i++];
                }
            };
        }

        @Override
        public int size() {
            return names.length;
        }

        @Override
        public boolean contains(Object o) {
            return o instanceof String s && Arrays.binarySearch(names, s) >= 0;
        }

        @Override
        public boolean equals(Object o) {
            if (o == this) {
                return true;
            }
            if (o instanceof Topics t) {
                return hashCode() == t.hashCode() && Arrays.equals(names, t.names);
            }
            return super.equals(o);
        }

        @Override
        public int hashCode() {
            int h = hash;
            if (h == 0) {
                h = super.hashCode();
                hash = h;
            }
            return h;
        }
    }
}
