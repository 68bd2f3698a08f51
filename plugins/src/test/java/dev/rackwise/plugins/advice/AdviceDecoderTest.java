package dev.rackwise.plugins.advice;

import static dev.rackwise.plugins.advice.AdviceRecords.T;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

class AdviceDecoderTest {
    private static Object decode(String key, String value) {
        return AdviceDecoder.decode(key, value.getBytes(StandardCharsets.UTF_8), 1 << 20);
    }

    @Test
    void readsATopicRecord() {
        TopicAdvice t = (TopicAdvice) decode("topic/orders", AdviceRecords.orders(T));
        assertEquals("orders", t.topic());
        assertEquals(T, t.measuredAtMs());
        assertEquals(new PartitionAdvice(0, 5000.0, 1, "az1"), t.partitions().get(0));
        assertEquals(new PartitionAdvice(2, 0.0, 3, null), t.partitions().get(2));
        assertArrayEquals(new double[] {5000.0, 1000.0, 0.0}, t.bytesPerS());
        TopicAdvice unmeasured = (TopicAdvice) decode("topic/t",
            AdviceRecords.topic("t", T, "{\"partition\":0,\"bytes_per_s\":null,\"leader\":null,\"leader_rack\":null}"));
        assertNull(unmeasured.bytesPerS(), "one unmeasured partition: no weights at all");
    }

    @Test
    void readsAGroupRecordAndIgnoresNewFields() {
        String value = AdviceRecords.group("orders-*", 0, "rack-optimal", T).replace("{\"schema_version\"",
            "{\"from_the_future\":[1,{\"x\":null}],\"schema_version\"");
        GroupAdvice g = (GroupAdvice) decode("group/orders-*", value);
        assertEquals(new GroupAdvice("orders-*", 0, "rack-optimal", Map.of("non_overlap_cost", 1L, "traffic_cost", 10L), T), g);
        assertEquals(10.0, g.number("traffic_cost", 1.0));
        assertEquals(1.5, g.number("missing", 1.5));
    }

    @Test
    void eachBadRecordHasItsReason() {
        String good = AdviceRecords.orders(T);
        Map<IgnoredReason, List<String[]>> cases = Map.of(
            IgnoredReason.MALFORMED, List.of(
                new String[] {"topic/orders", "not json"},
                new String[] {"topic/orders", "[1]"},
                new String[] {"topic/orders", good.replace("\"measured_at_ms\":" + T, "\"measured_at_ms\":-1")},
                new String[] {"topic/orders", good.replace("\"partition\":1,", "\"partition\":7,")},
                new String[] {"topic/orders", good.replace("5000.0", "\"fast\"")},
                new String[] {"topic/other", good}),
            IgnoredReason.UNKNOWN_SCHEMA_VERSION, List.of(
                new String[] {"topic/orders", good.replace("\"schema_version\":1", "\"schema_version\":2")},
                new String[] {"topic/orders", "{\"kind\":\"topic\"}"}),
            IgnoredReason.UNKNOWN_KIND, List.of(
                new String[] {"weather/today", good},
                new String[] {"topic/orders", good.replace("\"kind\":\"topic\"", "\"kind\":\"weather\"")}));
        for (Map.Entry<IgnoredReason, List<String[]>> e : cases.entrySet()) {
            for (String[] kv : e.getValue()) {
                AdviceFormatException ex = assertThrows(AdviceFormatException.class, () -> decode(kv[0], kv[1]), kv[1]);
                assertEquals(e.getKey(), ex.reason(), kv[1]);
            }
        }
        AdviceFormatException big = assertThrows(AdviceFormatException.class,
            () -> AdviceDecoder.decode("topic/orders", good.getBytes(StandardCharsets.UTF_8), 100));
        assertEquals(IgnoredReason.OVERSIZED, big.reason());
        AdviceFormatException notUtf8 = assertThrows(AdviceFormatException.class,
            () -> AdviceDecoder.decode("topic/orders", new byte[] {(byte) 0xff, '{'}, 100));
        assertEquals(IgnoredReason.MALFORMED, notUtf8.reason());
    }

    @Test
    void fnmatchMatchesLikePython() {
        // expected values from Python's fnmatch.fnmatchcase
        String[][] yes = {{"orders-*", "orders-eu"}, {"orders-*", "orders-"}, {"g?", "g1"}, {"g[0-9]", "g7"},
            {"g[!0-9]", "gx"}, {"a.b", "a.b"}, {"[", "["}, {"x[]]", "x]"}, {"*", ""}, {"(a)+", "(a)+"}};
        String[][] no = {{"orders-*", "order"}, {"g?", "g12"}, {"g[0-9]", "gx"}, {"g[!0-9]", "g7"},
            {"a.b", "axb"}, {"billing", "Billing"}, {"(a)+", "aa"}};
        for (String[] c : yes) {
            assertTrue(Fnmatch.compile(c[0]).matcher(c[1]).matches(), c[0] + " ~ " + c[1]);
        }
        for (String[] c : no) {
            assertFalse(Fnmatch.compile(c[0]).matcher(c[1]).matches(), c[0] + " !~ " + c[1]);
        }
    }
}
