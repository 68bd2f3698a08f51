package dev.rackwise.bench.jmh;

import dev.rackwise.tasks.ClientSpec;
import dev.rackwise.tasks.RackStrategy;
import dev.rackwise.tasks.TaskConfig;
import dev.rackwise.tasks.TaskCore;
import dev.rackwise.tasks.TaskPlan;
import dev.rackwise.tasks.TaskProblem;
import dev.rackwise.tasks.TaskSpec;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Properties;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.assignment.AssignmentConfigs;
import org.apache.kafka.streams.processor.assignment.ProcessId;
import org.apache.kafka.streams.processor.internals.InternalTopicManager;
import org.apache.kafka.streams.processor.internals.TopologyMetadata.Subtopology;
import org.apache.kafka.streams.processor.internals.assignment.ClientState;
import org.apache.kafka.streams.processor.internals.assignment.HighAvailabilityTaskAssignor;
import org.apache.kafka.streams.processor.internals.assignment.RackAwareTaskAssignor;

/**
 * One Kafka Streams application, built twice from one seed: as a {@link TaskProblem} for
 * rackwise's task core and as the inputs of Kafka's own {@code HighAvailabilityTaskAssignor}
 * with a real {@code RackAwareTaskAssignor} (strategy {@code min_traffic}), the way
 * bench/java/streams-harness drives it. {@code tasks} stateful tasks in subtopologies of at
 * most 100 partitions (source {@code src-s}, changelog {@code app-store-s-changelog}), each
 * partition on 2 brokers in 2 different racks of 3 (2 brokers per rack); {@code clients}
 * one-thread clients round-robin over the racks; fresh state (no previous tasks, lags 0);
 * 1 standby; Kafka's HA defaults otherwise (traffic cost 10, non-overlap cost 1).
 */
final class StreamsCase {
    static final String[] RACKS = {"rack-0", "rack-1", "rack-2"};

    final int tasks;
    final int clients;
    final TaskProblem problem;
    /** Racks holding each task's source / changelog partition, by task index. */
    final List<Set<String>> sourceRacks = new ArrayList<>();
    final List<Set<String>> changelogRacks = new ArrayList<>();
    final List<TaskId> taskIds = new ArrayList<>();
    final UUID[] uuids;
    final String[] clientRack;

    private final Cluster cluster;
    private final Map<TaskId, Set<TopicPartition>> sourceForTask = new HashMap<>();
    private final Map<TaskId, Set<TopicPartition>> changelogForTask = new HashMap<>();
    private final Map<Subtopology, Set<TaskId>> tasksForGroup = new HashMap<>();
    private final Map<String, List<TopicPartitionInfo>> described = new HashMap<>();
    private final Set<TaskId> allTasks = new TreeSet<>();
    private final AssignmentConfigs configs;
    private final StreamsConfig streamsConfig;

