// The demo's classic Java consumer (agent/dev/demo/plugged.py starts three, one per rack).
//
// A plain KafkaConsumer whose assignor is rackwise's plug-in: partition.assignment.strategy =
// dev.rackwise.plugins.RackwiseAssignor (plugins/target/rackwise-plugins.jar on the classpath),
// client.rack = its rack. The plug-in asks the agent; nothing here assigns anything.
// Compiled once by the demo with javac against Kafka's jars (the testbed's classpath).
//
// Arguments key=value: bootstrap= group= topic= rack= client-id= stats-ms=500, and
// config=KEY=VALUE (repeatable; any consumer setting, e.g. rackwise.bootstrap.servers=HOST:PORT).
// One JSON line per event on stdout, the format of tests/java/plugin-clients (agent/dev/fetchstats.py
// reads it): "assignment" on every rebalance callback (member id, generation, partitions, added,
// revoked, lost); "fetch" every stats-ms: per partition the records and bytes (key + value,
// serialized) it received and the broker it fetches from (fetched_from: the KIP-392 preferred
// read replica the fetch response named, read from the consumer's SubscriptionState since no
// public API exposes it, else the leader). Kafka's log goes to stderr. It exits, leaving the
// group, on SIGTERM or when its stdin closes (the demo is gone).

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.TreeMap;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

public final class DemoConsumer {
    private static final String ASSIGNOR = "dev.rackwise.plugins.RackwiseAssignor";

    private final KafkaConsumer<byte[], byte[]> consumer;
    private final Map<TopicPartition, long[]> counts = new TreeMap<>(
        (a, b) -> a.topic().equals(b.topic()) ? Integer.compare(a.partition(), b.partition())
                                              : a.topic().compareTo(b.topic()));
    private Object subscriptions;
    private Method preferredReadReplica;

    private DemoConsumer(KafkaConsumer<byte[], byte[]> consumer) {
        this.consumer = consumer;
        try {
            Object delegate = field(consumer, "delegate");
            subscriptions = field(delegate, "subscriptions");
            preferredReadReplica = subscriptions.getClass().getMethod(
                "preferredReadReplica", TopicPartition.class, long.class);
        } catch (ReflectiveOperationException | RuntimeException e) {
            System.err.println("demo: preferred read replica not readable (" + e + "); reporting leaders");
        }
    }

