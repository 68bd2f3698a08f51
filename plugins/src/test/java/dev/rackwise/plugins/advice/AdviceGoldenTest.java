package dev.rackwise.plugins.advice;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import org.junit.jupiter.api.Test;

/** Decodes the records the agent writes (src/test/resources/advice/, kept current by tests/unit/agent/test_advice.py). */
class AdviceGoldenTest {
    static final Path GOLDEN = Path.of("src/test/resources/advice");

    private static Object decode(String key, String file) throws IOException {
        return AdviceDecoder.decode(key, Files.readAllBytes(GOLDEN.resolve(file)), 1 << 20);
    }

    @Test
    void decodesTheAgentsTopicRecord() throws IOException {
        TopicAdvice t = (TopicAdvice) decode("topic/orders", "topic-orders.json");
        assertEquals(1_795_567_200_000L, t.measuredAtMs());
        assertEquals(new PartitionAdvice(0, 5000.0, 1, "az1"), t.partitions().get(0));
        assertEquals(new PartitionAdvice(1, 1234.567, 2, "az2"), t.partitions().get(1));
        assertEquals(new PartitionAdvice(2, null, null, null), t.partitions().get(2));
        assertNull(t.bytesPerS(), "partition 2 is not measured");
    }

    @Test
    void decodesTheAgentsGroupRecord() throws IOException {
        GroupAdvice g = (GroupAdvice) decode("group/orders-[!x]*", "group-orders.json");
        assertEquals(new GroupAdvice("orders-[!x]*", 0, "rack-optimal",
            Map.of("non_overlap_cost", 1.5, "note", "\u00e9\"", "traffic_cost", 10L), 1_795_567_200_000L), g);
        AdviceSnapshot s = new AdviceSnapshot(Map.of(), Map.of(g.pattern(), g));
        assertTrue(s.matching("orders-eu").contains(g));
        assertTrue(s.matching("orders-x1").isEmpty());
    }
}
