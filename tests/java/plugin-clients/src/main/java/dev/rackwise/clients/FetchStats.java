package dev.rackwise.clients;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;

/**
 * What this consumer fetched, per partition: records and bytes (key + value as serialized) it
 * received, and the broker it fetches that partition from. The broker is the preferred read
 * replica the fetch response named (KIP-392, read from the consumer's SubscriptionState: no
 * public API exposes it), else the partition's leader. Also each broker's incoming-byte-total
 * from the consumer's own node metrics.
 */
final class FetchStats {
    private record Counts(long records, long bytes) {
    }

    private final KafkaConsumer<byte[], byte[]> consumer;
    private final Map<TopicPartition, Counts> counts = new TreeMap<>(
        (a, b) -> a.topic().equals(b.topic()) ? Integer.compare(a.partition(), b.partition()) : a.topic().compareTo(b.topic()));
    private final Object subscriptions;
    private final Method preferredReadReplica;

    FetchStats(KafkaConsumer<byte[], byte[]> consumer) {
        this.consumer = consumer;
        Object subs = null;
        Method method = null;
        try {
            Object delegate = field(consumer, "delegate");
            subs = field(delegate, "subscriptions");
            method = subs.getClass().getMethod("preferredReadReplica", TopicPartition.class, long.class);
        } catch (ReflectiveOperationException | RuntimeException e) {
            System.err.println("plugin-clients: preferred read replica not readable (" + e + "); reporting leaders");
        }
        this.subscriptions = subs;
        this.preferredReadReplica = method;
    }

    private static Object field(Object target, String name) throws ReflectiveOperationException {
        for (Class<?> c = target.getClass(); c != null; c = c.getSuperclass()) {
            try {
                Field f = c.getDeclaredField(name);
                f.setAccessible(true);
                return f.get(target);
            } catch (NoSuchFieldException e) {
                // look in the superclass
            }
        }
        throw new NoSuchFieldException(name);
    }

    void add(ConsumerRecord<byte[], byte[]> r) {
        TopicPartition tp = new TopicPartition(r.topic(), r.partition());
        long size = Math.max(0, r.serializedKeySize()) + Math.max(0, r.serializedValueSize());
        counts.merge(tp, new Counts(1, size), (a, b) -> new Counts(a.records + b.records, a.bytes + b.bytes));
    }

    Map<String, Object> snapshot() {
        Map<TopicPartition, Integer> leaders = new LinkedHashMap<>();
        for (TopicPartition tp : consumer.assignment()) {
            counts.putIfAbsent(tp, new Counts(0, 0));
        }
        for (String topic : counts.keySet().stream().map(TopicPartition::topic).distinct().toList()) {
            for (PartitionInfo p : consumer.partitionsFor(topic)) {
                leaders.put(new TopicPartition(topic, p.partition()), p.leader() == null ? null : p.leader().id());
            }
        }
        List<Object> partitions = new ArrayList<>();
        for (Map.Entry<TopicPartition, Counts> e : counts.entrySet()) {
            TopicPartition tp = e.getKey();
            Integer leader = leaders.get(tp);
            Integer preferred = preferred(tp);
            Map<String, Object> p = new LinkedHashMap<>();
            p.put("topic", tp.topic());
            p.put("partition", tp.partition());
            p.put("assigned", consumer.assignment().contains(tp));
            p.put("records", e.getValue().records);
            p.put("bytes", e.getValue().bytes);
            p.put("leader", leader);
            p.put("preferred_read_replica", preferred);
            p.put("fetched_from", preferred != null ? preferred : leader);
            partitions.add(p);
        }
        List<Object> nodes = new ArrayList<>();
        for (Map.Entry<MetricName, ? extends Metric> m : consumer.metrics().entrySet()) {
            MetricName n = m.getKey();
            if (n.group().equals("consumer-node-metrics") && n.name().equals("incoming-byte-total")) {
                String node = n.tags().get("node-id");
                if (node != null && node.startsWith("node-")) {
                    Map<String, Object> entry = new LinkedHashMap<>();
                    entry.put("node", Integer.parseInt(node.substring(5)));
                    entry.put("incoming_bytes", ((Number) m.getValue().metricValue()).longValue());
                    nodes.add(entry);
                }
            }
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("partitions", partitions);
        out.put("nodes", nodes);
        return out;
    }

    private Integer preferred(TopicPartition tp) {
        if (preferredReadReplica == null) {
            return null;
        }
        try {
            Object o = preferredReadReplica.invoke(subscriptions, tp, System.currentTimeMillis());
            return o instanceof Optional<?> opt && opt.isPresent() ? (Integer) opt.get() : null;
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null; // not assigned any more
        }
    }
}
