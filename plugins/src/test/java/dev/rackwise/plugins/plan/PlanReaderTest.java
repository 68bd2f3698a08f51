package dev.rackwise.plugins.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class PlanReaderTest {
    /** A plan as protocol/plan.py's AssignmentPlan.to_json writes it (fields the reader ignores included). */
    static final String PLAN = "{\"schema_version\":1,\"group_id\":\"g1\",\"kind\":\"consumer\",\"generation\":7,"
        + "\"reason\":\"member-joined\",\"assignor\":\"rack-optimal\",\"config\":{\"a\":[1,2.5,true,null]},"
        + "\"created_at\":\"2026-07-01T10:00:00.000Z\",\"members\":[{\"member_id\":\"c1\",\"rack\":\"az1\","
        + "\"partitions\":[{\"topic\":\"orders\",\"partition\":0,\"replica_racks\":[\"az1\",\"az2\"],"
        + "\"cross_rack\":false,\"weight\":1.0}],\"process_id\":null,\"active_tasks\":[],\"standby_tasks\":[],"
        + "\"warmup_tasks\":[]},{\"member_id\":\"c\\u00fc2\",\"rack\":null,\"partitions\":[]}],"
        + "\"withheld\":[{\"topic\":\"orders\",\"partition\":1,\"owner\":\"c1\",\"target\":\"c\\u00fc2\"}],"
        + "\"followup_ms\":null,\"summary\":{\"partitions\":2,\"cross_rack_partitions\":0,\"traffic_cost\":0.0,"
        + "\"lower_bound\":null,\"max_load\":1,\"min_load\":0,\"moved_partitions\":0,\"standby_rack_diversity\":null}}";

    @Test
    void readsWhatPluginsUse() {
        Plan plan = PlanReader.read(PLAN.getBytes(StandardCharsets.UTF_8));
        assertEquals("g1", plan.groupId());
        assertEquals("consumer", plan.kind());
        assertEquals(7, plan.generation());
        assertEquals(Map.of("c1", List.of(new TopicPartition("orders", 0)), "c\u00fc2", List.of()), plan.members());
        assertEquals(List.of(new TopicPartition("orders", 1)), plan.withheld());
        assertNull(plan.followupMs());
        assertEquals(1, plan.assignedCount());
    }

    @Test
    void aReasonItDoesNotKnowIsNoReasonToRefuseAPlan() {
        // A newer writer's reason (or a plug-in's "assigned") must never stop a follower.
        for (String reason : List.of("assigned", "some-reason-of-2030")) {
            Plan plan = PlanReader.read(PLAN.replace("\"member-joined\"", "\"" + reason + "\""));
            assertEquals(7, plan.generation());
            assertEquals(1, plan.assignedCount());
        }
    }

    @Test
    void followupIsRead() {
        Plan plan = PlanReader.read("{\"group_id\":\"g\",\"generation\":1,\"members\":[],\"followup_ms\":3000}");
        assertEquals(3000L, plan.followupMs());
    }

    @Test
    void rejectsWhatIsNotAPlan() {
        for (String bad : List.of("", "{", "[]", "{\"group_id\":1}", "{\"group_id\":\"g\",\"generation\":1}",
                "{\"group_id\":\"g\",\"generation\":1.5,\"members\":[]}",
                "{\"group_id\":\"g\",\"generation\":1,\"members\":[{\"member_id\":\"a\",\"partitions\":[{\"topic\":\"t\"}]}]}",
                "{\"group_id\":\"g\",\"generation\":1,\"members\":[{\"member_id\":\"a\"},{\"member_id\":\"a\"}]}",
                "{\"group_id\":\"g\",\"generation\":1,\"members\":[]} x",
                "{\"group_id\":\"g\",\"generation\":1,\"members\":[{\"member_id\":\"a\",\"partitions\":[{\"topic\":\"t\",\"partition\":-1}]}]}")) {
            assertThrows(PlanFormatException.class, () -> PlanReader.read(bad), bad);
        }
        assertThrows(PlanFormatException.class, () -> PlanReader.read(new byte[] {(byte) 0xff}));
        assertThrows(PlanFormatException.class, () -> PlanReader.read((byte[]) null));
    }

    @Test
    void jsonHandlesEscapesAndDepth() {
        assertEquals("a\"\\/\b\f\n\r\t\u00e9\ud83d\ude00", Json.parse("\"a\\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\\ud83d\\ude00\""));
        assertEquals(List.of(-1L, 2.5e3, Boolean.FALSE), Json.parse(" [ -1 , 2.5e3 , false ] "));
        assertTrue(assertThrows(PlanFormatException.class, () -> Json.parse("[".repeat(100))).getMessage()
            .contains("nested"));
        assertThrows(PlanFormatException.class, () -> Json.parse("\"\u0001\""));
        assertThrows(PlanFormatException.class, () -> Json.parse("{\"a\" 1}"));
    }
}
