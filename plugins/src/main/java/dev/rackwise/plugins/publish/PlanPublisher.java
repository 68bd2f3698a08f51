package dev.rackwise.plugins.publish;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes the plans a plug-in computed to {@code rackwise.plans}, off the assignment path:
 * {@link #offer} puts a plan on a bounded queue and returns at once (a full queue drops the
 * plan and counts it), and a daemon thread turns each into the plan JSON ({@link PlanJson})
 * and sends it keyed by group id. The producer's default partitioner then picks
 * {@code toPositive(murmur2(group_id)) % partitions}, the partition the plan contract names.
 *
 * <p>Counters: published (acknowledged by Kafka), dropped (queue full, or closed), failed (the
 * JSON could not be written, or the send failed). A failure never ends the thread: it closes
 * the producer, waits (1 s doubling to 60 s) and makes a new one for the next plan; the failed
 * plan is not retried, since a newer plan of the group follows at its next assignment. A
 * missing topic (no agent has created it yet) closes the producer too, with one warning that
 * says so: a producer left asking for a missing topic makes Kafka log a warning about it every
 * second. The thread then asks a {@link TopicProbe} every 5 s whether the topic exists, and
 * publishes again as soon as it does (an agent started after the brokers creates it); plans
 * offered meanwhile wait in the queue.
 *
 * <p>Example: {@code offer(plan of g1)} -> one record, key {@code g1}, value
 * {@code {"schema_version":1,"group_id":"g1","kind":"consumer","generation":...}}.
 */
