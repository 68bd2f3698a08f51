package dev.rackwise.plugins.publish;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import dev.rackwise.plugins.plan.Json;
import dev.rackwise.plugins.publish.PublishedPlan.Member;
import dev.rackwise.plugins.publish.PublishedPlan.Partition;
import org.junit.jupiter.api.Test;

/**
 * PlanJson against golden files built by hand (src/test/resources/publish/), which
 * tests/unit/protocol/test_plugin_plan_json.py validates with protocol.plan.AssignmentPlan.
 */
class PlanJsonTest {
    static final Path GOLDEN = Path.of("src/test/resources/publish");
    static final long T = 1_795_567_200_000L;  // 2026-11-25T00:40:00Z

    static PublishedPlan measured() {
        Map<String, Object> config = new LinkedHashMap<>();
        config.put("traffic_cost", 10);
        config.put("non_overlap_cost", 1.5);
        return new PublishedPlan("orders-app", T, PlanJson.REASON, "rackwise", config, T, List.of(
            new Member("c1", "az1", List.of(
                new Partition("orders", 0, List.of("az2", "az1"), false, 1.5, 3000.0),
                new Partition("orders", 2, List.of("az3", "az3"), true, 0.5, 1000.0))),
            new Member("c2", null, List.of(new Partition("orders", 1, List.of("az2"), false, 1.0, 2000.0))),
            new Member("c\"3\u00e9", "az2", List.of())), 0.5, 1);
    }

    static PublishedPlan unmeasured() {
        return new PublishedPlan("g1", 7, PlanJson.REASON, "rackwise", Map.of(), 7, List.of(
            new Member("m1", "az1", List.of(new Partition("t", 0, List.of("az1"), false, 1.0, null),
                new Partition("t", 1, List.of(), false, 1.0, null)))), null, 0);
    }

    private static String golden(String name) throws IOException {
        return Files.readString(GOLDEN.resolve(name), StandardCharsets.UTF_8).strip();
    }

    @Test
    void writesTheGoldenPlans() throws IOException {
        assertEquals(golden("plugin-plan-measured.json"), PlanJson.write(measured()));
        assertEquals(golden("plugin-plan-unmeasured.json"), PlanJson.write(unmeasured()));
    }

    @Test
    void aWithheldPartitionIsWrittenWithItsOwnerAndTarget() {
        PublishedPlan p = unmeasured();
        String json = PlanJson.write(new PublishedPlan(p.groupId(), p.generation(), p.reason(), p.assignor(),
            p.config(), p.createdAtMs(), p.members(), p.lowerBound(), p.movedPartitions(),
            List.of(new PublishedPlan.Withheld("orders", 7, "c1", "c2"))));
        @SuppressWarnings("unchecked")
        Map<String, Object> doc = (Map<String, Object>) Json.parse(json);
        assertEquals(List.of(Map.of("topic", "orders", "partition", 7L, "owner", "c1", "target", "c2")),
            doc.get("withheld"));
        assertEquals(p.groupId(), doc.get("group_id"));
    }

    @Test
    void oneUnmeasuredPartitionLeavesOutEveryByteFigure() {
        PublishedPlan p = measured();
        List<Member> members = new ArrayList<>(p.members());
        members.set(1, new Member("c2", null, List.of(new Partition("orders", 1, List.of("az2"), false, 1.0, null))));
        String json = PlanJson.write(new PublishedPlan(p.groupId(), p.generation(), p.reason(), p.assignor(),
            p.config(), p.createdAtMs(), members, p.lowerBound(), p.movedPartitions()));
        assertTrue(!json.contains("bytes_per_s") && !json.contains("rack_unknown_members"), json);
    }

    @Test
    void badModelsAreRefusedWhenBuilt() {
        assertThrows(IllegalArgumentException.class, () -> new Partition("t", -1, List.of(), false, 1.0, null));
        assertThrows(IllegalArgumentException.class, () -> new Partition("t", 0, List.of(), false, Double.NaN, null));
        assertThrows(IllegalArgumentException.class, () -> new Partition("t", 0, List.of(), false, 1.0, -2.0));
        assertThrows(IllegalArgumentException.class,
            () -> new PublishedPlan("g", 1, "", "rackwise", Map.of(), 0, List.of(), null, 0));
    }

    /**
     * Random plans (seeded; the seed is printed) written to target/plugin-plans/ for
     * tests/unit/protocol/test_plugin_plan_json.py, and checked here to parse and to add up.
     */
    @Test
    void randomPlansAreValidJson() throws IOException {
        long seed = Long.getLong("rackwise.seed", System.nanoTime());
        System.out.println("PlanJsonTest seed " + seed + " (-Drackwise.seed=" + seed + " repeats it)");
        Random random = new Random(seed);
        Path out = Path.of("target/plugin-plans");
        Files.createDirectories(out);
        String[] racks = {"az1", "az2", "az3", null};
        for (int n = 0; n < 20; n++) {
            List<Member> members = new ArrayList<>();
            int total = 0;
            int cross = 0;
            boolean measured = random.nextBoolean();
            for (int m = 0; m < 1 + random.nextInt(5); m++) {
                String rack = racks[random.nextInt(racks.length)];
                List<Partition> parts = new ArrayList<>();
                for (int p = 0; p < random.nextInt(6); p++) {
                    boolean c = rack != null && random.nextBoolean();
                    cross += c ? 1 : 0;
                    parts.add(new Partition("t" + random.nextInt(3), total++, List.of(racks[random.nextInt(3)]), c,
                        random.nextDouble() * 3, measured ? random.nextDouble() * 1e7 : null));
                }
                members.add(new Member("m" + m + "\u0001\\", rack, parts));
            }
            PublishedPlan plan = new PublishedPlan("g" + n, Math.abs(random.nextLong() >> 1), PlanJson.REASON,
                "rackwise", Map.of("k", List.of(1, "x", true)), Math.abs(random.nextLong() >> 24),
                members, random.nextBoolean() ? null : random.nextDouble(), random.nextInt(10));
            String json = PlanJson.write(plan);
            @SuppressWarnings("unchecked")
            Map<String, Object> doc = (Map<String, Object>) Json.parse(json);
            @SuppressWarnings("unchecked")
            Map<String, Object> summary = (Map<String, Object>) doc.get("summary");
            assertEquals((long) total, summary.get("partitions"), json);
            assertEquals((long) cross, summary.get("cross_rack_partitions"), json);
            Files.writeString(out.resolve("plan-" + n + ".json"), json, StandardCharsets.UTF_8);
        }
    }
}
