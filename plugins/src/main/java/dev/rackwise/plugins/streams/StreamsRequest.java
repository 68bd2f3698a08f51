package dev.rackwise.plugins.streams;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.zip.GZIPOutputStream;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.assignment.ApplicationState;
import org.apache.kafka.streams.processor.assignment.AssignmentConfigs;
import org.apache.kafka.streams.processor.assignment.KafkaStreamsState;
import org.apache.kafka.streams.processor.assignment.ProcessId;
import org.apache.kafka.streams.processor.assignment.TaskInfo;
import org.apache.kafka.streams.processor.assignment.TaskTopicPartition;

/**
 * What the KIP-924 task assignor sends the agent: a snapshot of Kafka Streams'
 * {@link ApplicationState}, read once, and its encoding (RackwiseStreamsRequest v1, JSON;
 * plugins/README.md and protocol/streams_request.py are the contract).
 *
 * <pre>
 * {"version":1,"application_id":"app",
 *  "config":{"num_standby_replicas":1,"acceptable_recovery_lag":10000,"max_warmup_replicas":2,
 *            "probing_rebalance_interval_ms":600000,"rack_aware_assignment_strategy":"min_traffic",
 *            "rack_aware_assignment_traffic_cost":null,"rack_aware_assignment_non_overlap_cost":null,
 *            "rack_aware_assignment_tags":[]},
 *  "tasks":[{"id":"0_1","stateful":true,"default_lag":1200,
 *            "partitions":[{"topic":"in","partition":1,"source":true,"changelog":false,"racks":["az1","az2"]}]}],
 *  "processes":[{"process_id":"uuid","threads":2,"rack":"az1","client_tags":{},
 *                "prev_active":["0_1"],"prev_standby":[],"lags":{"0_1":-2}}]}
 * </pre>
 *
 * Lags: a process's lag for a task is its {@code lags} entry, else the task's
 * {@code default_lag} (the value most processes share), so a process lists only where it differs.
 */
public final class StreamsRequest {
    public static final int VERSION = 1;
    /** Above this the JSON is sent gzip-compressed (the producer's record limit is 1 MiB). */
    public static final int COMPRESS_ABOVE = 256 * 1024;

    /** One partition of a task, with its replica racks (null: unknown). */
    public record Part(String topic, int partition, boolean source, boolean changelog, List<String> racks) {
    }

    /** One task: stateful as {@link TaskInfo#isStateful()}, its partitions sorted. */
    public record Task(TaskId id, boolean stateful, List<Part> partitions) {
    }

    /** One Kafka Streams process as {@link KafkaStreamsState} describes it. */
    public record Process(ProcessId id, int threads, String rack, SortedMap<String, String> clientTags,
                          SortedSet<TaskId> prevActive, SortedSet<TaskId> prevStandby, Map<TaskId, Long> lags) {
    }

    private final String applicationId;
    private final AssignmentConfigs configs;
    private final SortedMap<TaskId, Task> tasks;
    private final SortedMap<ProcessId, Process> processes;

    StreamsRequest(String applicationId, AssignmentConfigs configs, SortedMap<TaskId, Task> tasks,
                   SortedMap<ProcessId, Process> processes) {
        this.applicationId = applicationId;
        this.configs = configs;
        this.tasks = Collections.unmodifiableSortedMap(tasks);
        this.processes = Collections.unmodifiableSortedMap(processes);
    }

    /**
     * Reads the application state: every task with its partitions and racks (reading racks makes
     * Kafka Streams describe the internal topics once, as its own rack-aware assignors do; if that
     * fails the racks are sent as unknown) and every process with the lags Kafka computed.
     *
     * @throws UnsupportedRequestException for named topologies (their task ids carry a name)
     */
    public static StreamsRequest of(String applicationId, ApplicationState state) {
        SortedMap<TaskId, Task> tasks = new TreeMap<>();
        for (TaskInfo info : state.allTasks().values()) {
            TaskId id = info.id();
            if (id.topologyName() != null) {
                throw new UnsupportedRequestException("task " + id + " belongs to named topology "
                    + id.topologyName() + "; named topologies are not supported");
            }
            List<Part> parts = new ArrayList<>();
            for (TaskTopicPartition ttp : info.topicPartitions()) {
                TopicPartition tp = ttp.topicPartition();
                parts.add(new Part(tp.topic(), tp.partition(), ttp.isSource(), ttp.isChangelog(), racks(ttp)));
            }
            parts.sort((a, b) -> a.topic().equals(b.topic()) ? Integer.compare(a.partition(), b.partition())
                : a.topic().compareTo(b.topic()));
            tasks.put(id, new Task(id, info.isStateful(), List.copyOf(parts)));
        }
        SortedMap<ProcessId, Process> processes = new TreeMap<>();
        for (KafkaStreamsState s : state.kafkaStreamsStates(true).values()) {
            Map<TaskId, Long> lags = new HashMap<>();
            for (TaskId task : s.statefulTasksToLagSums().keySet()) {
                lags.put(task, s.lagFor(task));
            }
            processes.put(s.processId(), new Process(s.processId(), s.numProcessingThreads(),
                s.rackId().orElse(null), new TreeMap<>(s.clientTags()), new TreeSet<>(s.previousActiveTasks()),
                new TreeSet<>(s.previousStandbyTasks()), lags));
        }
        return new StreamsRequest(applicationId, state.assignmentConfigs(), tasks, processes);
    }

    private static List<String> racks(TaskTopicPartition ttp) {
        Optional<Set<String>> racks;
        try {
            racks = ttp.rackIds();
        } catch (RuntimeException e) {
            return null; // Kafka could not describe the topic: unknown, as for rackless brokers
        }
        if (racks == null || racks.isEmpty() || racks.get().isEmpty()) {
            return null;
        }
        return List.copyOf(new TreeSet<>(racks.get()));
    }

