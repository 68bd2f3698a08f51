package dev.rackwise.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Properties;
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
 * Reads one harness input (JSON on stdin), runs Kafka's HighAvailabilityTaskAssignor with a
 * real RackAwareTaskAssignor {@code repeat} times on fresh client states, and prints the
 * last assignment plus every run's wall time. Changelog topics are "described" by a
 * stand-in InternalTopicManager that answers from the input, exactly what Kafka's own
 * tests do with MockInternalTopicManager.
 */
public final class StreamsHarness {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** Answers describe calls for internal (changelog) topics from the scenario. */
    static final class ScenarioTopicManager extends InternalTopicManager {
        private final Map<String, List<TopicPartitionInfo>> described;

        ScenarioTopicManager(final StreamsConfig config, final Map<String, List<TopicPartitionInfo>> described) {
            super(Time.SYSTEM, null, config);
            this.described = described;
        }

        @Override
        public Map<String, List<TopicPartitionInfo>> getTopicPartitionInfo(final Set<String> topics) {
            final Map<String, List<TopicPartitionInfo>> out = new HashMap<>();
            for (final String t : topics) {
                if (described.containsKey(t)) {
                    out.put(t, described.get(t));
                }
            }
            return out;
        }
    }

    private static TaskId task(final String id) {
        final String[] parts = id.split("_");
        return new TaskId(Integer.parseInt(parts[0]), Integer.parseInt(parts[1]));
    }

    private static Set<TopicPartition> partitions(final JsonNode list) {
        final Set<TopicPartition> out = new HashSet<>();
        list.forEach(p -> out.add(new TopicPartition(p.get(0).asText(), p.get(1).asInt())));
        return out;
    }

    public static void main(final String[] args) throws Exception {
        final InputStream in = System.in;
        final JsonNode doc = JSON.readTree(in);
        final JsonNode cfg = doc.get("config");

        final Map<Integer, Node> nodes = new TreeMap<>();
        doc.get("brokers").fields().forEachRemaining(e -> {
            final int id = Integer.parseInt(e.getKey());
            final String rack = e.getValue().isNull() ? null : e.getValue().asText();
            nodes.put(id, new Node(id, "broker" + id, 9092, rack));
        });
        final List<PartitionInfo> infos = new ArrayList<>();
        doc.get("topics").fields().forEachRemaining(e -> {
            int p = 0;
            for (final JsonNode replicas : e.getValue()) {
                final List<Node> rs = new ArrayList<>();
                replicas.forEach(b -> rs.add(nodes.getOrDefault(b.asInt(), new Node(b.asInt(), "gone" + b.asInt(), 9092))));
                final Node[] arr = rs.toArray(new Node[0]);
                infos.add(new PartitionInfo(e.getKey(), p++, arr.length > 0 ? arr[0] : null, arr, arr));
            }
        });
        final Cluster cluster = new Cluster("harness", nodes.values(), infos, Set.of(), Set.of());
        final Map<String, List<TopicPartitionInfo>> described = new HashMap<>();
        doc.get("changelog_topics").fields().forEachRemaining(e -> {
            final List<TopicPartitionInfo> list = new ArrayList<>();
            int p = 0;
            for (final JsonNode replicas : e.getValue()) {
                final List<Node> rs = new ArrayList<>();
                replicas.forEach(b -> rs.add(nodes.getOrDefault(b.asInt(), new Node(b.asInt(), "gone" + b.asInt(), 9092))));
                list.add(new TopicPartitionInfo(p++, rs.isEmpty() ? null : rs.get(0), rs, rs));
            }
            described.put(e.getKey(), list);
        });

        final Map<TaskId, Set<TopicPartition>> sourceForTask = new HashMap<>();
        final Map<TaskId, Set<TopicPartition>> changelogForTask = new HashMap<>();
        final Map<Subtopology, Set<TaskId>> tasksForGroup = new HashMap<>();
        final Set<TaskId> allTasks = new TreeSet<>();
        final Set<TaskId> statefulTasks = new TreeSet<>();
        for (final JsonNode t : doc.get("tasks")) {
            final TaskId id = task(t.get("id").asText());
            allTasks.add(id);
            sourceForTask.put(id, partitions(t.get("source")));
            changelogForTask.put(id, partitions(t.get("changelog")));
            if (t.get("stateful").asBoolean()) {
                statefulTasks.add(id);
            }
            tasksForGroup.computeIfAbsent(new Subtopology(id.subtopology(), null), k -> new HashSet<>()).add(id);
        }

        final List<String> tags = new ArrayList<>();
        cfg.get("tags").forEach(x -> tags.add(x.asText()));
        final AssignmentConfigs configs = new AssignmentConfigs(
            cfg.get("acceptable_recovery_lag").asLong(),
            cfg.get("max_warmup_replicas").asInt(),
            cfg.get("num_standby_replicas").asInt(),
            cfg.get("probing_rebalance_interval_ms").asLong(),
            tags,
            cfg.get("traffic_cost").isNull() ? OptionalInt.empty() : OptionalInt.of(cfg.get("traffic_cost").asInt()),
            cfg.get("non_overlap_cost").isNull() ? OptionalInt.empty() : OptionalInt.of(cfg.get("non_overlap_cost").asInt()),
            cfg.get("strategy").asText());
        final Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "rackwise-harness");
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost:1");
        final StreamsConfig streamsConfig = new StreamsConfig(props);

