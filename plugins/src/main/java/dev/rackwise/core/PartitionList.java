package dev.rackwise.core;

import java.util.AbstractList;
import java.util.RandomAccess;

/**
 * One member's partitions in a {@link Solution}, in (topic, partition) order, held as indices
 * into the call's partition arrays: a {@link TopicPartition} is made only when one is asked
 * for. Adapters that turn a solution into Kafka's objects read {@link #topic(int)} and
 * {@link #partition(int)} and make none (docs/rack-optimal.md § 7). Immutable.
 *
 * <p>Example: a member given t-0 and t-3 reads {@code size() == 2}, {@code topic(1) == "t"},
 * {@code partition(1) == 3}, {@code get(1).equals(new TopicPartition("t", 3))}.
 */
public final class PartitionList extends AbstractList<TopicPartition> implements RandomAccess {
    private final String[] topicNames;
    private final int[] pTopic;
    private final int[] pNum;
    private final int[] parts;
    private final int from;
    private final int size;

    PartitionList(String[] topicNames, int[] pTopic, int[] pNum, int[] parts, int from, int to) {
        this.topicNames = topicNames;
        this.pTopic = pTopic;
        this.pNum = pNum;
        this.parts = parts;
        this.from = from;
        this.size = to - from;
    }

    @Override
    public TopicPartition get(int i) {
        return new TopicPartition(topic(i), partition(i));
    }

    /** The topic of the {@code i}-th partition (the same String instance for one topic). */
    public String topic(int i) {
        return topicNames[pTopic[parts[from + check(i)]]];
    }

    /** The partition number of the {@code i}-th partition. */
    public int partition(int i) {
        return pNum[parts[from + check(i)]];
    }

    private int check(int i) {
        if (i < 0 || i >= size) {
            throw new IndexOutOfBoundsException("index " + i + ", size " + size);
        }
        return i;
    }

    @Override
    public int size() {
        return size;
    }
}
