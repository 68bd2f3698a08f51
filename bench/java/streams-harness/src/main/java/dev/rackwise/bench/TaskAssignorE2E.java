package dev.rackwise.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.assignment.ApplicationState;
import org.apache.kafka.streams.processor.assignment.AssignmentConfigs;
import org.apache.kafka.streams.processor.assignment.KafkaStreamsAssignment;
import org.apache.kafka.streams.processor.assignment.KafkaStreamsState;
import org.apache.kafka.streams.processor.assignment.ProcessId;
import org.apache.kafka.streams.processor.assignment.TaskAssignmentUtils;
import org.apache.kafka.streams.processor.assignment.TaskAssignor;
import org.apache.kafka.streams.processor.assignment.TaskInfo;
import org.apache.kafka.streams.processor.assignment.TaskTopicPartition;
import org.apache.kafka.streams.state.HostInfo;

/**
 * The leader's side of a Kafka Streams rebalance with rackwise's KIP-924 task assignor, end to
 * end: reads one harness input (the JSON of bench/streams_parity.harness_input on stdin, plus
 * {@code "assignor_configs"}: the Streams configs the assignor is configured with), builds the
 * {@link ApplicationState} Kafka Streams' leader would hand the assignor (every task with its
 * source and changelog partitions and their replica racks, every process with its threads,
 * rack, tags, previous tasks and lags), and calls {@code TaskAssignor.assign} {@code repeat}
 * times, each on a new instance configured with those configs, as Kafka Streams does on every
 * rebalance. The assignor is loaded by class name ({@code dev.rackwise.plugins.RackwiseTaskAssignor},
 * whose jar must be on the classpath), so each call is the real round trip: request to
 * rackwise.requests, the agent, the plan back from rackwise.plans. Prints every call's wall time,
 * the plug-in's counts, Kafka's own check of the result, and the last assignment.
 */
public final class TaskAssignorE2E {
    private static final ObjectMapper JSON = new ObjectMapper();

    record Part(TopicPartition topicPartition, boolean isSource, boolean isChangelog, Set<String> racks)
        implements TaskTopicPartition {
        @Override
        public Optional<Set<String>> rackIds() {
            return Optional.ofNullable(racks);
        }
    }

    record Info(TaskId id, boolean isStateful, Set<TaskTopicPartition> topicPartitions) implements TaskInfo {
        @Override
        public Set<String> stateStoreNames() {
            return isStateful ? Set.of("store") : Set.of();
        }
    }

