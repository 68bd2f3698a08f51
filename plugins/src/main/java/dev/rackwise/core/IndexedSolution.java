package dev.rackwise.core;

import java.util.Collections;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * An optimal assignment of an {@link IndexedProblem}, in that problem's own numbering: input
 * member {@code m}'s partitions as (input topic index, partition number) pairs in (topic name,
 * partition) order. Adapters write Kafka's objects straight from it; {@link #toSolution()}
 * gives the same assignment as a {@link Solution}. Immutable.
 *
 * <p>Example: {@code for (int i = 0; i < s.count(m); i++) use(s.topic(m, i), s.partition(m, i));}
 */
public final class IndexedSolution {
    private final Instance in;
    /** Sorted member k's partitions are all[start[k] .. start[k + 1]), as instance partition indices. */
    private final int[] start;
    private final int[] all;
    /** Input member to sorted member. */
    private final int[] sortedOf;
    private final double cost;
    private final long objective;
    private final int moved;
    private final int bits;
    private final int levels;

    IndexedSolution(Instance in, int[] start, int[] all, double cost, long objective, int moved, int bits, int levels) {
        this.in = in;
        this.start = start;
        this.all = all;
        this.sortedOf = new int[in.n];
        for (int k = 0; k < in.n; k++) {
            sortedOf[in.memberInput[k]] = k;
        }
        this.cost = cost;
        this.objective = objective;
        this.moved = moved;
        this.bits = bits;
        this.levels = levels;
    }

    /** How many partitions input member {@code m} is given. */
    public int count(int m) {
        int k = sortedOf[m];
        return start[k + 1] - start[k];
    }

    /** The input topic index of member {@code m}'s {@code i}-th partition. */
    public int topic(int m, int i) {
        return in.topicInput[in.pTopic[at(m, i)]];
    }

    /** The partition number of member {@code m}'s {@code i}-th partition. */
    public int partition(int m, int i) {
        return in.pNum[at(m, i)];
    }

    private int at(int m, int i) {
        int k = sortedOf[m];
        if (i < 0 || i >= start[k + 1] - start[k]) {
            throw new IndexOutOfBoundsException("index " + i + ", size " + (start[k + 1] - start[k]));
        }
        return all[start[k] + i];
    }

    /**
     * Member {@code m}'s partitions at once: its i-th partition's input topic index into
     * {@code topics[i]} and its number into {@code partitions[i]} (each at least {@link #count}
     * long); returns the count.
     */
    public int fill(int m, int[] topics, int[] partitions) {
        int k = sortedOf[m];
        int from = start[k];
        int size = start[k + 1] - from;
        for (int i = 0; i < size; i++) {
            int p = all[from + i];
            topics[i] = in.topicInput[in.pTopic[p]];
            partitions[i] = in.pNum[p];
        }
        return size;
    }

    /**
     * Whether every partition input member {@code m} is given was its own before (the
     * problem's previous owner, after a doubly claimed partition went to the smaller id).
     */
    public boolean allPreviouslyOwned(int m) {
        int k = sortedOf[m];
        for (int i = start[k]; i < start[k + 1]; i++) {
            if (in.pOwner[all[i]] != k) {
                return false;
            }
        }
        return true;
    }

    /** The most partitions any member is given. */
    public int maxCount() {
        int max = 0;
        for (int k = 0; k < in.n; k++) {
            max = Math.max(max, start[k + 1] - start[k]);
        }
        return max;
    }

    /** The cost, as {@link Solution#cost()}. */
    public double cost() {
        return cost;
    }

    /** Partitions that left their previous owner, as {@link Solution#moved()}. */
    public int moved() {
        return moved;
    }

    /** The same assignment as a {@link Solution}: members by id, partitions by topic name. */
    public Solution toSolution() {
        SortedMap<String, List<TopicPartition>> out = new TreeMap<>();
        for (int k = 0; k < in.n; k++) {
            out.put(in.memberIds[k], new PartitionList(in.topicNames, in.pTopic, in.pNum, all, start[k], start[k + 1]));
        }
        return new Solution(Collections.unmodifiableSortedMap(out), cost, objective, moved, bits, levels);
    }
}
