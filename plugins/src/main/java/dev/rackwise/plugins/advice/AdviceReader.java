package dev.rackwise.plugins.advice;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.rackwise.plugins.config.AdviceConfig;

/**
 * Reads the agent's advice topic on a daemon thread and holds the latest record per key as an
 * immutable {@link AdviceSnapshot} (docs/architecture.md § Advice). Reading it never blocks and
 * never throws: {@code assign()} asks {@link #weightsFor} or {@link #groupSettings} and gets
 * nothing for missing or stale advice.
 *
 * <p>The thread assigns itself every partition of the topic (no consumer group: every plug-in
 * instance reads all of it), reads from the beginning, then keeps polling. On any failure
 * (topic missing, broker unreachable, a bug) it closes its consumer, waits
 * ({@code rackwise.advice.retry.backoff.ms}, doubling to 60 s) and starts over from the
 * beginning, keeping what it held. Bad records are ignored with a counter per
 * {@link IgnoredReason} and at most one log line per reason a minute.
 *
 * <p>Example: after {@code topic/orders} with partition 0 at 5000.0 bytes/s measured at
 * {@code T}, {@code weightsFor("orders", T + 1000)} is {@code [5000.0]}, and
 * {@code weightsFor("orders", T + maxAgeMs + 1)} is empty.
 */
