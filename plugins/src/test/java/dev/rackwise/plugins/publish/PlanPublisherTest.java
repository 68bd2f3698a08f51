package dev.rackwise.plugins.publish;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

class PlanPublisherTest {
    private static MockProducer<byte[], byte[]> producer(boolean autoComplete) {
        return new MockProducer<>(autoComplete, null, new ByteArraySerializer(), new ByteArraySerializer());
    }

    private static PublishedPlan plan(String group, long generation) {
        return new PublishedPlan(group, generation, PlanJson.REASON, "rackwise", Map.of(), 0, List.of(), null, 0);
    }

    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        // a bound for a hung test only; nothing asserts how long this takes
        for (int i = 0; i < 3000 && !condition.getAsBoolean(); i++) {
            Thread.sleep(10);
        }
        assertTrue(condition.getAsBoolean(), what);
    }

    @Test
    void publishesEachPlanKeyedByGroup() throws InterruptedException {
        MockProducer<byte[], byte[]> mock = producer(true);
        AtomicInteger made = new AtomicInteger();
        PlanPublisher p = new PlanPublisher("rackwise.plans", 10, () -> {
            made.incrementAndGet();
            return mock;
        }, 1, topic -> true);
        assertEquals(0, made.get(), "the constructor starts nothing");
        p.start();
        p.start();
        assertTrue(p.offer(plan("g1", 5)));
        assertTrue(p.offer(plan("g2", 6)));
        await(() -> p.published() == 2, "two plans published");
        List<ProducerRecord<byte[], byte[]>> sent = mock.history();
        assertEquals("rackwise.plans", sent.get(0).topic());
        assertArrayEquals("g1".getBytes(StandardCharsets.UTF_8), sent.get(0).key());
        assertEquals(PlanJson.write(plan("g1", 5)), new String(sent.get(0).value(), StandardCharsets.UTF_8));
        assertEquals(null, sent.get(0).partition(), "the default partitioner picks murmur2(group id)");
        assertEquals(1, made.get());
        p.close();
        assertFalse(p.isRunning());
        assertTrue(mock.closed());
        assertFalse(p.offer(plan("g3", 1)), "closed: dropped");
        assertEquals(1, p.dropped());
    }

    @Test
    void aFullQueueDropsAndCountsWithoutBlocking() {
        PlanPublisher p = new PlanPublisher("rackwise.plans", 3, () -> producer(true), 1, topic -> true);  // not started
        for (int i = 0; i < 5; i++) {
            p.offer(plan("g", i));
        }
        assertEquals(3, p.queued());
        assertEquals(2, p.dropped());
        p.close();
        assertEquals(0, p.published());
    }

    @Test
    void failuresAreCountedAndTheThreadCarriesOn() throws InterruptedException {
        List<MockProducer<byte[], byte[]>> made = new ArrayList<>();
        AtomicInteger attempts = new AtomicInteger();
        PlanPublisher p = new PlanPublisher("rackwise.plans", 10, () -> {
            if (attempts.incrementAndGet() == 1) {
                throw new KafkaException("no broker");  // the first producer cannot be made
            }
            MockProducer<byte[], byte[]> m = producer(false);
            made.add(m);
            return m;
        }, 1, topic -> true);
        p.start();
        p.offer(plan("g1", 1));  // lost: no producer
        await(() -> p.failed() == 1, "a failed producer is counted");
        p.offer(plan("g1", 2));
        await(() -> made.size() == 1 && made.get(0).history().size() == 1, "the next plan is sent");
        made.get(0).errorNext(new KafkaException("not leader"));  // the broker refuses it
        p.offer(plan("g1", 3));
        await(() -> made.get(0).history().size() == 2, "and the one after");
        made.get(0).completeNext();
        await(() -> p.failed() == 2 && p.published() == 1, "a refused send is counted, an acknowledged one too");
        assertTrue(p.isRunning());
        p.close();
    }

    /** What KafkaProducer.send does for a topic missing from the metadata: the callback gets a
     *  TimeoutException at once, and the producer keeps the topic in its metadata requests. */
    private static final class NoTopicProducer extends MockProducer<byte[], byte[]> {
        final AtomicInteger sends = new AtomicInteger();

        NoTopicProducer() {
            super(true, null, new ByteArraySerializer(), new ByteArraySerializer());
        }

        @Override
        public synchronized java.util.concurrent.Future<org.apache.kafka.clients.producer.RecordMetadata> send(
                ProducerRecord<byte[], byte[]> record, org.apache.kafka.clients.producer.Callback callback) {
            sends.incrementAndGet();
            org.apache.kafka.common.errors.TimeoutException e = new org.apache.kafka.common.errors.TimeoutException(
                "Topic " + record.topic() + " not present in metadata after 10 ms.");
            callback.onCompletion(null, e);
            return java.util.concurrent.CompletableFuture.failedFuture(e);
        }
    }

    @Test
    void aMissingTopicClosesTheProducerAndWaitsForTheProbe() throws InterruptedException {
        List<MockProducer<byte[], byte[]>> made = new ArrayList<>();
        AtomicBoolean exists = new AtomicBoolean(false);
        AtomicInteger asked = new AtomicInteger();
        AtomicInteger probesClosed = new AtomicInteger();
        TopicProbe probe = new TopicProbe() {
            @Override
            public boolean exists(String topic) {
                asked.incrementAndGet();
                return exists.get();
            }

            @Override
            public void close() {
                probesClosed.incrementAndGet();
            }
        };
        PlanPublisher p = new PlanPublisher("rackwise.plans", 100, () -> {
            MockProducer<byte[], byte[]> np = made.isEmpty() ? new NoTopicProducer() : producer(true);
            made.add(np);
            return np;
        }, 200, probe, 20);
        p.start();
        for (int i = 0; i < 20; i++) {
            p.offer(plan("g" + i, i));
        }
        await(() -> asked.get() >= 5, "the probe is asked while the topic is missing");
        assertEquals(1, made.size(), "no new producer while the probe says the topic is missing");
        assertTrue(made.get(0).closed(), "the producer that asked for the missing topic is closed");
        assertEquals(1, ((NoTopicProducer) made.get(0)).sends.get(),
            "no more plans go to a producer once the topic is known missing");
        assertEquals(1, p.failed());
        assertEquals(0, p.published());
        assertEquals(19, p.queued(), "the other plans wait in the queue");

        exists.set(true);  // an agent created the topic
        await(() -> p.published() == 19, "the queued plans are published once the topic exists");
        assertEquals(2, made.size());
        assertEquals(1, probesClosed.get(), "the probe's client is released once the topic is found");
        assertEquals(0, p.dropped());
        assertTrue(PlanPublisher.isMissingTopic(new org.apache.kafka.common.errors.UnknownTopicOrPartitionException("x")));
        assertFalse(PlanPublisher.isMissingTopic(new org.apache.kafka.common.errors.TimeoutException("Expiring 1 record(s)")));
        p.close();
    }

    @Test
    void closingWhileTheTopicIsMissingEndsTheThread() throws InterruptedException {
        PlanPublisher p = new PlanPublisher("rackwise.plans", 10, NoTopicProducer::new, 200, topic -> false, 20);
        p.start();
        p.offer(plan("g", 1));
        await(() -> p.failed() == 1, "the send finds the topic missing");
        p.close();
        assertFalse(p.isRunning());
    }
}
