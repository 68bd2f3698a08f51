package dev.rackwise.plugins.publish;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.common.PartitionInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.rackwise.plugins.advice.AdviceReader;

/**
 * Whether a topic exists now. The {@link PlanPublisher}'s thread asks it every few seconds
 * while the plans topic is missing, instead of keeping a producer that asks Kafka for the
 * topic again and again (and logs a warning for every answer). Used by one thread.
 *
 * <p>Example: before an agent has created {@code rackwise.plans},
 * {@code exists("rackwise.plans")} is false; a few seconds after, true.
 */
public interface TopicProbe extends AutoCloseable {
    /** True when the topic has partitions; false when it does not exist or the cluster did not answer. */
    boolean exists(String topic);

    /** Releases the client, if any; the next {@link #exists} makes a new one. */
    @Override
    default void close() {
    }

    /**
     * A probe asking {@code Consumer.partitionsFor} (a one-off metadata request: a missing topic
     * answers an empty list, and nothing keeps asking for it). The consumer gets its own
     * {@code client.id} ({@code <client.id>-plans-probe}), so it never collides with the advice
     * reader's consumer in JMX.
     */
    static TopicProbe kafka(Map<String, Object> clientConfigs) {
        Map<String, Object> props = new HashMap<>(clientConfigs);
        Object id = props.get(CommonClientConfigs.CLIENT_ID_CONFIG);
        props.put(CommonClientConfigs.CLIENT_ID_CONFIG, (id == null ? "rackwise" : id) + "-plans-probe");
        return new ConsumerProbe(AdviceReader.kafkaConsumers(props));
    }

    /** The {@link #kafka} probe: one consumer, made on the first question, closed on {@link #close}. */
    final class ConsumerProbe implements TopicProbe {
        private static final Logger log = LoggerFactory.getLogger(TopicProbe.class);
        private static final Duration TIMEOUT = Duration.ofSeconds(5);

        private final Supplier<Consumer<byte[], byte[]>> consumers;
        private Consumer<byte[], byte[]> consumer;

        ConsumerProbe(Supplier<Consumer<byte[], byte[]>> consumers) {
            this.consumers = consumers;
        }

        @Override
        public boolean exists(String topic) {
            try {
                if (consumer == null) {
                    consumer = consumers.get();
                }
                List<PartitionInfo> infos = consumer.partitionsFor(topic, TIMEOUT);
                return infos != null && !infos.isEmpty();
            } catch (RuntimeException e) {  // not answered: ask again next time, with a new client
                log.debug("plan publisher: looking for topic {} failed", topic, e);
                close();
                return false;
            }
        }

        @Override
        public void close() {
            if (consumer == null) {
                return;
            }
            try {
                consumer.close(Duration.ofSeconds(1));
            } catch (RuntimeException e) {
                log.debug("plan publisher: closing the topic probe failed", e);
            }
            consumer = null;
        }
    }
}
