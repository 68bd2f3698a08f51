import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import dev.rackwise.plugins.config.AdviceConfig;
import dev.rackwise.plugins.advice.AdviceReader;
import dev.rackwise.plugins.advice.GroupAdvice;
import dev.rackwise.plugins.advice.IgnoredReason;
import dev.rackwise.plugins.advice.TopicAdvice;
import dev.rackwise.plugins.publish.PlanGenerations;
import dev.rackwise.plugins.publish.PlanJson;
import dev.rackwise.plugins.publish.PlanPublisher;
import dev.rackwise.plugins.publish.PublishedPlan;
import dev.rackwise.plugins.publish.TopicProbe;

/**
 * The plug-ins' advice reader and plan publisher against a real cluster
 * (tests/integration/test_plugin_advice_live.py): reads the agent's advice for one topic and one
 * group, prints what it holds as a JSON line, then publishes a plan built from it.
 * Run as a single source file: java -cp CLASSES_AND_KAFKA_CLIENTS AdviceProbe.java
 * BOOTSTRAP ADVICE_TOPIC DATA_TOPIC GROUP PLANS_TOPIC
 */
public final class AdviceProbe {
    public static void main(String[] args) throws Exception {
        String bootstrap = args[0], adviceTopic = args[1], topic = args[2], group = args[3], plansTopic = args[4];
        Map<String, Object> client = Map.of("bootstrap.servers", bootstrap);
        AdviceReader reader = new AdviceReader(new AdviceConfig(adviceTopic, 1 << 20, 900_000, 200, 200),
            AdviceReader.kafkaConsumers(client));
        reader.start();
        Optional<TopicAdvice> advice = Optional.empty();
        Optional<GroupAdvice> rule = Optional.empty();
        long deadline = System.currentTimeMillis() + 90_000;
        while (System.currentTimeMillis() < deadline) {
            long now = System.currentTimeMillis();
            advice = reader.topic(topic, now).filter(t -> t.bytesPerS() != null);
            rule = reader.groupSettings(group, now);
            if (advice.isPresent() && rule.isPresent()) {
                break;
            }
            Thread.sleep(200);
        }
        StringBuilder ignored = new StringBuilder();
        for (IgnoredReason r : IgnoredReason.values()) {
            ignored.append(ignored.length() == 0 ? "" : ",").append('"').append(r.name()).append("\":").append(reader.ignored(r));
        }
        List<String> racks = new ArrayList<>();
        advice.ifPresent(t -> t.partitions().forEach(p -> racks.add(p.leaderRack() == null ? "null" : "\"" + p.leaderRack() + "\"")));
        System.out.println("{\"weights\":" + advice.map(t -> Arrays.toString(t.bytesPerS())).orElse("null")
            + ",\"leader_racks\":" + racks + ",\"assignor\":" + rule.map(g -> "\"" + g.assignor() + "\"").orElse("null")
            + ",\"traffic_cost\":" + rule.map(g -> String.valueOf(g.number("traffic_cost", -1))).orElse("null")
            + ",\"ignored\":{" + ignored + "}}");
        reader.close();
        if (advice.isEmpty()) {
            System.exit(2);
        }
        // a plan built from the advice: c1 (az1) reads partition 0, c2 (az2) the others
        TopicAdvice t = advice.get();
        List<PublishedPlan.Partition> c1 = new ArrayList<>();
        List<PublishedPlan.Partition> c2 = new ArrayList<>();
        for (var p : t.partitions()) {
            String rack = p.partition() == 0 ? "az1" : "az2";
            PublishedPlan.Partition pp = new PublishedPlan.Partition(topic, p.partition(),
                p.leaderRack() == null ? List.of() : List.of(p.leaderRack()),
                p.leaderRack() != null && !p.leaderRack().equals(rack), 1.0, p.bytesPerS());
            (p.partition() == 0 ? c1 : c2).add(pp);
        }
        long now = System.currentTimeMillis();
        PublishedPlan plan = new PublishedPlan(group, new PlanGenerations().next(group, now), PlanJson.REASON,
            "rackwise", Map.of("traffic_cost", rule.map(g -> g.number("traffic_cost", 1)).orElse(1.0)), now,
            List.of(new PublishedPlan.Member("c1", "az1", c1), new PublishedPlan.Member("c2", "az2", c2)), null, 0);
        PlanPublisher publisher = new PlanPublisher(plansTopic, 10, PlanPublisher.kafkaProducers(client), 100,
            TopicProbe.kafka(client));
        publisher.start();
        publisher.offer(plan);
        deadline = System.currentTimeMillis() + 60_000;
        while (publisher.published() + publisher.failed() == 0 && System.currentTimeMillis() < deadline) {
            Thread.sleep(100);
        }
        System.out.println("{\"published\":" + publisher.published() + ",\"failed\":" + publisher.failed()
            + ",\"generation\":" + plan.generation() + "}");
        publisher.close();
    }
}
