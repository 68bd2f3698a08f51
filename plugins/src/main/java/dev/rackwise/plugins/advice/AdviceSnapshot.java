package dev.rackwise.plugins.advice;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * An immutable view of all advice held: per topic name its {@link TopicAdvice}, per pattern
 * its {@link GroupAdvice}. Stale entries are kept: whether advice is too old is decided when it
 * is used, by {@link AdviceReader}, so an agent that stops is noticed without a new record.
 */
public final class AdviceSnapshot {
    public static final AdviceSnapshot EMPTY = new AdviceSnapshot(Map.of(), Map.of());

    private final Map<String, TopicAdvice> topics;
    private final Map<String, GroupAdvice> groups;
    /** Groups in match order (priority, then pattern) with their compiled patterns. */
    private final List<Map.Entry<GroupAdvice, Pattern>> ordered;

    public AdviceSnapshot(Map<String, TopicAdvice> topics, Map<String, GroupAdvice> groups) {
        this.topics = Collections.unmodifiableMap(new TreeMap<>(topics));
        this.groups = Collections.unmodifiableMap(new TreeMap<>(groups));
        List<Map.Entry<GroupAdvice, Pattern>> list = new ArrayList<>();
        for (GroupAdvice g : this.groups.values()) {
            list.add(Map.entry(g, Fnmatch.compile(g.pattern())));
        }
        list.sort(Comparator.comparingInt((Map.Entry<GroupAdvice, Pattern> e) -> e.getKey().priority())
            .thenComparing(e -> e.getKey().pattern()));
        this.ordered = List.copyOf(list);
    }

    /** Every topic's advice, by topic name (sorted). */
    public Map<String, TopicAdvice> topics() {
        return topics;
    }

    /** Every group rule's advice, by pattern (sorted). */
    public Map<String, GroupAdvice> groups() {
        return groups;
    }

    /** The group rules matching {@code groupId}, first the one that wins. */
    public List<GroupAdvice> matching(String groupId) {
        List<GroupAdvice> out = new ArrayList<>();
        for (Map.Entry<GroupAdvice, Pattern> e : ordered) {
            if (e.getValue().matcher(groupId).matches()) {
                out.add(e.getKey());
            }
        }
        return out;
    }
}
