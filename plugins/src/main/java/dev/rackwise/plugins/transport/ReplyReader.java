package dev.rackwise.plugins.transport;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.header.Header;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One thread owning a group-less consumer (read_committed) on the plans partitions that have
 * been asked for and partition 0 of the dead-letter topic. A partition is added with
 * assign() + seekToEnd() + position() before any request that expects a reply on it is sent,
 * and then stays: later requests on it need no seek. Replies are matched by the
 * {@code rackwise-request-id} header; others are skipped.
 */
final class ReplyReader implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ReplyReader.class);

    private record Watch(TopicPartition partition, CompletableFuture<Void> ready) {
    }

    private final KafkaConsumer<byte[], byte[]> consumer;
    private final Settings settings;
    private final TopicPartition deadletter;
    private final Map<String, CompletableFuture<byte[]>> pending = new ConcurrentHashMap<>();
    private final LinkedBlockingQueue<Watch> watches = new LinkedBlockingQueue<>();
    private final Set<TopicPartition> ready = ConcurrentHashMap.newKeySet();
    private final Set<TopicPartition> assigned = new HashSet<>();
    private final Thread thread;
    private volatile boolean running = true;

    ReplyReader(KafkaConsumer<byte[], byte[]> consumer, Settings settings) {
        this.consumer = consumer;
        this.settings = settings;
        this.deadletter = new TopicPartition(settings.deadletterTopic(), 0);
        this.thread = new Thread(this::run, settings.clientId() + "-replies");
        this.thread.setDaemon(true);
        this.thread.start();
    }

    /** Completes once replies on this plans partition (and dead letters) are read from their current end. */
    CompletableFuture<Void> watch(int plansPartition) {
        TopicPartition tp = new TopicPartition(settings.plansTopic(), plansPartition);
        if (ready.contains(tp) && ready.contains(deadletter)) {
            return CompletableFuture.completedFuture(null);
        }
        Watch w = new Watch(tp, new CompletableFuture<>());
        watches.add(w);
        consumer.wakeup();
        return w.ready();
    }

    /** The reply to {@code requestId}, once read; register before sending the request. */
    CompletableFuture<byte[]> expect(String requestId) {
        CompletableFuture<byte[]> f = new CompletableFuture<>();
        pending.put(requestId, f);
        return f;
    }

    void forget(String requestId) {
        pending.remove(requestId);
    }

    // close(Duration) is deprecated from 4.1 but links on every client the jar supports;
    // CloseOptions (KIP-1092) only exists from 4.1 and Streams 3.8 applications run 3.8 clients.
    @SuppressWarnings("deprecation")
    private void run() {
        while (running) {
            try {
                addWatched();
                if (assigned.isEmpty()) {
                    Watch w = watches.poll(500, TimeUnit.MILLISECONDS);
                    if (w != null) {
                        watches.add(w);
                    }
                    continue;
                }
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(500))) {
                    dispatch(record);
                }
            } catch (WakeupException e) {
                // a new partition to watch, or close()
            } catch (InterruptedException | InterruptException e) {
                if (!running) {
                    break;
                }
            } catch (RuntimeException e) {
                log.warn("rackwise reply reader: {}; retrying in 1 s", e.toString());
                sleepQuietly(1000);
            }
        }
        consumer.close(Duration.ZERO);
    }

    private void addWatched() {
        List<Watch> batch = new ArrayList<>();
        watches.drainTo(batch);
        if (batch.isEmpty()) {
            return;
        }
        Set<TopicPartition> wanted = new HashSet<>();
        for (Watch w : batch) {
            wanted.add(w.partition());
        }
        wanted.add(deadletter);
        wanted.removeAll(ready);
        try {
            if (!wanted.isEmpty()) {
                assigned.addAll(wanted);
                consumer.assign(assigned);
                consumer.seekToEnd(wanted);
                for (TopicPartition tp : wanted) {
                    consumer.position(tp, Duration.ofMillis(settings.timeoutMs()));
                    ready.add(tp);
                }
            }
        } catch (WakeupException e) {
            watches.addAll(batch);
            return;
        } catch (RuntimeException e) {
            // Drop what could not be positioned (a missing topic or partition), so it is retried next time.
            Set<TopicPartition> failed = new HashSet<>(wanted);
            failed.removeAll(ready);
            assigned.removeAll(failed);
            consumer.assign(assigned);
            for (Watch w : batch) {
                if (failed.contains(w.partition()) || failed.contains(deadletter)) {
                    w.ready().completeExceptionally(new ExchangeException(ExchangeException.Failure.TRANSPORT,
                        "cannot read replies from " + failed + ": " + e));
                }
            }
        }
        for (Watch w : batch) {
            if (ready.contains(w.partition()) && ready.contains(deadletter)) {
                w.ready().complete(null);
            }
        }
    }

    private void dispatch(ConsumerRecord<byte[], byte[]> record) {
        String requestId = header(record, Contract.HEADER_REQUEST_ID);
        if (requestId == null) {
            return;
        }
        CompletableFuture<byte[]> f = pending.remove(requestId);
        if (f == null) {
            return;
        }
        if (record.topic().equals(settings.plansTopic())) {
            f.complete(record.value());
            return;
        }
        String code = header(record, Contract.HEADER_ERROR);
        String detail = header(record, Contract.HEADER_ERROR_DETAIL);
        f.completeExceptionally(new ExchangeException(ExchangeException.Failure.ERROR_REPLY, code,
            "the agent rejected the request: " + code + ": " + detail, null));
    }

    private static String header(ConsumerRecord<byte[], byte[]> record, String name) {
        Header h = record.headers().lastHeader(name);
        return h == null || h.value() == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    }

    private static void sleepQuietly(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        running = false;
        consumer.wakeup();
        try {
            thread.join(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
