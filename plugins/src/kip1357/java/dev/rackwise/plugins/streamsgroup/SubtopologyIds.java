package dev.rackwise.plugins.streamsgroup;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * KIP-1071 names subtopologies by strings; the task core numbers them. Kafka Streams' own ids
 * are decimal ("0", "1", ...) and keep their number, so task ids read the same on both sides;
 * any other id set is numbered by its sorted order.
 *
 * <p>Example: {"0", "1", "10"} map to 0, 1, 10; {"a", "b"} map to 0, 1.
 */
public final class SubtopologyIds {
    private final List<String> sorted;
    private final Map<String, Integer> toInt = new HashMap<>();
    private final Map<Integer, String> toId = new HashMap<>();

    private SubtopologyIds(List<String> sorted, boolean numeric) {
        this.sorted = List.copyOf(sorted);
        for (int i = 0; i < sorted.size(); i++) {
            int n = numeric ? Integer.parseInt(sorted.get(i)) : i;
            toInt.put(sorted.get(i), n);
            toId.put(n, sorted.get(i));
        }
    }

    public static SubtopologyIds of(Collection<String> ids) {
        boolean numeric = ids.stream().allMatch(SubtopologyIds::isDecimal);
        TreeSet<String> set = new TreeSet<>(numeric
            ? Comparator.comparingInt(Integer::parseInt)
            : Comparator.<String>naturalOrder());
        set.addAll(ids);
        return new SubtopologyIds(new ArrayList<>(set), numeric);
    }

    private static boolean isDecimal(String s) {
        if (s == null || s.isEmpty() || s.length() > 9 || (s.length() > 1 && s.charAt(0) == '0')) {
            return false;
        }
        for (int i = 0; i < s.length(); i++) {
            if (!Character.isDigit(s.charAt(i)) || s.charAt(i) > '9') {
                return false;
            }
        }
        return true;
    }

    /** Every id, in the core's order. */
    public List<String> sorted() {
        return sorted;
    }

    public boolean contains(String id) {
        return toInt.containsKey(id);
    }

    public int toInt(String id) {
        Integer n = toInt.get(id);
        if (n == null) {
            throw new IllegalArgumentException("unknown subtopology " + id);
        }
        return n;
    }

    public String toId(int n) {
        String id = toId.get(n);
        if (id == null) {
            throw new IllegalArgumentException("unknown subtopology number " + n);
        }
        return id;
    }
}
