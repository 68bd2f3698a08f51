package dev.rackwise.plugins.streams;

import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.assignment.ApplicationState;
import org.apache.kafka.streams.processor.assignment.AssignmentConfigs;
import org.apache.kafka.streams.processor.assignment.KafkaStreamsState;
import org.apache.kafka.streams.processor.assignment.ProcessId;
import org.apache.kafka.streams.processor.assignment.TaskInfo;
import org.apache.kafka.streams.processor.assignment.TaskTopicPartition;
import org.apache.kafka.streams.state.HostInfo;

/** An ApplicationState built by hand, as Kafka Streams' leader would present it (unit tests). */
final class FakeApplicationState implements ApplicationState {
    record Part(TopicPartition tp, boolean source, boolean changelog, Set<String> racks) implements TaskTopicPartition {
        @Override
        public TopicPartition topicPartition() {
            return tp;
        }

        @Override
        public boolean isSource() {
            return source;
        }

        @Override
        public boolean isChangelog() {
            return changelog;
        }

        @Override
        public Optional<Set<String>> rackIds() {
            return Optional.ofNullable(racks);
        }
    }

    record Task(TaskId id, boolean isStateful, Set<TaskTopicPartition> topicPartitions) implements TaskInfo {
        @Override
        public Set<String> stateStoreNames() {
            return isStateful ? Set.of("store") : Set.of();
        }
    }

    record Proc(ProcessId processId, int numProcessingThreads, Optional<String> rackId, Map<String, String> clientTags,
                SortedSet<TaskId> previousActiveTasks, SortedSet<TaskId> previousStandbyTasks,
                Map<TaskId, Long> statefulTasksToLagSums) implements KafkaStreamsState {
        @Override
        public SortedSet<String> consumerClientIds() {
            SortedSet<String> ids = new TreeSet<>();
            for (int i = 0; i < numProcessingThreads; i++) {
                ids.add(processId.id() + "-consumer-" + i);
            }
            return ids;
        }

        @Override
        public long lagFor(TaskId task) {
            Long lag = statefulTasksToLagSums.get(task);
            if (lag == null) {
                throw new IllegalStateException("no lag for " + task);
            }
            return lag;
        }

        @Override
        public SortedSet<TaskId> prevTasksByLag(String consumerClientId) {
            return new TreeSet<>();
        }

        @Override
        public Optional<HostInfo> hostInfo() {
            return Optional.empty();
        }
    }

    final Map<TaskId, TaskInfo> tasks = new LinkedHashMap<>();
    final Map<ProcessId, KafkaStreamsState> processes = new HashMap<>();
    AssignmentConfigs configs = new AssignmentConfigs(10_000L, 2, 1, 600_000L, List.of(), OptionalInt.empty(),
        OptionalInt.empty(), "min_traffic");

    static ProcessId pid(int n) {
        return new ProcessId(new UUID(0, n));
    }

    static TaskId task(int sub, int part) {
        return new TaskId(sub, part);
    }

    /** A task reading {@code topic-p} (racks given) and logging to {@code changelog-p} when stateful. */
    FakeApplicationState task(int sub, int p, String topic, Set<String> racks, String changelog, Set<String> clRacks) {
        Set<TaskTopicPartition> parts = new HashSet<>();
        parts.add(new Part(new TopicPartition(topic, p), true, false, racks));
        if (changelog != null) {
            parts.add(new Part(new TopicPartition(changelog, p), false, true, clRacks));
        }
        tasks.put(task(sub, p), new Task(task(sub, p), changelog != null, parts));
        return this;
    }

    FakeApplicationState process(int n, int threads, String rack, Set<TaskId> active, Set<TaskId> standby,
                                 Map<TaskId, Long> lags) {
        processes.put(pid(n), new Proc(pid(n), threads, Optional.ofNullable(rack), Map.of(), new TreeSet<>(active),
            new TreeSet<>(standby), new HashMap<>(lags)));
        return this;
    }

    @Override
    public Map<ProcessId, KafkaStreamsState> kafkaStreamsStates(boolean computeTaskLags) {
        return processes;
    }

    @Override
    public AssignmentConfigs assignmentConfigs() {
        return configs;
    }

    @Override
    public Map<TaskId, TaskInfo> allTasks() {
        return tasks;
    }

    /** Three processes in az1..az3 (p1 two threads), tasks 0_0..0_2 stateful (topic "in",
     *  changelog "app-store-changelog"), 1_0 stateless (topic "other"). */
    static FakeApplicationState sample() {
        FakeApplicationState s = new FakeApplicationState();
        s.task(0, 0, "in", Set.of("az1", "az2"), "app-store-changelog", Set.of("az1", "az3"))
            .task(0, 1, "in", Set.of("az2", "az3"), "app-store-changelog", Set.of("az2", "az3"))
            .task(0, 2, "in", Set.of("az3", "az1"), "app-store-changelog", null)
            .task(1, 0, "other", Set.of("az1"), null, null);
        Map<TaskId, Long> lags1 = new TreeMap<>(Map.of(task(0, 0), -2L, task(0, 1), 500L, task(0, 2), 500L));
        Map<TaskId, Long> lags2 = new TreeMap<>(Map.of(task(0, 0), 0L, task(0, 1), -2L, task(0, 2), 500L));
        Map<TaskId, Long> lags3 = new TreeMap<>(Map.of(task(0, 0), 500L, task(0, 1), 500L, task(0, 2), 500L));
        s.process(1, 2, "az1", Set.of(task(0, 0), task(1, 0)), Set.of(), lags1)
            .process(2, 1, "az2", Set.of(task(0, 1)), Set.of(task(0, 0)), lags2)
            .process(3, 1, "az3", Set.of(), Set.of(), lags3);
        s.processes.put(pid(3), new Proc(pid(3), 1, Optional.of("az3"), tags("zone", "c"), new TreeSet<>(),
            new TreeSet<>(), lags3));
        return s;
    }

    static SortedMap<String, String> tags(String... kv) {
        SortedMap<String, String> m = new TreeMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put(kv[i], kv[i + 1]);
        }
        return m;
    }
}
