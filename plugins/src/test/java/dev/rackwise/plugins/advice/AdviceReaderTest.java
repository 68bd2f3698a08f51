package dev.rackwise.plugins.advice;

import static dev.rackwise.plugins.advice.AdviceRecords.T;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

import dev.rackwise.plugins.config.AdviceConfig;

class AdviceReaderTest {
    private static final String TOPIC = "rackwise.advice";
    private static final AdviceConfig CONFIG = new AdviceConfig(TOPIC, 1 << 20, 60_000, 10, 1);
    private static final TopicPartition P0 = new TopicPartition(TOPIC, 0);

    private static ConsumerRecord<byte[], byte[]> record(long offset, String key, String value) {
        return new ConsumerRecord<>(TOPIC, 0, offset, key == null ? null : key.getBytes(StandardCharsets.UTF_8),
            value == null ? null : value.getBytes(StandardCharsets.UTF_8));
    }

    @SafeVarargs
    private static ConsumerRecords<byte[], byte[]> batch(ConsumerRecord<byte[], byte[]>... records) {
        return new ConsumerRecords<>(Map.of(P0, List.of(records)), Map.of());
    }

    private static AdviceReader reader() {
        return new AdviceReader(CONFIG, () -> {
            throw new AssertionError("not started");
        });
    }

    @Test
    void keepsTheLatestRecordPerKeyAndTombstonesDelete() {
        AdviceReader r = reader();
        r.apply(batch(record(0, "topic/orders", AdviceRecords.orders(T)),
            record(1, "group/orders-*", AdviceRecords.group("orders-*", 0, "rack-optimal", T)),
            record(2, "topic/orders", AdviceRecords.orders(T + 5)),
            record(3, "topic/gone", AdviceRecords.topic("gone", T, "")),
            record(4, "topic/gone", null)));
        AdviceSnapshot s = r.snapshot();
        assertEquals(List.of("orders"), List.copyOf(s.topics().keySet()));
        assertEquals(T + 5, s.topics().get("orders").measuredAtMs());
        assertArrayEquals(new double[] {5000.0, 1000.0, 0.0}, r.weightsFor("orders", T + 10).orElseThrow());
        assertEquals("rack-optimal", r.groupSettings("orders-eu", T).orElseThrow().assignor());
        r.apply(batch(record(5, "group/orders-*", null)));
        assertTrue(r.groupSettings("orders-eu", T).isEmpty());
        assertEquals(6, r.applied());
    }

    @Test
    void garbageChangesNothingAndIsCountedByReason() {
        AdviceReader r = reader();
        r.apply(batch(record(0, "topic/orders", AdviceRecords.orders(T))));
        AdviceSnapshot before = r.snapshot();
        String big = AdviceRecords.topic("orders", T, "{\"partition\":0,\"bytes_per_s\":1.0,\"leader\":1,"
            + "\"leader_rack\":\"" + "x".repeat(CONFIG.maxRecordBytes()) + "\"}");
        r.apply(batch(record(1, "topic/orders", "{not json"),
            record(2, null, AdviceRecords.orders(T)),
            record(3, "topic/orders", AdviceRecords.orders(T).replace("\"schema_version\":1", "\"schema_version\":9")),
            record(4, "weather/today", "{}"),
            record(5, "topic/orders", big)));
        assertEquals(before.topics(), r.snapshot().topics());
        assertArrayEquals(new double[] {5000.0, 1000.0, 0.0}, r.weightsFor("orders", T).orElseThrow());
        assertEquals(2, r.ignored(IgnoredReason.MALFORMED));
        assertEquals(1, r.ignored(IgnoredReason.UNKNOWN_SCHEMA_VERSION));
        assertEquals(1, r.ignored(IgnoredReason.UNKNOWN_KIND));
        assertEquals(1, r.ignored(IgnoredReason.OVERSIZED));
    }

    @Test
    void staleAdviceIsNotUsedAndCounted() {
        AdviceReader r = reader();
        r.apply(batch(record(0, "topic/orders", AdviceRecords.orders(T)),
            record(1, "group/orders-*", AdviceRecords.group("orders-*", 0, "rack-optimal", T)),
            record(2, "group/*", AdviceRecords.group("*", 1, "range", T + 30_000))));
        assertTrue(r.weightsFor("orders", T + CONFIG.maxAgeMs()).isPresent());
        assertTrue(r.weightsFor("orders", T + CONFIG.maxAgeMs() + 1).isEmpty());
        assertTrue(r.weightsFor("unknown", T).isEmpty());
        assertEquals(1, r.ignored(IgnoredReason.STALE));
        // the winning rule is stale: the next matching one (still fresh) is used
        assertEquals("rack-optimal", r.groupSettings("orders-eu", T + 1).orElseThrow().assignor());
        assertEquals("range", r.groupSettings("orders-eu", T + CONFIG.maxAgeMs() + 1).orElseThrow().assignor());
        assertEquals("range", r.groupSettings("billing", T).orElseThrow().assignor());
        assertTrue(r.groupSettings("billing", T + 30_000 + CONFIG.maxAgeMs() + 1).isEmpty());
        assertEquals(T + 30_000, r.newestAdviceMs());
        // the snapshot keeps stale entries: only their use is refused
        assertEquals(2, r.snapshot().groups().size());
    }

