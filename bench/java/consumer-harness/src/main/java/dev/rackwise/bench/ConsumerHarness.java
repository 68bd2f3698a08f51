package dev.rackwise.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.File;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.GroupSubscription;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Subscription;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.consumer.RangeAssignor;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;

/**
 * Reads rackwise consumer scenarios and prints what the real Java assignors make of them.
 *
 * <p>Usage: {@code ConsumerHarness [--assignor range|cooperative-sticky]... [--repeat N] [FILE|-]}.
 * The input is one scenario object, a JSON array of scenarios, or {"scenarios": [...]}.
 * For every scenario and assignor one JSON line is printed:
 * {"index", "assignor", "assignment": {member: [[topic, partition], ...]}, "elapsed_ms", "best_ms"}.
 * elapsed_ms times the first assign() call, best_ms the fastest of N repeats (JIT warm).
 *
 * <p>Members are put into the subscription HashMap in sorted member-id order, so where the
 * assignor depends on HashMap iteration order the order is a function of the ids alone.
 */
public final class ConsumerHarness {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    public static void main(String[] args) throws Exception {
        List<String> assignors = new ArrayList<>();
        int repeat = 1;
        String file = "-";
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--assignor" -> assignors.add(args[++i]);
                case "--repeat" -> repeat = Integer.parseInt(args[++i]);
                default -> file = args[i];
            }
        }
        if (assignors.isEmpty()) {
            assignors.add("range");
            assignors.add("cooperative-sticky");
        }
        JsonNode root;
        try (InputStream in = file.equals("-") ? System.in : new java.io.FileInputStream(new File(file))) {
            root = MAPPER.readTree(in);
        }
        List<JsonNode> scenarios = new ArrayList<>();
        if (root.isArray()) root.forEach(scenarios::add);
        else if (root.has("scenarios")) root.get("scenarios").forEach(scenarios::add);
        else scenarios.add(root);
        for (int index = 0; index < scenarios.size(); index++) {
            JsonNode doc = scenarios.get(index);
            Cluster cluster = cluster(doc.get("cluster"));
            for (String name : assignors) {
                ConsumerPartitionAssignor.GroupAssignment result = null;
                long first = 0;
                long best = Long.MAX_VALUE;
                for (int r = 0; r < Math.max(1, repeat); r++) {
                    GroupSubscription subs = subscriptions(doc.get("group"));
                    ConsumerPartitionAssignor assignor = assignor(name);
                    long t0 = System.nanoTime();
                    result = assignor.assign(cluster, subs);
                    long took = System.nanoTime() - t0;
                    if (r == 0) first = took;
                    best = Math.min(best, took);
                }
                ObjectNode out = MAPPER.createObjectNode();
                out.put("index", index);
                out.put("assignor", name);
                ObjectNode assignment = out.putObject("assignment");
                Map<String, ConsumerPartitionAssignor.Assignment> sorted = new TreeMap<>(result.groupAssignment());
                for (Map.Entry<String, ConsumerPartitionAssignor.Assignment> e : sorted.entrySet()) {
                    ArrayNode parts = assignment.putArray(e.getKey());
                    for (TopicPartition tp : e.getValue().partitions()) {
                        ArrayNode pair = parts.addArray();
                        pair.add(tp.topic());
                        pair.add(tp.partition());
                    }
                }
                out.put("elapsed_ms", first / 1e6);
                out.put("best_ms", best / 1e6);
                System.out.println(MAPPER.writeValueAsString(out));
                System.out.flush();
            }
        }
    }

    private static ConsumerPartitionAssignor assignor(String name) {
        return switch (name) {
            case "range" -> new RangeAssignor();
            case "cooperative-sticky" -> new CooperativeStickyAssignor();
            default -> throw new IllegalArgumentException("unknown assignor " + name);
        };
    }

    private static Cluster cluster(JsonNode doc) {
        Map<Integer, Node> nodes = new HashMap<>();
        Iterator<Map.Entry<String, JsonNode>> brokers = doc.get("brokers").fields();
        while (brokers.hasNext()) {
            Map.Entry<String, JsonNode> e = brokers.next();
            int id = Integer.parseInt(e.getKey());
            String rack = e.getValue().isNull() || e.getValue().asText().isEmpty() ? null : e.getValue().asText();
            nodes.put(id, new Node(id, "broker" + id, 9092, rack));
        }
        List<PartitionInfo> partitions = new ArrayList<>();
        Iterator<Map.Entry<String, JsonNode>> topics = doc.get("topics").fields();
        while (topics.hasNext()) {
            Map.Entry<String, JsonNode> e = topics.next();
            int p = 0;
            for (JsonNode replicas : e.getValue()) {
                Node[] rs = new Node[replicas.size()];
                for (int i = 0; i < rs.length; i++) {
                    int b = replicas.get(i).asInt();
                    // an unknown broker id is a replica with no known rack, as in rackwise
                    rs[i] = nodes.getOrDefault(b, new Node(b, "broker" + b, 9092, null));
                }
                partitions.add(new PartitionInfo(e.getKey(), p++, rs.length > 0 ? rs[0] : null, rs, rs));
            }
        }
        return new Cluster("rackwise", new ArrayList<>(nodes.values()), partitions,
                Collections.emptySet(), Collections.emptySet());
    }

    private static GroupSubscription subscriptions(JsonNode group) {
        TreeMap<String, JsonNode> byId = new TreeMap<>();
        for (JsonNode m : group.get("members")) byId.put(m.get("id").asText(), m);
        Map<String, Subscription> subs = new HashMap<>();
        for (Map.Entry<String, JsonNode> e : byId.entrySet()) {
            JsonNode m = e.getValue();
            List<String> topics = new ArrayList<>();
            if (m.has("topics")) m.get("topics").forEach(t -> topics.add(t.asText()));
            Collections.sort(topics);
            List<TopicPartition> owned = new ArrayList<>();
            if (m.has("owned") && !m.get("owned").isNull()) {
                Iterator<Map.Entry<String, JsonNode>> it = m.get("owned").fields();
                List<String> names = new ArrayList<>();
                Map<String, JsonNode> lists = new HashMap<>();
                while (it.hasNext()) {
                    Map.Entry<String, JsonNode> o = it.next();
                    names.add(o.getKey());
                    lists.put(o.getKey(), o.getValue());
                }
                Collections.sort(names);
                for (String t : names) {
                    List<Integer> ps = new ArrayList<>();
                    lists.get(t).forEach(p -> ps.add(p.asInt()));
                    Collections.sort(ps);
                    ps.forEach(p -> owned.add(new TopicPartition(t, p)));
                }
            }
            int generation = m.has("generation") && !m.get("generation").isNull() ? m.get("generation").asInt() : -1;
            String rack = m.has("rack") && !m.get("rack").isNull() ? m.get("rack").asText() : null;
            Subscription s = new Subscription(topics, null, owned, generation, Optional.ofNullable(rack));
            if (m.has("instance_id") && !m.get("instance_id").isNull())
                s.setGroupInstanceId(Optional.of(m.get("instance_id").asText()));
            subs.put(e.getKey(), s);
        }
        return new GroupSubscription(subs);
    }

    private ConsumerHarness() {
    }

}
