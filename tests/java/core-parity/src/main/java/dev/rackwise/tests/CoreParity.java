package dev.rackwise.tests;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.rackwise.core.PartitionSpec;
import dev.rackwise.core.Problem;
import dev.rackwise.core.RackOptimal;
import dev.rackwise.core.Solution;
import dev.rackwise.core.TopicPartition;

/**
 * One rack-optimal problem per JSON line in, one answer per line out (tests/support/coreparity.py).
 *
 * <p>In: {@code {"id", "racks", "traffic_cost", "non_overlap_cost", "members": [{"id", "rack",
 * "reads_followers", "topics"}], "topics": {name: [{"replica_racks", "leader_rack", "weight"}]},
 * "previous_owners": {topic: {"partition": member}}}}. Out: {@code {"id", "assignment": {member:
 * [[topic, partition]]}, "cost", "objective", "moved", "nanos", "bits", "levels"}} or {@code {"id", "error"}}: a bad
 * line is answered, never fatal.
 */
public final class CoreParity {
    private static final ObjectMapper JSON = new ObjectMapper();

    private CoreParity() {
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
        JsonNode doc;
        try {
            doc = JSON.readTree(line);
        } catch (Exception e) {
            reply.putNull("id");
            reply.put("error", "not JSON: " + e.getMessage());
            return reply;
        }
        reply.set("id", doc.isObject() && doc.has("id") ? doc.get("id") : JSON.nullNode());
        try {
            Problem pb = problem(doc);
            long t0 = System.nanoTime();
            Solution s = RackOptimal.solve(pb);
            long nanos = System.nanoTime() - t0;
            ObjectNode assignment = reply.putObject("assignment");
            for (Map.Entry<String, List<TopicPartition>> e : s.assignment().entrySet()) {
                ArrayNode tps = assignment.putArray(e.getKey());
                for (TopicPartition tp : e.getValue()) {
                    tps.addArray().add(tp.topic()).add(tp.partition());
                }
            }
            reply.put("cost", s.cost());
            reply.put("objective", s.objective());
            reply.put("moved", s.moved());
            reply.put("nanos", nanos);
            reply.put("bits", s.perturbationBits());
            reply.put("levels", s.levelsUsed());
        } catch (RuntimeException e) {
            reply.remove(List.of("assignment", "cost", "objective", "moved", "nanos", "bits", "levels"));
            reply.put("error", e.getClass().getSimpleName() + ": " + e.getMessage());
        }
        return reply;
    }

    private static Problem problem(JsonNode doc) {
        if (!doc.isObject()) {
            throw new IllegalArgumentException("a problem must be a JSON object");
        }
        Problem.Builder b = Problem.builder();
        b.racks(strings(doc.get("racks"), "racks"));
        b.costs(number(doc.get("traffic_cost"), "traffic_cost", 10.0),
                number(doc.get("non_overlap_cost"), "non_overlap_cost", 1.0));
        JsonNode members = doc.get("members");
        if (members != null && !members.isArray()) {
            throw new IllegalArgumentException("members must be a list");
        }
        int i = 0;
        for (JsonNode m : members == null ? JSON.createArrayNode() : members) {
            String where = "members[" + i++ + "]";
            if (!m.isObject()) {
                throw new IllegalArgumentException(where + " must be an object");
            }
            JsonNode reads = m.get("reads_followers");
            if (reads != null && !reads.isNull() && !reads.isBoolean()) {
                throw new IllegalArgumentException(where + ".reads_followers must be true or false");
            }
            b.member(text(m.get("id"), where + ".id", false), text(m.get("rack"), where + ".rack", true),
                    reads != null && reads.asBoolean(), strings(m.get("topics"), where + ".topics"));
        }
        JsonNode topics = doc.get("topics");
        if (topics != null && !topics.isObject()) {
            throw new IllegalArgumentException("topics must be an object: topic -> partitions");
        }
        if (topics != null) {
            for (Iterator<Map.Entry<String, JsonNode>> it = topics.fields(); it.hasNext();) {
                Map.Entry<String, JsonNode> t = it.next();
                if (!t.getValue().isArray()) {
                    throw new IllegalArgumentException("topics." + t.getKey() + " must be a list of partitions");
                }
                List<PartitionSpec> parts = new ArrayList<>();
                int p = 0;
                for (JsonNode s : t.getValue()) {
                    String where = t.getKey() + "-" + p++;
                    if (!s.isObject()) {
                        throw new IllegalArgumentException(where + " must be an object");
                    }
                    parts.add(new PartitionSpec(strings(s.get("replica_racks"), where + ".replica_racks"),
                            text(s.get("leader_rack"), where + ".leader_rack", true),
                            number(s.get("weight"), where + ".weight", 1.0)));
                }
                b.topic(t.getKey(), parts);
            }
        }
        JsonNode owners = doc.get("previous_owners");
        if (owners != null && !owners.isNull()) {
            if (!owners.isObject()) {
                throw new IllegalArgumentException("previous_owners must be an object: topic -> {partition: member}");
            }
            for (Iterator<Map.Entry<String, JsonNode>> it = owners.fields(); it.hasNext();) {
                Map.Entry<String, JsonNode> t = it.next();
                if (!t.getValue().isObject()) {
                    throw new IllegalArgumentException("previous_owners." + t.getKey() + " must be an object");
                }
                for (Iterator<Map.Entry<String, JsonNode>> ps = t.getValue().fields(); ps.hasNext();) {
                    Map.Entry<String, JsonNode> e = ps.next();
                    int partition;
                    try {
                        partition = Integer.parseInt(e.getKey());
                    } catch (NumberFormatException x) {
                        throw new IllegalArgumentException("previous_owners." + t.getKey() + ": partition '"
                                + e.getKey() + "' is not a number");
                    }
                    b.previousOwner(t.getKey(), partition,
                            text(e.getValue(), "previous_owners." + t.getKey() + "." + e.getKey(), false));
                }
            }
        }
        return b.build();
    }

    private static List<String> strings(JsonNode node, String where) {
        List<String> out = new ArrayList<>();
        if (node == null || node.isNull()) {
            return out;
        }
        if (!node.isArray()) {
            throw new IllegalArgumentException(where + " must be a list of strings");
        }
        for (JsonNode s : node) {
            out.add(text(s, where + " item", false));
        }
        return out;
    }

    private static String text(JsonNode node, String where, boolean nullable) {
        if (node == null || node.isNull()) {
            if (nullable) {
                return null;
            }
            throw new IllegalArgumentException(where + " is missing");
        }
        if (!node.isTextual()) {
            throw new IllegalArgumentException(where + " must be a string");
        }
        return node.asText();
    }

    private static double number(JsonNode node, String where, double fallback) {
        if (node == null || node.isNull()) {
            return fallback;
        }
        if (!node.isNumber()) {
            throw new IllegalArgumentException(where + " must be a number");
        }
        return node.asDouble();
    }
}
