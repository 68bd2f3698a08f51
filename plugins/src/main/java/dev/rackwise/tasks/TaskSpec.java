package dev.rackwise.tasks;

import dev.rackwise.core.TopicPartition;
import java.util.List;
import java.util.Objects;
import java.util.TreeSet;

/**
 * One task of the application: the partitions it reads and the changelog partitions its
 * state is logged to. Active tasks are placed by their source partitions, standbys by their
 * changelog partitions. A stateful task must have at least one changelog partition (Kafka
 * counts only logged stores as stateful).
 *
 * @param id                  the task ({@code subtopology_partition})
 * @param stateful            true when the task has logged state (lags, standbys, warm-ups)
 * @param sourcePartitions    what the active reads, sorted, without duplicates
 * @param changelogPartitions what a standby restores from, sorted, without duplicates
 */
public record TaskSpec(TaskId id, boolean stateful, List<TopicPartition> sourcePartitions,
                       List<TopicPartition> changelogPartitions) {
    public TaskSpec {
        Objects.requireNonNull(id, "id");
        sourcePartitions = List.copyOf(new TreeSet<>(
                Objects.requireNonNull(sourcePartitions, "sourcePartitions")));
        changelogPartitions = List.copyOf(new TreeSet<>(
                Objects.requireNonNull(changelogPartitions, "changelogPartitions")));
    }

    /** The task's subtopology. */
    public int subtopology() {
        return id.subtopology();
    }
}
