package dev.rackwise.plugins.transport;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.utils.Utils;

/**
 * The request/reply exchange over Kafka: an idempotent producer (acks=all) writes the request to
 * the requests topic, keyed by group id, on the partition Java's default partitioner picks for
 * that key; the {@link ReplyReader} waits for the reply on the same partition number of the
 * plans topic, or on the dead-letter topic. Producer and reader are created once and reused.
 */
public final class KafkaTransport implements Transport {
    private final Settings settings;
    private final KafkaProducer<byte[], byte[]> producer;
    private final ReplyReader reader;
    private final ExecutorService senders;

    private KafkaTransport(Settings settings, KafkaProducer<byte[], byte[]> producer, ReplyReader reader) {
        this.settings = settings;
        this.producer = producer;
        this.reader = reader;
        AtomicInteger n = new AtomicInteger();
        this.senders = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, settings.clientId() + "-request-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
    }

    public static KafkaTransport create(Settings settings) {
        Map<String, Object> common = new HashMap<>(settings.clientConfigs());
        common.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, settings.bootstrapServers());

        Map<String, Object> p = new HashMap<>(common);
        p.put(ProducerConfig.CLIENT_ID_CONFIG, settings.clientId() + "-requests");
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        p.put(ProducerConfig.LINGER_MS_CONFIG, 0);
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, settings.timeoutMs());
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) Math.min(Integer.MAX_VALUE, settings.timeoutMs()));
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, (int) Math.min(Integer.MAX_VALUE, settings.timeoutMs() + 1000));
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);

        Map<String, Object> c = new HashMap<>(common);
        c.put(ConsumerConfig.CLIENT_ID_CONFIG, settings.clientId() + "-replies");
        c.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "latest");
        c.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 100);
        c.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        c.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);

        KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p);
        try {
            return new KafkaTransport(settings, producer, new ReplyReader(new KafkaConsumer<>(c), settings));
        } catch (RuntimeException e) {
            producer.close();
            throw e;
        }
    }

    /** The partition Java's default partitioner picks for a non-null key: toPositive(murmur2(key)) % n. */
    public static int partitionFor(String groupId, int numPartitions) {
        return Utils.toPositive(Utils.murmur2(groupId.getBytes(StandardCharsets.UTF_8))) % numPartitions;
    }

    @Override
    public byte[] exchange(String groupId, String kind, byte[] request, long timeoutMs) throws ExchangeException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        String requestId = UUID.randomUUID().toString();
        CompletableFuture<byte[]> reply = reader.expect(requestId);
        String[] stage = {"finding the partitions of " + settings.requestsTopic()};
        Future<?> send = senders.submit(() -> send(groupId, kind, request, requestId, reply, deadline, stage));
        try {
            return reply.get(remainingNanos(deadline), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            throw new ExchangeException(ExchangeException.Failure.TIMEOUT,
                "no reply within " + timeoutMs + " ms while " + stage[0] + " (request " + requestId + ")");
        } catch (ExecutionException e) {
            if (e.getCause() instanceof ExchangeException x) {
                throw x;
            }
            throw new ExchangeException(ExchangeException.Failure.TRANSPORT, null, String.valueOf(e.getCause()), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ExchangeException(ExchangeException.Failure.TRANSPORT, "interrupted while waiting for the agent");
        } finally {
            reader.forget(requestId);
            send.cancel(true);
        }
    }

    private void send(String groupId, String kind, byte[] request, String requestId,
                      CompletableFuture<byte[]> reply, long deadline, String[] stage) {
        try {
            List<PartitionInfo> partitions = producer.partitionsFor(settings.requestsTopic());
            if (partitions == null || partitions.isEmpty()) {
                throw new ExchangeException(ExchangeException.Failure.TRANSPORT,
                    "topic " + settings.requestsTopic() + " has no partitions (is the agent set up?)");
            }
            int partition = partitionFor(groupId, partitions.size());
            stage[0] = "positioning the reply reader on " + settings.plansTopic() + "-" + partition;
            reader.watch(partition).get(remainingNanos(deadline), TimeUnit.NANOSECONDS);
            stage[0] = "writing the request to " + settings.requestsTopic() + "-" + partition;
            ProducerRecord<byte[], byte[]> record = new ProducerRecord<>(settings.requestsTopic(), partition,
                groupId.getBytes(StandardCharsets.UTF_8), request, List.of(
                    new RecordHeader(Contract.HEADER_REQUEST_ID, requestId.getBytes(StandardCharsets.UTF_8)),
                    new RecordHeader(Contract.HEADER_KIND, kind.getBytes(StandardCharsets.UTF_8))));
            producer.send(record, (metadata, error) -> {
                if (error != null) {
                    reply.completeExceptionally(new ExchangeException(ExchangeException.Failure.TRANSPORT, null,
                        "cannot write the request: " + error, error));
                } else {
                    stage[0] = "waiting for the agent's reply on " + settings.plansTopic() + "-" + partition;
                }
            });
        } catch (ExecutionException e) {
            reply.completeExceptionally(e.getCause());
        } catch (ExchangeException e) {
            reply.completeExceptionally(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (TimeoutException e) {
            // the caller's own wait times out at the same deadline and says where it was
        } catch (RuntimeException e) {
            reply.completeExceptionally(new ExchangeException(ExchangeException.Failure.TRANSPORT, null,
                "cannot write the request: " + e, e));
        }
    }

    /**
     * Learns the requests topic's partitions and positions the reply reader on every partition of
     * the plans topic (and the dead-letter topic), so that no request pays for a first seek. On a
     * loaded broker those round trips took over a second of a 2 s bound (the broker plug-in calls
     * this while it builds its clients in the background).
     */
    @Override
    public void warmUp(long timeoutMs) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        try {
            producer.partitionsFor(settings.requestsTopic());
            List<PartitionInfo> plans = producer.partitionsFor(settings.plansTopic());
            List<CompletableFuture<Void>> ready = new ArrayList<>();
            for (PartitionInfo p : plans) {
                ready.add(reader.watch(p.partition()));
            }
            CompletableFuture.allOf(ready.toArray(CompletableFuture[]::new))
                .get(remainingNanos(deadline), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException | RuntimeException e) {
            // best effort: the first request positions what is missing itself
        }
    }

    private static long remainingNanos(long deadline) {
        return Math.max(0, deadline - System.nanoTime());
    }

    @Override
    public void close() {
        senders.shutdownNow();
        reader.close();
        producer.close(java.time.Duration.ofSeconds(1));
    }
}