public final class AdviceReader implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(AdviceReader.class);
    private static final long LOG_EVERY_NS = TimeUnit.MINUTES.toNanos(1);
    private static final long PARTITION_CHECK_MS = 60_000;
    // An agent started after the brokers creates the topic later: look again soon, not in a minute.
    static final long MISSING_TOPIC_RETRY_MS = 5_000;

    /** The advice topic does not exist (yet). */
    static final class NoTopicYet extends IllegalStateException {
        private static final long serialVersionUID = 1L;

        NoTopicYet(String message) {
            super(message);
        }
    }

    private final AdviceConfig config;
    private final Supplier<Consumer<byte[], byte[]>> consumers;
    private final AtomicReference<AdviceSnapshot> snapshot = new AtomicReference<>(AdviceSnapshot.EMPTY);
    private final AtomicBoolean started = new AtomicBoolean();
    private final CountDownLatch stop = new CountDownLatch(1);
    private final Map<IgnoredReason, AtomicLong> ignored = new EnumMap<>(IgnoredReason.class);
    private final Map<String, AtomicLong> lastLogNs;
    private final AtomicLong applied = new AtomicLong();
    private final AtomicLong failures = new AtomicLong();
    private volatile Consumer<byte[], byte[]> current;
    private volatile Thread thread;

    /** Nothing starts here: {@link #start()} does. {@code consumers} makes a fresh consumer per attempt. */
    public AdviceReader(AdviceConfig config, Supplier<Consumer<byte[], byte[]>> consumers) {
        this.config = config;
        this.consumers = consumers;
        long longAgo = System.nanoTime() - LOG_EVERY_NS;
        Map<String, AtomicLong> logs = new HashMap<>();
        for (IgnoredReason r : IgnoredReason.values()) {
            ignored.put(r, new AtomicLong());
            logs.put(r.name(), new AtomicLong(longAgo));
        }
        logs.put("failure", new AtomicLong(longAgo));
        this.lastLogNs = Map.copyOf(logs);
    }

    /** A factory of real consumers: {@code clientConfigs} holds bootstrap.servers and security settings. */
    public static Supplier<Consumer<byte[], byte[]>> kafkaConsumers(Map<String, Object> clientConfigs) {
        return () -> {
            Map<String, Object> props = new HashMap<>(clientConfigs);
            props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
            props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
            props.putIfAbsent(ConsumerConfig.CLIENT_ID_CONFIG, "rackwise-advice-" + UUID.randomUUID());
            props.remove(ConsumerConfig.GROUP_ID_CONFIG);  // manual assignment, no group
            return new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer());
        };
    }

    /** Starts the reader thread once; later calls do nothing. */
    public void start() {
        if (stop.getCount() == 0 || !started.compareAndSet(false, true)) {
            return;
        }
        Thread t = new Thread(this::run, "rackwise-advice-reader");
        t.setDaemon(true);
        thread = t;
        t.start();
    }

    /** Stops the thread (waits up to 5 s for it) and closes its consumer. Idempotent. */
    @Override
    public void close() {
        stop.countDown();
        Consumer<byte[], byte[]> c = current;
        if (c != null) {
            c.wakeup();
        }
        Thread t = thread;
        if (t != null && t != Thread.currentThread()) {
            try {
                t.join(5000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    public boolean isRunning() {
        Thread t = thread;
        return t != null && t.isAlive();
    }

    /** Advice older than this is stale (ms). */
    public long maxAgeMs() {
        return config.maxAgeMs();
    }

    /** All advice held, stale entries included. Never blocks. */
    public AdviceSnapshot snapshot() {
        return snapshot.get();
    }

    /** The advice for {@code topic} if held and not older than the maximum age at {@code nowMs}. */
    public Optional<TopicAdvice> topic(String topic, long nowMs) {
        TopicAdvice t = snapshot.get().topics().get(topic);
        if (t == null) {
            return Optional.empty();
        }
        if (t.ageMs(nowMs) > config.maxAgeMs()) {
            ignore(IgnoredReason.STALE, "advice for topic " + topic + " is " + t.ageMs(nowMs) + " ms old");
            return Optional.empty();
        }
        return Optional.of(t);
    }

    /** Each partition's bytes/s for {@code topic}, when held, fresh and every partition measured. */
    public Optional<double[]> weightsFor(String topic, long nowMs) {
        return topic(topic, nowMs).map(TopicAdvice::bytesPerS);
    }

    /** The winning fresh group rule for {@code groupId} (lowest priority among those matching). */
    public Optional<GroupAdvice> groupSettings(String groupId, long nowMs) {
        for (GroupAdvice g : snapshot.get().matching(groupId)) {
            if (g.ageMs(nowMs) > config.maxAgeMs()) {
                ignore(IgnoredReason.STALE, "advice for groups " + g.pattern() + " is " + g.ageMs(nowMs) + " ms old");
                continue;
            }
            return Optional.of(g);
        }
        return Optional.empty();
    }

    /** When the newest advice held was written by the agent (epoch ms), or -1 when none. */
    public long newestAdviceMs() {
        AdviceSnapshot s = snapshot.get();
        long newest = -1;
        for (TopicAdvice t : s.topics().values()) {
            newest = Math.max(newest, t.measuredAtMs());
        }
        for (GroupAdvice g : s.groups().values()) {
            newest = Math.max(newest, g.updatedAtMs());
        }
        return newest;
    }

    public long ignored(IgnoredReason reason) {
        return ignored.get(reason).get();
    }

    /** Records taken in (tombstones included). */
    public long applied() {
        return applied.get();
    }

    /** Times the reader started over after a failure. */
    public long failures() {
        return failures.get();
    }

    // ---- the thread ------------------------------------------------------------------------

    private void run() {
        long backoff = config.retryBackoffMs();
        while (stop.getCount() > 0) {
            Consumer<byte[], byte[]> c = null;
            boolean missing = false;
            try {
                c = consumers.get();
                current = c;
                if (stop.getCount() == 0) {
                    break;
                }
                List<TopicPartition> assigned = waitForTopic(c);
                if (assigned == null) {
                    break; // closed while waiting
                }
                c.assign(assigned);
                c.seekToBeginning(assigned);
                log.info("advice reader: reading {} from the beginning ({} partitions)", config.topic(),
                    assigned.size());
                long checked = System.currentTimeMillis();
                while (stop.getCount() > 0) {
                    ConsumerRecords<byte[], byte[]> records = c.poll(Duration.ofMillis(config.pollMs()));
                    apply(records);
                    backoff = config.retryBackoffMs();  // a good poll: the next failure starts small
                    if (System.currentTimeMillis() - checked >= PARTITION_CHECK_MS) {
                        checked = System.currentTimeMillis();
                        assigned = grow(c, assigned);
                    }
                }
            } catch (WakeupException e) {
                // close() woke the poll: the loop condition ends the thread
            } catch (Throwable e) {  // never let the thread die: advice is optional, retrying is not
                failures.incrementAndGet();
                missing = e instanceof NoTopicYet;
                rateLimitedWarn("failure", "advice reader: " + e + "; retrying in " + backoff + " ms");
            } finally {
                current = null;
                if (c != null) {
                    try {
                        c.close(Duration.ofSeconds(1));
                    } catch (RuntimeException e) {
                        log.debug("advice reader: closing the consumer failed", e);
                    }
                }
            }
            try {
                if (stop.await(backoff, TimeUnit.MILLISECONDS)) {
                    break;
                }
            } catch (InterruptedException e) {
                break;
            }
            backoff = Math.min(backoff * 2, missing ? MISSING_TOPIC_RETRY_MS : AdviceConfig.MAX_BACKOFF_MS);
        }
    }

    /**
     * The advice topic's partitions, asking the same consumer again every
     * {@link #MISSING_TOPIC_RETRY_MS} while the topic does not exist (no agent has created it):
     * one consumer and one log line, not one of each per try. Null when closed meanwhile.
     */
    private List<TopicPartition> waitForTopic(Consumer<byte[], byte[]> c) throws InterruptedException {
        boolean said = false;
        while (stop.getCount() > 0) {
            try {
                return partitions(c);
            } catch (NoTopicYet e) {
                if (!said) {
                    log.info("advice reader: {} does not exist yet (no agent has created it); looking again "
                        + "every {} s, assigning on Kafka's inputs alone meanwhile", config.topic(),
                        MISSING_TOPIC_RETRY_MS / 1000);
                    said = true;
                }
                if (stop.await(MISSING_TOPIC_RETRY_MS, TimeUnit.MILLISECONDS)) {
                    return null;
                }
            }
        }
        return null;
    }

    private List<TopicPartition> partitions(Consumer<byte[], byte[]> c) {
        List<PartitionInfo> infos = c.partitionsFor(config.topic());  // close() wakes it up
        if (infos == null || infos.isEmpty()) {
            throw new NoTopicYet("advice topic " + config.topic() + " has no partitions (not created yet?)");
        }
        List<TopicPartition> out = new ArrayList<>();
        for (PartitionInfo p : infos) {
            out.add(new TopicPartition(p.topic(), p.partition()));
        }
        out.sort(Comparator.comparingInt(TopicPartition::partition));
        return out;
    }

    /** Partitions added to the topic since it was assigned: read them from the beginning too. */
    private List<TopicPartition> grow(Consumer<byte[], byte[]> c, List<TopicPartition> assigned) {
        List<TopicPartition> now = partitions(c);
        List<TopicPartition> added = new ArrayList<>(now);
        added.removeAll(assigned);
        if (added.isEmpty()) {
            return assigned;
        }
        c.assign(now);
        c.seekToBeginning(added);
        return now;
    }

    /** Folds one poll's records into a new snapshot (copy on write: one copy per poll). */
    void apply(ConsumerRecords<byte[], byte[]> records) {
        if (records.isEmpty()) {
            return;
        }
        AdviceSnapshot before = snapshot.get();
        Map<String, TopicAdvice> topics = new HashMap<>(before.topics());
        Map<String, GroupAdvice> groups = new HashMap<>(before.groups());
        for (ConsumerRecord<byte[], byte[]> r : records) {
            applied.incrementAndGet();
            if (r.key() == null) {
                ignore(IgnoredReason.MALFORMED, "advice record at offset " + r.offset() + " has no key");
                continue;
            }
            String key = new String(r.key(), java.nio.charset.StandardCharsets.UTF_8);
            if (r.value() == null) {  // a tombstone deletes the key
                if (key.startsWith(AdviceDecoder.TOPIC_PREFIX)) {
                    topics.remove(key.substring(AdviceDecoder.TOPIC_PREFIX.length()));
                } else if (key.startsWith(AdviceDecoder.GROUP_PREFIX)) {
                    groups.remove(key.substring(AdviceDecoder.GROUP_PREFIX.length()));
                }
                continue;
            }
            try {
                Object advice = AdviceDecoder.decode(key, r.value(), config.maxRecordBytes());
                if (advice instanceof TopicAdvice t) {
                    topics.put(t.topic(), t);
                } else if (advice instanceof GroupAdvice g) {
                    groups.put(g.pattern(), g);
                }
            } catch (AdviceFormatException e) {
                ignore(e.reason(), e.getMessage());
            } catch (RuntimeException e) {  // a decoder bug must not end reading either
                ignore(IgnoredReason.MALFORMED, "advice " + key + ": " + e);
            }
        }
        snapshot.set(new AdviceSnapshot(topics, groups));
    }

    private void ignore(IgnoredReason reason, String message) {
        long n = ignored.get(reason).incrementAndGet();
        rateLimitedWarn(reason.name(), message + " (ignored; " + n + " " + reason.name().toLowerCase() + " so far)");
    }

    /** At most one line per kind a minute; lock-free, since staleness is judged inside assign(). */
    private void rateLimitedWarn(String kind, String message) {
        long now = System.nanoTime();
        AtomicLong last = lastLogNs.get(kind);
        long before = last.get();
        if (now - before < LOG_EVERY_NS || !last.compareAndSet(before, now)) {
            return;
        }
        log.warn(message);
    }
}
