package dev.rackwise.clients;

import java.io.File;
import java.net.URL;
import java.net.URLClassLoader;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * A Java consumer for the plug-in tests. Arguments (key=value):
 *
 * <pre>
 * bootstrap=HOST:PORT group=G topic=T[,T2]   required
 * rack=az1                    client.rack (omit for none)
 * protocol=classic|consumer   group.protocol (default classic)
 * assignor=NAME               classic: rackwise | cooperative-sticky | range | a class name
 *                             (default rackwise); consumer: group.remote.assignor (default: the broker's)
 * client-id=ID  stats-ms=2000  duration-ms=0 (run until killed)  plugin-jar=PATH
 * config=KEY=VALUE            any consumer setting, repeatable (e.g. config=rackwise.plans.topic=p)
 * </pre>
 *
 * Prints one JSON line per event on stdout: {@code started}; {@code assignment} on every
 * rebalance callback (member id, generation, partitions, added, revoked, lost); {@code fetch}
 * every stats-ms (see {@link FetchStats}); {@code stopped}. Kafka's own logs go to stderr.
 */
public final class PluginConsumer {
    // By name, not ConsumerConfig constants: the client is built against kafka-clients 3.5 too
    // (tests/compat), which has neither (KIP-848 configs arrive in 3.7).
    static final String GROUP_PROTOCOL = "group.protocol";
    static final String GROUP_REMOTE_ASSIGNOR = "group.remote.assignor";
    private PluginConsumer() {
    }

    public static void main(String[] argv) throws Exception {
        Args args = Args.parse(argv);
        loadPluginJar(args.get("plugin-jar", System.getenv("RACKWISE_PLUGIN_JAR")));
        Properties props = config(args);
        long statsMs = Long.parseLong(args.get("stats-ms", "2000"));
        long durationMs = Long.parseLong(args.get("duration-ms", "0"));
        List<String> topics = List.of(args.require("topic").split(","));

        KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props);
        Thread main = Thread.currentThread();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            consumer.wakeup();
            try {
                main.join(10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }));
        FetchStats stats = new FetchStats(consumer);
        emit("started", Map.of("group", props.get(ConsumerConfig.GROUP_ID_CONFIG), "protocol",
            String.valueOf(props.getOrDefault(GROUP_PROTOCOL, "classic")), "rack", String.valueOf(props.get(ConsumerConfig.CLIENT_RACK_CONFIG))));
        consumer.subscribe(topics, new ConsumerRebalanceListener() {
            @Override
            public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                report(consumer, List.of(), partitions, List.of());
            }

            @Override
            public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                report(consumer, partitions, List.of(), List.of());
            }

            @Override
            public void onPartitionsLost(Collection<TopicPartition> partitions) {
                report(consumer, List.of(), List.of(), partitions);
            }
        });
        long start = System.currentTimeMillis();
        long nextStats = start + statsMs;
        try {
            while (durationMs <= 0 || System.currentTimeMillis() - start < durationMs) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    stats.add(r);
                }
                if (System.currentTimeMillis() >= nextStats) {
                    emit("fetch", stats.snapshot());
                    nextStats = System.currentTimeMillis() + statsMs;
                }
            }
        } catch (WakeupException e) {
            // shutting down
        } finally {
            emit("fetch", stats.snapshot());
            consumer.close();
            emit("stopped", Map.of());
        }
    }

    static Properties config(Args args) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, args.require("bootstrap"));
        p.put(ConsumerConfig.GROUP_ID_CONFIG, args.require("group"));
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        String clientId = args.get("client-id", null);
        if (clientId != null) {
            p.put(ConsumerConfig.CLIENT_ID_CONFIG, clientId);
        }
        String rack = args.get("rack", null);
        if (rack != null) {
            p.put(ConsumerConfig.CLIENT_RACK_CONFIG, rack);
        }
        String protocol = args.get("protocol", "classic");
        if (!protocol.equals("classic")) { // clients before 3.7 know no group.protocol
            p.put(GROUP_PROTOCOL, protocol);
        }
        String assignor = args.get("assignor", protocol.equals("classic") ? "rackwise" : null);
        if (protocol.equals("classic")) {
            p.put(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, switch (assignor) {
                case "rackwise" -> "dev.rackwise.plugins.RackwiseAssignor";
                case "cooperative-sticky" -> "org.apache.kafka.clients.consumer.CooperativeStickyAssignor";
                case "range" -> "org.apache.kafka.clients.consumer.RangeAssignor";
                default -> assignor;
            });
        } else if (assignor != null) {
            p.put(GROUP_REMOTE_ASSIGNOR, assignor);
        }
        for (String kv : args.configs) {
            int eq = kv.indexOf('=');
            p.put(kv.substring(0, eq), kv.substring(eq + 1));
        }
        return p;
    }

    /** Kafka loads configured classes through the thread's context class loader: put the jar there. */
    static void loadPluginJar(String path) throws Exception {
        File jar = path != null ? new File(path) : defaultJar();
        if (jar == null || !jar.isFile()) {
            System.err.println("plugin-clients: no plug-in jar at " + jar + " (build it with `make plugins`)");
            return;
        }
        URLClassLoader loader = new URLClassLoader(new URL[] {jar.toURI().toURL()}, PluginConsumer.class.getClassLoader());
        Thread.currentThread().setContextClassLoader(loader);
    }

    /** target/classes -> the repository's plugins/target/rackwise-plugins.jar. */
    private static File defaultJar() throws Exception {
        File classes = new File(PluginConsumer.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        File repo = classes.getParentFile().getParentFile().getParentFile().getParentFile().getParentFile();
        return new File(repo, "plugins/target/rackwise-plugins.jar");
    }

    private static void report(KafkaConsumer<byte[], byte[]> consumer, Collection<TopicPartition> added,
                               Collection<TopicPartition> revoked, Collection<TopicPartition> lost) {
        Map<String, Object> e = new LinkedHashMap<>();
        e.put("member_id", consumer.groupMetadata().memberId());
        e.put("generation", consumer.groupMetadata().generationId());
        e.put("partitions", pairs(consumer.assignment()));
        e.put("added", pairs(added));
        e.put("revoked", pairs(revoked));
        e.put("lost", pairs(lost));
        emit("assignment", e);
    }

    private static List<Object> pairs(Collection<TopicPartition> tps) {
        List<TopicPartition> sorted = new ArrayList<>(tps);
        sorted.sort((a, b) -> a.topic().equals(b.topic()) ? Integer.compare(a.partition(), b.partition()) : a.topic().compareTo(b.topic()));
        List<Object> out = new ArrayList<>();
        for (TopicPartition tp : sorted) {
            out.add(List.of(tp.topic(), tp.partition()));
        }
        return out;
    }

    static synchronized void emit(String event, Map<String, ?> fields) {
        Map<String, Object> line = new LinkedHashMap<>();
        line.put("event", event);
        line.put("ts_ms", System.currentTimeMillis());
        line.putAll(fields);
        System.out.println(JsonLine.of(line));
        System.out.flush();
    }
}
