package dev.rackwise.plugins.streams;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;

import dev.rackwise.plugins.plan.PlanFormatException;
import org.apache.kafka.streams.processor.TaskId;
import org.junit.jupiter.api.Test;

class StreamsPlanReaderTest {
    @Test
    void readsTheFieldsItNeedsAndIgnoresTheRest() {
        StreamsPlan p = StreamsPlanReader.read("{\"schema_version\":1,\"group_id\":\"app\",\"kind\":\"streams\","
            + "\"generation\":3,\"new_field\":{\"x\":[1.5,true]},\"members\":[{\"member_id\":\"m\",\"process_id\":\"p1\","
            + "\"partitions\":[{\"topic\":\"t\",\"partition\":0,\"replica_racks\":[],\"cross_rack\":false}],"
            + "\"active_tasks\":[\"0_0\",\"12_345\"],\"standby_tasks\":[\"1_0\"],\"warmup_tasks\":[]},"
            + "{\"member_id\":\"p2\"}],\"followup_ms\":null}");
        assertEquals("app", p.groupId());
        assertEquals(3, p.generation());
        assertEquals(List.of(new TaskId(0, 0), new TaskId(12, 345)), p.processes().get("p1").active());
        assertEquals(List.of(new TaskId(1, 0)), p.processes().get("p1").standby());
        assertEquals(List.of(), p.processes().get("p2").active());
        assertNull(p.followupMs());
    }

    @Test
    void aReasonItDoesNotKnowIsNoReasonToRefuseAPlan() {
        for (String reason : List.of("assigned", "some-reason-of-2030")) {
            StreamsPlan p = StreamsPlanReader.read("{\"schema_version\":1,\"group_id\":\"app\",\"kind\":\"streams\","
                + "\"generation\":4,\"reason\":\"" + reason + "\",\"members\":[{\"member_id\":\"m\","
                + "\"process_id\":\"p1\",\"active_tasks\":[\"0_1\"]}],\"followup_ms\":null}");
            assertEquals(4, p.generation());
            assertEquals(List.of(new TaskId(0, 1)), p.processes().get("p1").active());
        }
    }

    @Test
    void rejectsMalformedPlans() {
        for (String bad : List.of("", "[]", "{\"group_id\":1}", "{\"group_id\":\"a\",\"generation\":1}",
            "{\"group_id\":\"a\",\"generation\":1,\"members\":[{\"process_id\":\"p\",\"active_tasks\":[\"0-1\"]}]}",
            "{\"group_id\":\"a\",\"generation\":1,\"members\":[{\"process_id\":\"p\",\"active_tasks\":[\"0_-1\"]}]}",
            "{\"group_id\":\"a\",\"generation\":1,\"members\":[{\"process_id\":\"p\"},{\"process_id\":\"p\"}]}",
            "{\"group_id\":\"a\",\"generation\":1,\"members\":[],\"followup_ms\":\"soon\"}")) {
            assertThrows(PlanFormatException.class, () -> StreamsPlanReader.read(bad), bad);
        }
    }
}