        final int repeat = doc.has("repeat") ? doc.get("repeat").asInt() : 1;
        final ArrayNode millis = JSON.createArrayNode();
        Map<ProcessId, ClientState> states = null;
        boolean probing = false;
        boolean rackEnabled = false;
        for (int r = 0; r < repeat; r++) {
            states = new TreeMap<>();
            final Map<ProcessId, Map<String, Optional<String>>> racks = new HashMap<>();
            for (final JsonNode c : doc.get("clients")) {
                final ProcessId pid = new ProcessId(UUID.fromString(c.get("uuid").asText()));
                final Set<TaskId> prevActive = new TreeSet<>();
                c.get("prev_active").forEach(x -> prevActive.add(task(x.asText())));
                final Set<TaskId> prevStandby = new TreeSet<>();
                c.get("prev_standby").forEach(x -> prevStandby.add(task(x.asText())));
                final Map<TaskId, Long> lags = new HashMap<>();
                c.get("lags").fields().forEachRemaining(e -> lags.put(task(e.getKey()), e.getValue().asLong()));
                final Map<String, String> clientTags = new HashMap<>();
                c.get("tags").fields().forEachRemaining(e -> clientTags.put(e.getKey(), e.getValue().asText()));
                final int threads = c.get("threads").asInt();
                states.put(pid, new ClientState(prevActive, prevStandby, lags, clientTags, threads, pid));
                final Map<String, Optional<String>> consumers = new HashMap<>();
                final Optional<String> rack = c.get("rack").isNull() ? Optional.empty() : Optional.of(c.get("rack").asText());
                for (int i = 0; i < threads; i++) {
                    consumers.put(pid + "-consumer-" + i, rack);
                }
                racks.put(pid, consumers);
            }
            final long start = System.nanoTime();
            final RackAwareTaskAssignor rackAware = new RackAwareTaskAssignor(cluster, sourceForTask,
                changelogForTask, tasksForGroup, racks, new ScenarioTopicManager(streamsConfig, described),
                configs, Time.SYSTEM);
            probing = new HighAvailabilityTaskAssignor().assign(states, allTasks, statefulTasks, rackAware, configs);
            millis.add((System.nanoTime() - start) / 1e6);
            rackEnabled = rackAware.canEnableRackAwareAssignor();
        }

        final ObjectNode out = JSON.createObjectNode();
        out.put("probing", probing);
        out.put("rack_enabled", rackEnabled);
        out.set("millis", millis);
        final ArrayNode clients = out.putArray("clients");
        for (final Map.Entry<ProcessId, ClientState> e : states.entrySet()) {
            final ObjectNode c = clients.addObject();
            c.put("uuid", e.getKey().id().toString());
            final ArrayNode active = c.putArray("active");
            new TreeSet<>(e.getValue().activeTasks()).forEach(t -> active.add(t.subtopology() + "_" + t.partition()));
            final ArrayNode standby = c.putArray("standby");
            new TreeSet<>(e.getValue().standbyTasks()).forEach(t -> standby.add(t.subtopology() + "_" + t.partition()));
        }
        System.out.println(JSON.writeValueAsString(out));
    }
}