public final class PlanPublisher implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(PlanPublisher.class);
    public static final int DEFAULT_CAPACITY = 1000;
    private static final long MAX_BACKOFF_MS = 60_000;
    static final long MISSING_TOPIC_RETRY_MS = 5_000;
    private static final long LOG_EVERY_NS = TimeUnit.MINUTES.toNanos(1);

    private final String topic;
    private final BlockingQueue<PublishedPlan> queue;
    private final Supplier<Producer<byte[], byte[]>> producers;
    private final long backoffMs;
    private final TopicProbe probe;
    private final long missingRetryMs;
    private final AtomicBoolean started = new AtomicBoolean();
    private final CountDownLatch stop = new CountDownLatch(1);
    private final AtomicLong published = new AtomicLong();
    private final AtomicLong dropped = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();
    private final AtomicLong lastLogNs = new AtomicLong(System.nanoTime() - LOG_EVERY_NS);
    private volatile Thread thread;
    /** Set by a send that failed because the topic does not exist; read by the thread. */
    private volatile boolean topicMissing;

    /**
     * Nothing starts here: {@link #start()} does. {@code producers} makes a producer when one is
     * needed; {@code probe} says when a missing topic exists ({@link TopicProbe#kafka}).
     */
    public PlanPublisher(String topic, int capacity, Supplier<Producer<byte[], byte[]>> producers, long backoffMs,
                         TopicProbe probe) {
        this(topic, capacity, producers, backoffMs, probe, MISSING_TOPIC_RETRY_MS);
    }

    PlanPublisher(String topic, int capacity, Supplier<Producer<byte[], byte[]>> producers, long backoffMs,
                  TopicProbe probe, long missingRetryMs) {
        if (capacity <= 0 || backoffMs <= 0 || missingRetryMs <= 0) {
            throw new IllegalArgumentException("capacity, back-off and retry interval must be positive");
        }
        this.topic = topic;
        this.queue = new ArrayBlockingQueue<>(capacity);
        this.producers = producers;
        this.backoffMs = backoffMs;
        this.probe = probe;
        this.missingRetryMs = missingRetryMs;
    }

    /** A factory of real producers: {@code clientConfigs} holds bootstrap.servers and security settings. */
    public static Supplier<Producer<byte[], byte[]>> kafkaProducers(Map<String, Object> clientConfigs) {
        return () -> {
            Map<String, Object> props = new HashMap<>(clientConfigs);
            props.putIfAbsent(ProducerConfig.CLIENT_ID_CONFIG, "rackwise-plans-" + UUID.randomUUID());
            props.put(ProducerConfig.LINGER_MS_CONFIG, 20);
            // the thread never waits long on a missing topic or broker: it counts and moves on
            props.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 10_000);
            props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 30_000);
            props.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
            return new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer());
        };
    }

    /** Starts the publishing thread once; later calls do nothing. */
    public void start() {
        if (stop.getCount() == 0 || !started.compareAndSet(false, true)) {
            return;
        }
        Thread t = new Thread(this::run, "rackwise-plan-publisher");
        t.setDaemon(true);
        thread = t;
        t.start();
    }

    /** Queues {@code plan}; false (and counted as dropped) when the queue is full or closed. Never blocks. */
    public boolean offer(PublishedPlan plan) {
        if (stop.getCount() == 0 || !queue.offer(plan)) {
            dropped.incrementAndGet();
            warn("plan publisher: queue full or closed; dropped the plan of group " + plan.groupId()
                + " (" + dropped.get() + " dropped so far)");
            return false;
        }
        return true;
    }

    /** Stops the thread, sending what is queued for up to 5 s. Idempotent. */
    @Override
    public void close() {
        stop.countDown();
        Thread t = thread;
        if (t != null && t != Thread.currentThread()) {
            try {
                t.join(10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    public long published() {
        return published.get();
    }

    public long dropped() {
        return dropped.get();
    }

    public long failed() {
        return failed.get();
    }

    public int queued() {
        return queue.size();
    }

    public boolean isRunning() {
        Thread t = thread;
        return t != null && t.isAlive();
    }

    private void run() {
        Producer<byte[], byte[]> producer = null;
        long backoff = backoffMs;
        long drainUntil = Long.MAX_VALUE;
        try {
            while (true) {
                if (stop.getCount() == 0 && drainUntil == Long.MAX_VALUE) {
                    drainUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
                }
                if (drainUntil != Long.MAX_VALUE && (queue.isEmpty() || System.nanoTime() > drainUntil)) {
                    return;
                }
                PublishedPlan plan = queue.poll(200, TimeUnit.MILLISECONDS);
                if (plan == null) {
                    continue;
                }
                byte[] value;
                try {
                    value = PlanJson.write(plan).getBytes(StandardCharsets.UTF_8);
                } catch (RuntimeException e) {  // a bad model is this plan's problem only
                    failed.incrementAndGet();
                    warn("plan publisher: cannot write the plan of group " + plan.groupId() + ": " + e);
                    continue;
                }
                try {
                    if (producer == null) {
                        producer = producers.get();
                    }
                    producer.send(new ProducerRecord<>(topic, plan.groupId().getBytes(StandardCharsets.UTF_8), value),
                        (metadata, error) -> {
                            if (error == null) {
                                published.incrementAndGet();
                            } else {
                                failed.incrementAndGet();
                                if (isMissingTopic(error)) {
                                    topicMissing = true;
                                }
                                warn("plan publisher: sending the plan of group " + plan.groupId() + " failed: " + error);
                            }
                        });
                    if (topicMissing) {
                        // A producer keeps asking for a topic it was given, and Kafka logs a
                        // warning for each answer: close it, and look for the topic quietly.
                        topicMissing = false;
                        closeQuietly(producer);
                        producer = null;
                        if (!awaitTopic()) {
                            drainUntil = System.nanoTime();  // closed while the topic was missing
                        }
                        continue;
                    }
                    backoff = backoffMs;
                } catch (RuntimeException e) {  // never let the thread die
                    failed.incrementAndGet();
                    warn("plan publisher: " + e + "; new producer in " + backoff + " ms");
                    closeQuietly(producer);
                    producer = null;
                    if (stop.await(backoff, TimeUnit.MILLISECONDS)) {
                        drainUntil = System.nanoTime();  // closing while failing: give up the rest
                    }
                    backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            closeQuietly(producer);
            int left = queue.size();
            queue.clear();
            if (left > 0) {
                dropped.addAndGet(left);
            }
        }
    }

    /**
     * After a send found the topic missing: one warning, then the probe every
     * {@code missingRetryMs} until the topic exists (true) or the publisher closes (false).
     */
    private boolean awaitTopic() throws InterruptedException {
        log.warn("plan publisher: topic {} does not exist, so plans are not published (an agent creates it at "
            + "start-up, or create it yourself); looking for it every {} ms, plans wait in the queue meanwhile",
            topic, missingRetryMs);
        try {
            while (!stop.await(missingRetryMs, TimeUnit.MILLISECONDS)) {
                if (probe.exists(topic)) {
                    log.info("plan publisher: topic {} exists now; publishing {} queued plans", topic, queue.size());
                    return true;
                }
            }
            return false;
        } finally {
            probe.close();
        }
    }

    /** Whether a send failed because the topic is missing (the producer waited max.block.ms for
     *  its metadata, or the broker said so). */
    static boolean isMissingTopic(Throwable error) {
        if (error instanceof UnknownTopicOrPartitionException) {
            return true;
        }
        String message = error.getMessage();
        return error instanceof TimeoutException && message != null && message.contains("not present in metadata");
    }

    private static void closeQuietly(Producer<byte[], byte[]> producer) {
        if (producer == null) {
            return;
        }
        try {
            producer.close(Duration.ofSeconds(5));
        } catch (RuntimeException e) {
            log.debug("plan publisher: closing the producer failed", e);
        }
    }

    private void warn(String message) {
        long now = System.nanoTime();
        long before = lastLogNs.get();
        if (now - before >= LOG_EVERY_NS && lastLogNs.compareAndSet(before, now)) {
            log.warn(message);
        }
    }
}
