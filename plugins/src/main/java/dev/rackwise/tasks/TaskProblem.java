package dev.rackwise.tasks;

import dev.rackwise.core.TopicPartition;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * One Kafka Streams task-assignment problem (docs/streams-assignor.md § 1), immutable; built
 * with {@link #builder()}, which validates it. Tasks, clients and partitions are held sorted,
 * so the order they were added in never matters.
 *
 * <pre>{@code
 * TopicPartition orders0 = new TopicPartition("orders", 0);
 * TopicPartition log0 = new TopicPartition("app-store-changelog", 0);
 * TaskProblem p = TaskProblem.builder()
 *     .task(new TaskSpec(new TaskId(0, 0), true, List.of(orders0), List.of(log0)))
 *     .replicaRacks(orders0, List.of("az1", "az2"))
 *     .replicaRacks(log0, List.of("az1", "az2"))
 *     .client(ClientSpec.of("p1", 1, "az1"))
 *     .config(TaskConfig.defaults().withRackAwareStrategy(RackStrategy.MIN_TRAFFIC))
 *     .build();
 * TaskPlan plan = TaskCore.assign(p);
 * }</pre>
 */
public final class TaskProblem {
    private final SortedMap<TaskId, TaskSpec> tasks;
    private final SortedMap<String, ClientSpec> clients;
    private final SortedMap<TopicPartition, List<String>> replicaRacks;
    private final SortedMap<TopicPartition, Long> weights;
    private final TaskConfig config;

    private TaskProblem(Builder b) {
        this.tasks = Collections.unmodifiableSortedMap(new TreeMap<>(b.tasks));
        this.clients = Collections.unmodifiableSortedMap(new TreeMap<>(b.clients));
        this.replicaRacks = Collections.unmodifiableSortedMap(new TreeMap<>(b.replicaRacks));
        this.weights = Collections.unmodifiableSortedMap(new TreeMap<>(b.weights));
        this.config = b.config;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Every task, by id (sorted by subtopology, then partition). */
    public SortedMap<TaskId, TaskSpec> tasks() {
        return tasks;
    }

    /** Every client, by process id (sorted as strings; the assignor's own order is Kafka's). */
    public SortedMap<String, ClientSpec> clients() {
        return clients;
    }

    /**
     * Per partition, the racks of its replicas; a null entry is a replica whose broker has no
     * rack. A task partition missing here, with no replica, or with a rackless replica turns
     * rack awareness off (Kafka's {@code canEnableRackAwareAssignor}).
     */
    public SortedMap<TopicPartition, List<String>> replicaRacks() {
        return replicaRacks;
    }

    /**
     * Optional per-partition weights (bytes/s advice, rounded by the caller to a non-negative
     * integer). A partition without one weighs 1, so with no weights every cost is Kafka's.
     */
    public SortedMap<TopicPartition, Long> weights() {
        return weights;
    }

    /** The weight of one partition: its given weight, else 1. */
    public long weight(TopicPartition tp) {
        Long w = weights.get(tp);
        return w == null ? 1L : w;
    }

    /** Kafka Streams' assignment configs. */
    public TaskConfig config() {
        return config;
    }

    /** Collects a problem; {@link #build()} checks it. Not thread-safe; the TaskProblem is. */
    public static final class Builder {
        private final Map<TaskId, TaskSpec> tasks = new TreeMap<>();
        private final Map<String, ClientSpec> clients = new TreeMap<>();
        private final Map<TopicPartition, List<String>> replicaRacks = new TreeMap<>();
        private final Map<TopicPartition, Long> weights = new TreeMap<>();
        private TaskConfig config = TaskConfig.defaults();
        private final List<String> errors = new ArrayList<>();

        private Builder() {
        }

        /** Adds a task; a second task with the same id is an error. */
        public Builder task(TaskSpec task) {
            Objects.requireNonNull(task, "task");
            if (tasks.putIfAbsent(task.id(), task) != null) {
                errors.add("task " + task.id() + " is listed twice");
            }
            return this;
        }

        /** Adds a client; a second client with the same process id is an error. */
        public Builder client(ClientSpec client) {
            Objects.requireNonNull(client, "client");
            if (clients.putIfAbsent(client.processId(), client) != null) {
                errors.add("process id " + client.processId()
                        + " is listed twice; list each process once with its thread count");
            }
            return this;
        }

        /** Sets one partition's replica racks (null entries: replicas without a rack). */
        public Builder replicaRacks(TopicPartition tp, Collection<String> racks) {
            Objects.requireNonNull(tp, "tp");
            Objects.requireNonNull(racks, "racks");
            replicaRacks.put(tp, Collections.unmodifiableList(new ArrayList<>(racks)));
            return this;
        }

        /** Sets one partition's weight (>= 0); unset partitions weigh 1. */
        public Builder weight(TopicPartition tp, long weight) {
            Objects.requireNonNull(tp, "tp");
            if (weight < 0) {
                errors.add("weight of " + tp + " is " + weight + "; weights must be >= 0");
            }
            weights.put(tp, weight);
            return this;
        }

        /** Sets the assignment configs (default {@link TaskConfig#defaults()}). */
        public Builder config(TaskConfig config) {
            this.config = Objects.requireNonNull(config, "config");
            return this;
        }

        /**
         * Checks the problem and freezes it.
         *
         * @throws TaskInputException naming every problem found
         */
        public TaskProblem build() {
            List<String> bad = new ArrayList<>(errors);
            Validation.check(tasks, clients, weights, config, bad);
            if (!bad.isEmpty()) {
                throw new TaskInputException(String.join("; ", bad));
            }
            return new TaskProblem(this);
        }
    }
}