    @Test
    void groupRulesMatchInPriorityOrder() {
        AdviceReader r = reader();
        r.apply(batch(record(0, "group/*", AdviceRecords.group("*", 2, "range", T)),
            record(1, "group/orders-eu", AdviceRecords.group("orders-eu", 0, "rack-optimal", T)),
            record(2, "group/orders-*", AdviceRecords.group("orders-*", 1, "uniform", T))));
        assertEquals(List.of("orders-eu", "orders-*", "*"),
            r.snapshot().matching("orders-eu").stream().map(GroupAdvice::pattern).toList());
        assertEquals("uniform", r.groupSettings("orders-us", T).orElseThrow().assignor());
        assertEquals("range", r.groupSettings("billing", T).orElseThrow().assignor());
    }

    @Test
    void theConstructorStartsNothing() {
        AtomicInteger made = new AtomicInteger();
        AdviceReader r = new AdviceReader(CONFIG, () -> {
            made.incrementAndGet();
            return new MockConsumer<>("earliest");
        });
        assertEquals(0, made.get());
        assertFalse(r.isRunning());
        assertSame(AdviceSnapshot.EMPTY, r.snapshot());
        r.close();  // closing an unstarted reader is fine, and it never starts afterwards
        r.start();
        assertFalse(r.isRunning());
        assertEquals(0, made.get());
    }

    /** A consumer whose topic has one partition and whose polls deliver {@code records} once. */
    private static MockConsumer<byte[], byte[]> consumer(List<ConsumerRecord<byte[], byte[]>> records) {
        MockConsumer<byte[], byte[]> c = new MockConsumer<>("earliest");
        c.updatePartitions(TOPIC, List.of(new PartitionInfo(TOPIC, 0, null, null, null)));
        c.updateBeginningOffsets(Map.of(P0, 0L));
        c.schedulePollTask(() -> records.forEach(c::addRecord));
        return c;
    }

    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        // a bound for a hung test only; nothing asserts how long this takes
        for (int i = 0; i < 3000 && !condition.getAsBoolean(); i++) {
            Thread.sleep(10);
        }
        assertTrue(condition.getAsBoolean(), what);
    }

    @Test
    void theThreadWaitsForTheTopicReadsFromTheBeginningAndRetriesForever() throws InterruptedException {
        List<MockConsumer<byte[], byte[]>> made = new ArrayList<>();
        List<Consumer<byte[], byte[]>> script = new ArrayList<>();
        // 1: the topic does not exist at first (the same consumer asks again), then polling
        // fails; 2: reads a record
        java.util.concurrent.atomic.AtomicInteger asked = new java.util.concurrent.atomic.AtomicInteger();
        MockConsumer<byte[], byte[]> failing = new MockConsumer<>("earliest") {
            @Override
            public synchronized List<PartitionInfo> partitionsFor(String topic) {
                return asked.incrementAndGet() == 1 ? List.of() : super.partitionsFor(topic);
            }
        };
        failing.updatePartitions(TOPIC, List.of(new PartitionInfo(TOPIC, 0, null, null, null)));
        failing.updateBeginningOffsets(Map.of(P0, 0L));
        failing.setPollException(new KafkaException("broker went away"));
        MockConsumer<byte[], byte[]> good = consumer(List.of(record(0, "topic/orders", AdviceRecords.orders(T))));
        script.add(failing);
        script.add(good);
        AdviceReader r = new AdviceReader(CONFIG, () -> {
            if (script.isEmpty()) {
                throw new IllegalStateException("no more consumers in this test");
            }
            @SuppressWarnings("unchecked")
            MockConsumer<byte[], byte[]> c = (MockConsumer<byte[], byte[]>) script.remove(0);
            made.add(c);
            return c;
        });
        r.start();
        r.start();  // idempotent: one thread
        await(() -> r.weightsFor("orders", T).isPresent(), "advice read after a missing topic and a failure");
        assertEquals(2, asked.get());  // the missing topic was asked for again on the same consumer
        assertEquals(1, r.failures());
        assertTrue(failing.closed());
        assertEquals(java.util.Set.of(P0), good.assignment());
        assertTrue(r.isRunning());
        r.close();
        await(() -> !r.isRunning(), "the thread ends on close");
        assertTrue(good.closed());
        assertEquals(2, made.size());
    }
}
