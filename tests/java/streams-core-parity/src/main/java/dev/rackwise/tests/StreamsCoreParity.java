package dev.rackwise.tests;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rackwise.core.TopicPartition;
import dev.rackwise.tasks.ClientAssignment;
import dev.rackwise.tasks.ClientSpec;
import dev.rackwise.tasks.RackStrategy;
import dev.rackwise.tasks.TaskConfig;
import dev.rackwise.tasks.TaskCore;
import dev.rackwise.tasks.TaskId;
import dev.rackwise.tasks.TaskPlan;
import dev.rackwise.tasks.TaskProblem;
import dev.rackwise.tasks.TaskSpec;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Reads one Streams task problem per JSON line on stdin, answers each with
 * {@code dev.rackwise.tasks.TaskCore} on one JSON line (tests/support/streamscoreparity.py
 * documents both formats): {@code {"id", "clients": {pid: {"active", "standby", "warmup"}},
 * "followup", "rack_aware", "costs": {"stateful_active", "standby", "stateless_active"},
 * "nanos"}} or {@code {"id", "error"}}. A bad line is answered, never fatal.
 */
public final class StreamsCoreParity {
    private static final ObjectMapper JSON = new ObjectMapper();

    private StreamsCoreParity() {
    }

    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        BufferedWriter out = new BufferedWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            if (line.isBlank()) {
                continue;
            }
            out.write(JSON.writeValueAsString(answer(line)));
            out.write('\n');
        }
        out.flush();
    }

    static ObjectNode answer(String line) {
        ObjectNode reply = JSON.createObjectNode();
        try {
            JsonNode doc = JSON.readTree(line);
            reply.set("id", doc.get("id"));
            TaskProblem problem = problem(doc);
            long start = System.nanoTime();
            TaskPlan plan = TaskCore.assign(problem);
            long nanos = System.nanoTime() - start;
            ObjectNode clients = reply.putObject("clients");
            for (Map.Entry<String, ClientAssignment> e : plan.clients().entrySet()) {
                ObjectNode c = clients.putObject(e.getKey());
                ids(c.putArray("active"), e.getValue().active());
                ids(c.putArray("standby"), e.getValue().standby());
                ids(c.putArray("warmup"), e.getValue().warmup());
            }
            reply.put("followup", plan.followupNeeded());
            reply.put("rack_aware", plan.rackAware());
            ObjectNode costs = reply.putObject("costs");
            cost(costs, "stateful_active", plan.activeStepCost());
            cost(costs, "standby", plan.standbyStepCost());
            cost(costs, "stateless_active", plan.statelessStepCost());
            reply.put("nanos", nanos);
        } catch (Exception e) {
            reply.put("error", e.getClass().getSimpleName() + ": " + e.getMessage());
        }
        return reply;
    }

    private static void ids(ArrayNode arr, List<TaskId> ids) {
        ids.forEach(t -> arr.add(t.toString()));
    }

    private static void cost(ObjectNode costs, String name, OptionalLong value) {
        if (value.isPresent()) {
            costs.put(name, value.getAsLong());
        }
    }

    private static List<TopicPartition> tps(JsonNode arr) {
        List<TopicPartition> out = new ArrayList<>();
        for (JsonNode tp : arr) {
            out.add(new TopicPartition(tp.get(0).asText(), tp.get(1).asInt()));
        }
        return out;
    }

    private static TreeSet<TaskId> taskIds(JsonNode arr) {
        TreeSet<TaskId> out = new TreeSet<>();
        if (arr != null) {
            arr.forEach(t -> out.add(TaskId.parse(t.asText())));
        }
        return out;
    }

    static TaskProblem problem(JsonNode doc) {
        TaskProblem.Builder b = TaskProblem.builder();
        for (JsonNode t : doc.get("tasks")) {
            b.task(new TaskSpec(TaskId.parse(t.get("id").asText()), t.get("stateful").asBoolean(),
                    tps(t.get("sources")), tps(t.get("changelogs"))));
        }
        for (JsonNode r : doc.path("replica_racks")) {
            List<String> racks = new ArrayList<>();
            r.get(2).forEach(x -> racks.add(x.isNull() ? null : x.asText()));
            b.replicaRacks(new TopicPartition(r.get(0).asText(), r.get(1).asInt()), racks);
        }
        for (JsonNode w : doc.path("weights")) {
            b.weight(new TopicPartition(w.get(0).asText(), w.get(1).asInt()), w.get(2).asLong());
        }
        for (JsonNode c : doc.get("clients")) {
            Map<String, String> tags = new TreeMap<>();
            Iterator<Map.Entry<String, JsonNode>> it = c.path("tags").fields();
            while (it.hasNext()) {
                Map.Entry<String, JsonNode> e = it.next();
                tags.put(e.getKey(), e.getValue().asText());
            }
            TreeMap<TaskId, Long> lags = new TreeMap<>();
            Iterator<Map.Entry<String, JsonNode>> lt = c.path("lags").fields();
            while (lt.hasNext()) {
                Map.Entry<String, JsonNode> e = lt.next();
                lags.put(TaskId.parse(e.getKey()), e.getValue().asLong());
            }
            JsonNode rack = c.get("rack");
            b.client(new ClientSpec(c.get("process_id").asText(), c.get("threads").asInt(),
                    rack == null || rack.isNull() ? null : rack.asText(), new TreeMap<>(tags),
                    taskIds(c.get("prev_active")), taskIds(c.get("prev_standby")), lags));
        }
        JsonNode cfg = doc.get("config");
        List<String> tagKeys = new ArrayList<>();
        cfg.path("tags").forEach(x -> tagKeys.add(x.asText()));
        JsonNode traffic = cfg.get("traffic_cost");
        JsonNode nonOverlap = cfg.get("non_overlap_cost");
        b.config(new TaskConfig(cfg.get("acceptable_recovery_lag").asLong(),
                cfg.get("max_warmup_replicas").asInt(), cfg.get("num_standby_replicas").asInt(),
                cfg.get("probing_rebalance_interval_ms").asLong(),
                RackStrategy.fromConfig(cfg.get("strategy").asText()),
                traffic == null || traffic.isNull() ? null : traffic.asInt(),
                nonOverlap == null || nonOverlap.isNull() ? null : nonOverlap.asInt(), tagKeys));
        return b.build();
    }
}
