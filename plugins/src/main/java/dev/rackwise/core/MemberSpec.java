package dev.rackwise.core;

import java.util.Collections;
import java.util.Set;
import java.util.TreeSet;

/**
 * One group member: its id, its rack ({@code client.rack}; null or empty when unknown),
 * whether it reads from followers (KIP-392; ignored without a rack) and its topics.
 */
public record MemberSpec(String id, String rack, boolean readsFollowers, Set<String> topics) {
    public MemberSpec {
        if (id == null || id.isEmpty()) {
            throw new CoreInputException("a member id is null or empty");
        }
        if (rack != null && rack.isEmpty()) {
            rack = null;
        }
        TreeSet<String> sorted = new TreeSet<>();
        if (topics != null) {
            for (String t : topics) {
                if (t == null) {
                    throw new CoreInputException("member " + id + " subscribes a null topic");
                }
                sorted.add(t);
            }
        }
        topics = Collections.unmodifiableSet(sorted);
        // Follower fetching needs a rack to pick a replica by: without one it reads the leader.
        readsFollowers = readsFollowers && rack != null;
    }
}