    StreamsCase(int tasks, int clients, long seed) {
        this.tasks = tasks;
        this.clients = clients;
        Random random = new Random(seed);
        Node[] brokers = new Node[6];
        for (int b = 0; b < brokers.length; b++) {
            brokers[b] = new Node(b, "broker" + b, 9092, RACKS[b % 3]);
        }
        TaskProblem.Builder builder = TaskProblem.builder();
        List<PartitionInfo> infos = new ArrayList<>();
        int perSub = Math.min(100, tasks);
        for (int i = 0; i < tasks; i++) {
            int s = i / perSub;
            int p = i % perSub;
            TaskId id = new TaskId(s, p);
            taskIds.add(id);
            allTasks.add(id);
            String src = "src-" + s;
            String log = "app-store-" + s + "-changelog";
            Node[] srcReplicas = replicas(brokers, random);
            Node[] logReplicas = replicas(brokers, random);
            infos.add(new PartitionInfo(src, p, srcReplicas[0], srcReplicas, srcReplicas));
            described.computeIfAbsent(log, k -> new ArrayList<>())
                    .add(new TopicPartitionInfo(p, logReplicas[0], List.of(logReplicas), List.of(logReplicas)));
            sourceForTask.put(id, Set.of(new TopicPartition(src, p)));
            changelogForTask.put(id, Set.of(new TopicPartition(log, p)));
            tasksForGroup.computeIfAbsent(new Subtopology(s, null), k -> new HashSet<>()).add(id);
            sourceRacks.add(racks(srcReplicas));
            changelogRacks.add(racks(logReplicas));
            dev.rackwise.core.TopicPartition ourSrc = new dev.rackwise.core.TopicPartition(src, p);
            dev.rackwise.core.TopicPartition ourLog = new dev.rackwise.core.TopicPartition(log, p);
            builder.task(new TaskSpec(new dev.rackwise.tasks.TaskId(s, p), true, List.of(ourSrc), List.of(ourLog)));
            builder.replicaRacks(ourSrc, List.copyOf(racks(srcReplicas)));
            builder.replicaRacks(ourLog, List.copyOf(racks(logReplicas)));
        }
        cluster = new Cluster("bench", List.of(brokers), infos, Set.of(), Set.of());
        uuids = new UUID[clients];
        clientRack = new String[clients];
        for (int c = 0; c < clients; c++) {
            uuids[c] = new UUID(0x1000L + c, 0x2000L + c);
            clientRack[c] = RACKS[c % 3];
            builder.client(ClientSpec.of(uuids[c].toString(), 1, clientRack[c]));
        }
        builder.config(TaskConfig.defaults().withNumStandbyReplicas(1)
                .withRackAwareStrategy(RackStrategy.MIN_TRAFFIC));
        problem = builder.build();
        configs = new AssignmentConfigs(10_000L, 2, 1, 600_000L, List.of(), OptionalInt.empty(),
                OptionalInt.empty(), "min_traffic");
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "rackwise-bench");
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost:1");
        streamsConfig = new StreamsConfig(props);
    }

    private static Node[] replicas(Node[] brokers, Random random) {
        int a = random.nextInt(brokers.length);
        int b;
        do {
            b = random.nextInt(brokers.length);
        } while (b % 3 == a % 3);
        return new Node[] {brokers[a], brokers[b]};
    }

    private static Set<String> racks(Node[] replicas) {
        Set<String> out = new TreeSet<>();
        for (Node n : replicas) {
            out.add(n.rack());
        }
        return out;
    }

    /** Answers describe calls for the changelog topics from the case (as Kafka's tests do). */
    static final class CaseTopicManager extends InternalTopicManager {
        private final Map<String, List<TopicPartitionInfo>> described;

        CaseTopicManager(StreamsConfig config, Map<String, List<TopicPartitionInfo>> described) {
            super(Time.SYSTEM, null, config);
            this.described = described;
        }

        @Override
        public Map<String, List<TopicPartitionInfo>> getTopicPartitionInfo(Set<String> topics) {
            Map<String, List<TopicPartitionInfo>> out = new HashMap<>();
            for (String t : topics) {
                if (described.containsKey(t)) {
                    out.put(t, described.get(t));
                }
            }
            return out;
        }
    }

    /** rackwise's plan. */
    TaskPlan rackwise() {
        return TaskCore.assign(problem);
    }

    /** Kafka's assignment on fresh client states: per client (in {@link #uuids} order) its state. */
    Map<ProcessId, ClientState> kafka() {
        Map<ProcessId, ClientState> states = new TreeMap<>();
        Map<ProcessId, Map<String, Optional<String>>> racks = new HashMap<>();
        for (int c = 0; c < clients; c++) {
            ProcessId pid = new ProcessId(uuids[c]);
            Map<TaskId, Long> lags = new HashMap<>();
            for (TaskId t : allTasks) {
                lags.put(t, 0L);
            }
            states.put(pid, new ClientState(Set.of(), Set.of(), lags, Map.of(), 1, pid));
            racks.put(pid, Map.of(pid + "-consumer-0", Optional.of(clientRack[c])));
        }
        RackAwareTaskAssignor rackAware = new RackAwareTaskAssignor(cluster, sourceForTask,
                changelogForTask, tasksForGroup, racks, new CaseTopicManager(streamsConfig, described),
                configs, Time.SYSTEM);
        new HighAvailabilityTaskAssignor().assign(states, allTasks, new TreeSet<>(allTasks), rackAware, configs);
        return states;
    }

    /** {cross-rack actives, cross-rack standbys} of rackwise's plan. */
    long[] crossRack(TaskPlan plan) {
        long[] out = new long[2];
        for (int c = 0; c < clients; c++) {
            var a = plan.client(uuids[c].toString());
            for (var t : a.active()) {
                out[0] += sourceRacks.get(index(t.subtopology(), t.partition())).contains(clientRack[c]) ? 0 : 1;
            }
            for (var t : a.standby()) {
                out[1] += changelogRacks.get(index(t.subtopology(), t.partition())).contains(clientRack[c]) ? 0 : 1;
            }
        }
        return out;
    }

    /** {cross-rack actives, cross-rack standbys} of Kafka's assignment. */
    long[] crossRack(Map<ProcessId, ClientState> states) {
        long[] out = new long[2];
        for (int c = 0; c < clients; c++) {
            ClientState s = states.get(new ProcessId(uuids[c]));
            for (TaskId t : s.activeTasks()) {
                out[0] += sourceRacks.get(index(t.subtopology(), t.partition())).contains(clientRack[c]) ? 0 : 1;
            }
            for (TaskId t : s.standbyTasks()) {
                out[1] += changelogRacks.get(index(t.subtopology(), t.partition())).contains(clientRack[c]) ? 0 : 1;
            }
        }
        return out;
    }

    private int index(int subtopology, int partition) {
        return subtopology * Math.min(100, tasks) + partition;
    }
}
