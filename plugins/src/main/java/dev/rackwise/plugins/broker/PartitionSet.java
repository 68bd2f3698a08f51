package dev.rackwise.plugins.broker;

import java.util.AbstractSet;
import java.util.Arrays;
import java.util.Iterator;
import java.util.NoSuchElementException;

/**
 * An immutable set of partition numbers held as a sorted int array: what a target assignment
 * gives one member of one topic, without a HashSet node and a boxed Integer per partition
 * (the coordinator only reads it: iterates, asks size and contains, or copies it).
 *
 * <p>Example: {@code new PartitionSet(new int[] {0, 3, 7}).contains(3)} is true.
 */
final class PartitionSet extends AbstractSet<Integer> {
    private final int[] sorted;

    /** {@code ascending}: distinct partition numbers in ascending order (kept, not copied). */
    PartitionSet(int[] ascending) {
        this.sorted = ascending;
    }

    @Override
    public Iterator<Integer> iterator() {
        return new Iterator<>() {
            private int i;

            @Override
            public boolean hasNext() {
                return i < sorted.length;
            }

            @Override
            public Integer next() {
                if (i >= sorted.length) {
                    throw new NoSuchElementException();
                }
                return sorted[i++];
            }
        };
    }

    @Override
    public int size() {
        return sorted.length;
    }

    @Override
    public boolean contains(Object o) {
        return o instanceof Integer p && Arrays.binarySearch(sorted, p) >= 0;
    }
}