    public static void main(String[] argv) throws Exception {
        Map<String, String> args = new LinkedHashMap<>();
        Properties props = new Properties();
        for (String arg : argv) {
            int eq = arg.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("expected key=value, got " + arg);
            }
            if (arg.startsWith("config=")) {
                String kv = arg.substring(eq + 1);
                props.put(kv.substring(0, kv.indexOf('=')), kv.substring(kv.indexOf('=') + 1));
            } else {
                args.put(arg.substring(0, eq), arg.substring(eq + 1));
            }
        }
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, args.get("bootstrap"));
        props.put(ConsumerConfig.GROUP_ID_CONFIG, args.get("group"));
        props.put(ConsumerConfig.CLIENT_ID_CONFIG, args.getOrDefault("client-id", "demo-java"));
        props.put(ConsumerConfig.CLIENT_RACK_CONFIG, args.get("rack"));
        props.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "classic");
        props.put(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, ASSIGNOR);
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        long statsMs = Long.parseLong(args.getOrDefault("stats-ms", "500"));

        KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props);
        DemoConsumer demo = new DemoConsumer(consumer);
        Thread main = Thread.currentThread();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            consumer.wakeup();
            try {
                main.join(10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }));
        Thread stdin = new Thread(() -> {
            try {
                while (System.in.read() >= 0) {
                    // nothing is sent; only the end matters
                }
            } catch (java.io.IOException e) {
                // closed
            }
            consumer.wakeup();
        }, "stdin-watch");
        stdin.setDaemon(true);
        stdin.start();
        consumer.subscribe(List.of(args.get("topic")), new ConsumerRebalanceListener() {
            @Override
            public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                demo.assignment(List.of(), partitions, List.of());
            }

            @Override
            public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                demo.assignment(partitions, List.of(), List.of());
            }

            @Override
            public void onPartitionsLost(Collection<TopicPartition> partitions) {
                demo.assignment(List.of(), List.of(), partitions);
            }
        });
        long nextStats = System.currentTimeMillis() + statsMs;
        try {
            while (true) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    long size = Math.max(0, r.serializedKeySize()) + Math.max(0, r.serializedValueSize());
                    long[] c = demo.counts.computeIfAbsent(new TopicPartition(r.topic(), r.partition()), k -> new long[2]);
                    c[0] += 1;
                    c[1] += size;
                }
                if (System.currentTimeMillis() >= nextStats) {
                    emit("fetch", demo.fetches());
                    nextStats = System.currentTimeMillis() + statsMs;
                }
            }
        } catch (WakeupException e) {
            // shutting down
        } finally {
            emit("fetch", demo.fetches());
            consumer.close();
            emit("stopped", Map.of());
        }
    }

    private void assignment(Collection<TopicPartition> added, Collection<TopicPartition> revoked,
                            Collection<TopicPartition> lost) {
        Map<String, Object> e = new LinkedHashMap<>();
        e.put("member_id", consumer.groupMetadata().memberId());
        e.put("generation", consumer.groupMetadata().generationId());
        e.put("partitions", pairs(consumer.assignment()));
        e.put("added", pairs(added));
        e.put("revoked", pairs(revoked));
        e.put("lost", pairs(lost));
        emit("assignment", e);
    }

    private Map<String, Object> fetches() {
        for (TopicPartition tp : consumer.assignment()) {
            counts.putIfAbsent(tp, new long[2]);
        }
        Map<TopicPartition, Integer> leaders = new LinkedHashMap<>();
        for (String topic : counts.keySet().stream().map(TopicPartition::topic).distinct().toList()) {
            for (PartitionInfo p : consumer.partitionsFor(topic)) {
                leaders.put(new TopicPartition(topic, p.partition()), p.leader() == null ? null : p.leader().id());
            }
        }
        List<Object> partitions = new ArrayList<>();
        for (Map.Entry<TopicPartition, long[]> e : counts.entrySet()) {
            TopicPartition tp = e.getKey();
            Integer preferred = preferred(tp);
            Map<String, Object> p = new LinkedHashMap<>();
            p.put("topic", tp.topic());
            p.put("partition", tp.partition());
            p.put("assigned", consumer.assignment().contains(tp));
            p.put("records", e.getValue()[0]);
            p.put("bytes", e.getValue()[1]);
            p.put("leader", leaders.get(tp));
            p.put("preferred_read_replica", preferred);
            p.put("fetched_from", preferred != null ? preferred : leaders.get(tp));
            partitions.add(p);
        }
        return Map.of("partitions", partitions);
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

    private static List<Object> pairs(Collection<TopicPartition> tps) {
        List<Object> out = new ArrayList<>();
        for (TopicPartition tp : tps) {
            out.add(List.of(tp.topic(), tp.partition()));
        }
        return out;
    }

    static synchronized void emit(String event, Map<String, ?> fields) {
        Map<String, Object> line = new LinkedHashMap<>();
        line.put("event", event);
        line.put("ts_ms", System.currentTimeMillis());
        line.putAll(fields);
        System.out.println(json(line));
        System.out.flush();
    }

    /** Strings, numbers, booleans, null, lists and maps as one line of JSON. */
    static String json(Object v) {
        if (v == null) {
            return "null";
        }
        if (v instanceof Number || v instanceof Boolean) {
            return v.toString();
        }
        if (v instanceof Map<?, ?> m) {
            List<String> items = new ArrayList<>();
            m.forEach((k, x) -> items.add(json(String.valueOf(k)) + ":" + json(x)));
            return "{" + String.join(",", items) + "}";
        }
        if (v instanceof Collection<?> c) {
            List<String> items = new ArrayList<>();
            c.forEach(x -> items.add(json(x)));
            return "[" + String.join(",", items) + "]";
        }
        StringBuilder sb = new StringBuilder("\"");
        for (char ch : v.toString().toCharArray()) {
            if (ch == '"' || ch == '\\') {
                sb.append('\\').append(ch);
            } else if (ch < 0x20) {
                sb.append(String.format("\\u%04x", (int) ch));
            } else {
                sb.append(ch);
            }
        }
        return sb.append('"').toString();
    }
}