    record State(ProcessId processId, int numProcessingThreads, Optional<String> rackId, Map<String, String> clientTags,
                 SortedSet<TaskId> previousActiveTasks, SortedSet<TaskId> previousStandbyTasks,
                 Map<TaskId, Long> statefulTasksToLagSums) implements KafkaStreamsState {
        @Override
        public SortedSet<String> consumerClientIds() {
            SortedSet<String> ids = new TreeSet<>();
            for (int i = 0; i < numProcessingThreads; i++) {
                ids.add(processId.id() + "-StreamThread-" + (i + 1) + "-consumer");
            }
            return ids;
        }

        @Override
        public long lagFor(TaskId task) {
            Long lag = statefulTasksToLagSums.get(task);
            if (lag == null) {
                throw new IllegalStateException("Tried to lookup lag for unknown task " + task);
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

    record App(Map<TaskId, TaskInfo> allTasks, Map<ProcessId, KafkaStreamsState> states, AssignmentConfigs configs)
        implements ApplicationState {
        @Override
        public Map<ProcessId, KafkaStreamsState> kafkaStreamsStates(boolean computeTaskLags) {
            return states;
        }

        @Override
        public AssignmentConfigs assignmentConfigs() {
            return configs;
        }
    }

    private static TaskId task(String id) {
        String[] parts = id.split("_");
        return new TaskId(Integer.parseInt(parts[0]), Integer.parseInt(parts[1]));
    }

    private static Set<String> racks(JsonNode doc, Map<Integer, String> brokerRack, String topic, int p) {
        JsonNode placement = doc.get("topics").has(topic) ? doc.get("topics").get(topic) : doc.get("changelog_topics").get(topic);
        if (placement == null || p >= placement.size()) {
            return null;
        }
        Set<String> out = new TreeSet<>();
        for (JsonNode b : placement.get(p)) {
            String rack = brokerRack.get(b.asInt());
            if (rack == null) {
                return null;
            }
            out.add(rack);
        }
        return out.isEmpty() ? null : out;
    }

    static App application(JsonNode doc) {
        Map<Integer, String> brokerRack = new HashMap<>();
        doc.get("brokers").fields().forEachRemaining(e ->
            brokerRack.put(Integer.parseInt(e.getKey()), e.getValue().isNull() ? null : e.getValue().asText()));
        Map<TaskId, TaskInfo> tasks = new HashMap<>();
        Set<TaskId> stateful = new HashSet<>();
        for (JsonNode t : doc.get("tasks")) {
            TaskId id = task(t.get("id").asText());
            Set<TaskTopicPartition> parts = new HashSet<>();
            Map<TopicPartition, boolean[]> flags = new TreeMap<>((a, b) -> a.toString().compareTo(b.toString()));
            for (JsonNode s : t.get("source")) {
                flags.computeIfAbsent(new TopicPartition(s.get(0).asText(), s.get(1).asInt()), k -> new boolean[2])[0] = true;
            }
            for (JsonNode c : t.get("changelog")) {
                flags.computeIfAbsent(new TopicPartition(c.get(0).asText(), c.get(1).asInt()), k -> new boolean[2])[1] = true;
            }
            flags.forEach((tp, f) -> parts.add(new Part(tp, f[0], f[1], racks(doc, brokerRack, tp.topic(), tp.partition()))));
            boolean isStateful = t.get("stateful").asBoolean();
            if (isStateful) {
                stateful.add(id);
            }
            tasks.put(id, new Info(id, isStateful, parts));
        }
        Map<ProcessId, KafkaStreamsState> states = new HashMap<>();
        for (JsonNode c : doc.get("clients")) {
            ProcessId pid = new ProcessId(UUID.fromString(c.get("uuid").asText()));
            SortedSet<TaskId> prevActive = new TreeSet<>();
            c.get("prev_active").forEach(x -> prevActive.add(task(x.asText())));
            SortedSet<TaskId> prevStandby = new TreeSet<>();
            c.get("prev_standby").forEach(x -> prevStandby.add(task(x.asText())));
            Map<TaskId, Long> lags = new HashMap<>();
            for (TaskId t : stateful) {
                lags.put(t, 0L);
            }
            c.get("lags").fields().forEachRemaining(e -> lags.put(task(e.getKey()), e.getValue().asLong()));
            Map<String, String> tags = new HashMap<>();
            c.get("tags").fields().forEachRemaining(e -> tags.put(e.getKey(), e.getValue().asText()));
            Optional<String> rack = c.get("rack").isNull() ? Optional.empty() : Optional.of(c.get("rack").asText());
            states.put(pid, new State(pid, c.get("threads").asInt(), rack, tags, prevActive, prevStandby, lags));
        }
        JsonNode cfg = doc.get("config");
        List<String> tagKeys = new ArrayList<>();
        cfg.get("tags").forEach(x -> tagKeys.add(x.asText()));
        AssignmentConfigs configs = new AssignmentConfigs(
            cfg.get("acceptable_recovery_lag").asLong(), cfg.get("max_warmup_replicas").asInt(),
            cfg.get("num_standby_replicas").asInt(), cfg.get("probing_rebalance_interval_ms").asLong(), tagKeys,
            cfg.get("traffic_cost").isNull() ? OptionalInt.empty() : OptionalInt.of(cfg.get("traffic_cost").asInt()),
            cfg.get("non_overlap_cost").isNull() ? OptionalInt.empty() : OptionalInt.of(cfg.get("non_overlap_cost").asInt()),
            cfg.get("strategy").asText());
        return new App(tasks, states, configs);
    }

    public static void main(String[] args) throws Exception {
        JsonNode doc = JSON.readTree(System.in);
        App app = application(doc);
        Map<String, Object> configs = new HashMap<>();
        doc.get("assignor_configs").fields().forEachRemaining(e -> configs.put(e.getKey(), e.getValue().asText()));
        String applicationId = (String) configs.get("application.id");
        String className = doc.has("assignor_class") ? doc.get("assignor_class").asText()
            : "dev.rackwise.plugins.RackwiseTaskAssignor";
        int repeat = doc.has("repeat") ? doc.get("repeat").asInt() : 1;

        ArrayNode millis = JSON.createArrayNode();
        TaskAssignor.TaskAssignment last = null;
        for (int r = 0; r < repeat; r++) {
            long start = System.nanoTime();
            TaskAssignor assignor = (TaskAssignor) Class.forName(className).getDeclaredConstructor().newInstance();
            assignor.configure(configs);
            last = assignor.assign(app);
            millis.add((System.nanoTime() - start) / 1e6);
        }
        ObjectNode out = JSON.createObjectNode();
        out.set("millis", millis);
        Object stats = null;
        try {
            stats = Class.forName(className).getMethod("statsFor", String.class).invoke(null, applicationId);
        } catch (ReflectiveOperationException e) {
            // not rackwise's assignor
        }
        out.put("stats", String.valueOf(stats));
        out.put("kafka_check", String.valueOf(TaskAssignmentUtils.validateTaskAssignment(app, last)));
        ArrayNode clients = out.putArray("clients");
        boolean followup = false;
        for (KafkaStreamsAssignment a : last.assignment()) {
            ObjectNode c = clients.addObject();
            c.put("uuid", a.processId().id().toString());
            ArrayNode active = c.putArray("active");
            ArrayNode standby = c.putArray("standby");
            new TreeMap<>(a.tasks()).forEach((id, t) ->
                (t.type() == KafkaStreamsAssignment.AssignedTask.Type.ACTIVE ? active : standby)
                    .add(id.subtopology() + "_" + id.partition()));
            followup |= a.followupRebalanceDeadline().isPresent();
        }
        out.put("followup", followup);
        System.out.println(JSON.writeValueAsString(out));
        System.exit(0);  // the plug-in's Kafka clients are daemon threads, but do not wait for them
    }
}
