package dev.rackwise.plugins.advice;

import static dev.rackwise.plugins.advice.AdviceRecords.T;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

import dev.rackwise.plugins.config.AdviceConfig;

class HeldAdviceTest {
    private static final String TOPIC = "rackwise.advice";
    private static final AdviceConfig CONFIG = new AdviceConfig(TOPIC, 1 << 20, 60_000, 10, 1);

    private static ConsumerRecords<byte[], byte[]> batch(String... keyValues) {
        List<ConsumerRecord<byte[], byte[]>> records = new java.util.ArrayList<>();
        for (int i = 0; i < keyValues.length; i += 2) {
            records.add(new ConsumerRecord<>(TOPIC, 0, i, keyValues[i].getBytes(StandardCharsets.UTF_8),
                keyValues[i + 1] == null ? null : keyValues[i + 1].getBytes(StandardCharsets.UTF_8)));
        }
        return new ConsumerRecords<>(Map.of(new TopicPartition(TOPIC, 0), records), Map.of());
    }

    @Test
    void weightsAreTheAgentsOwnMeanOneFlooredAtOneThousandth() {
        AdviceReader r = new AdviceReader(CONFIG, () -> {
            throw new AssertionError("not started");
        });
        // orders: 5000, 1000, 0 B/s -> mean 2000: weights 2.5, 0.5 and the floor 0.001
        r.apply(batch("topic/orders", AdviceRecords.orders(T)));
        AtomicLong now = new AtomicLong(T + 1000);
        HeldAdvice held = new HeldAdvice(r, now::get);
        assertEquals(2.5, held.weight("orders", 0));
        assertEquals(0.5, held.weight("orders", 1));
        assertEquals(0.001, held.weight("orders", 2));
        assertEquals(1.0, held.weight("orders", 9));   // not measured
        assertEquals(1.0, held.weight("other", 0));    // no advice at all
        assertEquals("az1", held.leaderRack("orders", 0));
        assertNull(held.leaderRack("orders", 2));
        assertEquals(5000.0, held.bytesPerSecond("orders", 0));
        assertTrue(held.measured());
        assertEquals(1000, held.ageMs());
        // the same advice 61 s later is stale: counts only, leaders unknown, measured nothing
        now.set(T + 61_000);
        assertEquals(1.0, held.weight("orders", 0));
        assertNull(held.leaderRack("orders", 0));
        assertFalse(held.measured());
        assertTrue(r.ignored(IgnoredReason.STALE) > 0);
    }

    @Test
    void aGroupRuleGivesItsCostsAndDefaultsOtherwise() {
        AdviceReader r = new AdviceReader(CONFIG, () -> {
            throw new AssertionError("not started");
        });
        String rule = "{\"schema_version\":1,\"kind\":\"group\",\"pattern\":\"orders-*\",\"priority\":0,"
            + "\"assignor\":\"rack-optimal\",\"config\":{\"non_overlap_cost\":0,\"traffic_cost\":3.5},"
            + "\"updated_at\":\"2026-11-25T00:40:00.000Z\",\"updated_at_ms\":" + T + "}";
        r.apply(batch("group/orders-*", rule));
        HeldAdvice held = new HeldAdvice(r, () -> T);
        assertEquals(new GroupCosts(3.5, 0.0), held.costs("orders-eu"));
        assertEquals(GroupCosts.DEFAULT, held.costs("billing"));
    }
}