    public String applicationId() {
        return applicationId;
    }

    public SortedMap<TaskId, Task> tasks() {
        return tasks;
    }

    public SortedMap<ProcessId, Process> processes() {
        return processes;
    }

    /** {@code <subtopology>_<partition>}: the agent's (and Kafka's) task id string. */
    public static String taskId(TaskId id) {
        return id.subtopology() + "_" + id.partition();
    }

    /** The JSON text of the request (v1). */
    public String toJson() {
        Map<TaskId, Long> defaults = defaultLags();
        JsonWriter w = new JsonWriter(4096 + tasks.size() * 160 + processes.size() * 200);
        w.beginObject();
        w.key("version").value(VERSION);
        w.key("application_id").value(applicationId);
        w.key("config").beginObject();
        w.key("num_standby_replicas").value(configs.numStandbyReplicas());
        w.key("acceptable_recovery_lag").value(configs.acceptableRecoveryLag());
        w.key("max_warmup_replicas").value(configs.maxWarmupReplicas());
        w.key("probing_rebalance_interval_ms").value(configs.probingRebalanceIntervalMs());
        w.key("rack_aware_assignment_strategy").value(configs.rackAwareAssignmentStrategy());
        w.key("rack_aware_assignment_traffic_cost");
        if (configs.rackAwareTrafficCost().isPresent()) {
            w.value(configs.rackAwareTrafficCost().getAsInt());
        } else {
            w.nullValue();
        }
        w.key("rack_aware_assignment_non_overlap_cost");
        if (configs.rackAwareNonOverlapCost().isPresent()) {
            w.value(configs.rackAwareNonOverlapCost().getAsInt());
        } else {
            w.nullValue();
        }
        w.key("rack_aware_assignment_tags").beginArray();
        for (String tag : configs.rackAwareAssignmentTags()) {
            w.value(tag);
        }
        w.endArray().endObject();

        w.key("tasks").beginArray();
        for (Task t : tasks.values()) {
            w.beginObject().key("id").value(taskId(t.id())).key("stateful").value(t.stateful());
            Long dflt = defaults.get(t.id());
            if (dflt != null) {
                w.key("default_lag").value(dflt);
            }
            w.key("partitions").beginArray();
            for (Part p : t.partitions()) {
                w.beginObject().key("topic").value(p.topic()).key("partition").value(p.partition())
                    .key("source").value(p.source()).key("changelog").value(p.changelog()).key("racks");
                if (p.racks() == null) {
                    w.nullValue();
                } else {
                    w.beginArray();
                    for (String r : p.racks()) {
                        w.value(r);
                    }
                    w.endArray();
                }
                w.endObject();
            }
            w.endArray().endObject();
        }
        w.endArray();

        w.key("processes").beginArray();
        for (Process p : processes.values()) {
            w.beginObject().key("process_id").value(p.id().id().toString()).key("threads").value(p.threads())
                .key("rack").value(p.rack());
            w.key("client_tags").beginObject();
            for (Map.Entry<String, String> e : p.clientTags().entrySet()) {
                w.key(e.getKey()).value(e.getValue());
            }
            w.endObject();
            taskList(w.key("prev_active"), p.prevActive());
            taskList(w.key("prev_standby"), p.prevStandby());
            w.key("lags").beginObject();
            for (Map.Entry<TaskId, Long> e : new TreeMap<>(p.lags()).entrySet()) {
                Long dflt = defaults.get(e.getKey());
                if (dflt == null || dflt.longValue() != e.getValue().longValue()) {
                    w.key(taskId(e.getKey())).value(e.getValue());
                }
            }
            w.endObject().endObject();
        }
        w.endArray().endObject();
        return w.toString();
    }

    /** The request value: the JSON as UTF-8, gzip-compressed above {@link #COMPRESS_ABOVE} bytes. */
    public byte[] encode() {
        byte[] json = toJson().getBytes(StandardCharsets.UTF_8);
        if (json.length <= COMPRESS_ABOVE) {
            return json;
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(json.length / 6 + 64);
        try (GZIPOutputStream gz = new GZIPOutputStream(bytes, 65536)) {
            gz.write(json);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    private static void taskList(JsonWriter w, Set<TaskId> ids) {
        w.beginArray();
        for (TaskId id : ids) {
            w.value(taskId(id));
        }
        w.endArray();
    }

    /** Per task with lags: the value most processes have (ties: the larger one). */
    Map<TaskId, Long> defaultLags() {
        Map<TaskId, Map<Long, Integer>> counts = new HashMap<>();
        for (Process p : processes.values()) {
            for (Map.Entry<TaskId, Long> e : p.lags().entrySet()) {
                counts.computeIfAbsent(e.getKey(), k -> new HashMap<>()).merge(e.getValue(), 1, Integer::sum);
            }
        }
        Map<TaskId, Long> out = new HashMap<>();
        for (Map.Entry<TaskId, Map<Long, Integer>> e : counts.entrySet()) {
            long best = 0;
            int bestCount = -1;
            for (Map.Entry<Long, Integer> c : e.getValue().entrySet()) {
                if (c.getValue() > bestCount || (c.getValue() == bestCount && c.getKey() > best)) {
                    best = c.getKey();
                    bestCount = c.getValue();
                }
            }
            out.put(e.getKey(), best);
        }
        return out;
    }

    /** The request cannot describe this application (the assignor falls back, reason unresolved). */
    public static final class UnsupportedRequestException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        public UnsupportedRequestException(String message) {
            super(message);
        }
    }
}
