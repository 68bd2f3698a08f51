package dev.rackwise.testapp;

import java.lang.reflect.Field;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.TreeSet;
import java.util.concurrent.CountDownLatch;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TaskMetadata;
import org.apache.kafka.streams.ThreadMetadata;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.processor.StandbyUpdateListener;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * A Kafka Streams application for the KIP-924 task assignor tests: a stateful count over
 * {@code input} (a RocksDB store with a changelog) and a stateless copy of {@code stateless} to
 * {@code output}, so it has one stateful and one stateless subtopology.
 *
 * <p>Arguments {@code key=value}: {@code bootstrap=}, {@code app=}, {@code rack=} (client.rack),
 * {@code input=}, {@code stateless=}, {@code output=}, {@code strategy=min_traffic} (the
 * rack.aware.assignment.strategy; {@code unset} leaves it to Kafka's default), {@code state-dir=} (default: a fresh temp
 * dir, i.e. no state), {@code assignor=rackwise|default} ({@code rackwise}:
 * task.assignor.class=dev.rackwise.plugins.RackwiseTaskAssignor, the plug-in jar must be on the
 * classpath), {@code standbys=1}, {@code recovery-lag=10000}, {@code probing-ms=600000},
 * {@code threads=1}, {@code config=KEY=VALUE} (repeatable, any Streams or client setting),
 * {@code standby-ms-per-record=0}: when above 0, the standby update listener sleeps that long per
 * restored record, so a warm-up replica takes a predictable while to catch up (a large state in
 * miniature; the HA test needs it to outlast the cooperative follow-up rebalance that comes right
 * after a join, yet to finish before the probing rebalance). Kafka advances the standby's offsets
 * before the listener runs, so the sleep only paces the batches after the first: pair it with a
 * small {@code config=restore.consumer.max.poll.records=...}. {@code hold=false}: when true the
 * client is built but only started on the first stdin line (a JVM warmed up ahead of its join).
 *
 * <p>stdout: one JSON line whenever its own view of its tasks changes (and on each stdin line;
 * the line {@code fetch} prints instead what its main consumers fetched per broker, from their own
 * metrics: {@code {"event":"fetch","process_id":..,"nodes":{"node-1":123456},"topics":{"in":120000},"lag":0}}: lag is
 * the largest records-lag of its partitions now):
 * <pre>{"event":"tasks","ts_ms":...,"state":"RUNNING","process_id":"uuid","rack":"az1",
 *  "active":["0_0","1_1"],"standby":["0_2"],"rackwise":"computed=2 fallbacks={}"}</pre>
 * {@code rackwise} is the plug-in's count for this application in this JVM (only the group
 * leader's grows), or null. It stops on stdin EOF.
 */
public final class TaskApp {
    private TaskApp() {
    }

    public static void main(String[] args) throws Exception {
        String bootstrap = null, app = null, rack = null, input = null, stateless = null, output = null;
        String stateDir = null, assignor = "rackwise", strategy = "min_traffic";
        boolean hold = false;
        int standbys = 1, threads = 1;
        long recoveryLag = 10_000, probingMs = 600_000, standbyMsPerRecord = 0;
        List<String[]> extra = new ArrayList<>();
        for (String arg : args) {
            int eq = arg.indexOf('=');
            String k = arg.substring(0, eq), v = arg.substring(eq + 1);
            switch (k) {
                case "bootstrap" -> bootstrap = v;
                case "app" -> app = v;
                case "rack" -> rack = v;
                case "input" -> input = v;
                case "stateless" -> stateless = v;
                case "output" -> output = v;
                case "state-dir" -> stateDir = v;
                case "assignor" -> assignor = v;
                case "strategy" -> strategy = v;
                case "standbys" -> standbys = Integer.parseInt(v);
                case "threads" -> threads = Integer.parseInt(v);
                case "recovery-lag" -> recoveryLag = Long.parseLong(v);
                case "probing-ms" -> probingMs = Long.parseLong(v);
                case "standby-ms-per-record" -> standbyMsPerRecord = Long.parseLong(v);
                case "hold" -> hold = Boolean.parseBoolean(v);
                case "config" -> {
                    int e2 = v.indexOf('=');
                    extra.add(new String[] {v.substring(0, e2), v.substring(e2 + 1)});
                }
                default -> throw new IllegalArgumentException("unknown argument " + k);
            }
        }
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, app);
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(StreamsConfig.CLIENT_ID_CONFIG, app + "-" + rack);
        props.put(StreamsConfig.STATE_DIR_CONFIG,
            stateDir != null ? stateDir : Files.createTempDirectory("taskapp-" + rack).toString());
        props.put(StreamsConfig.NUM_STANDBY_REPLICAS_CONFIG, standbys);
        props.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, threads);
        props.put(StreamsConfig.ACCEPTABLE_RECOVERY_LAG_CONFIG, recoveryLag);
        props.put(StreamsConfig.PROBING_REBALANCE_INTERVAL_MS_CONFIG, probingMs);
        if (!"unset".equals(strategy)) {
            props.put(StreamsConfig.RACK_AWARE_ASSIGNMENT_STRATEGY_CONFIG, strategy);
        }
        props.put(StreamsConfig.consumerPrefix("client.rack"), rack);
        props.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, 3);
        props.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 500);
        props.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, 0);  // every update reaches the changelog
        props.put(StreamsConfig.DEFAULT_KEY_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
        props.put(StreamsConfig.DEFAULT_VALUE_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
        props.put(StreamsConfig.consumerPrefix("session.timeout.ms"), 10000);
        props.put(StreamsConfig.consumerPrefix("heartbeat.interval.ms"), 1000);
        if ("rackwise".equals(assignor)) {
            props.put(StreamsConfig.TASK_ASSIGNOR_CLASS_CONFIG, "dev.rackwise.plugins.RackwiseTaskAssignor");
        }
        for (String[] kv : extra) {
            props.put(kv[0], kv[1]);
        }

        StreamsBuilder builder = new StreamsBuilder();
        builder.<String, String>stream(input).groupByKey()
            .count(Materialized.<String, Long, KeyValueStore<Bytes, byte[]>>as("counts"))
            .toStream().mapValues(Object::toString).to(output, Produced.with(Serdes.String(), Serdes.String()));
        if (stateless != null) {
            builder.<String, String>stream(stateless).mapValues(v -> v + "!").to(output);
        }

        KafkaStreams streams = new KafkaStreams(builder.build(), props);
        Reporter reporter = new Reporter(streams, app, rack);
        streams.setStateListener((now, before) -> reporter.report(false));
        if (standbyMsPerRecord > 0) {
            streams.setStandbyUpdateListener(new SlowStandbys(standbyMsPerRecord));
        }
        CountDownLatch done = new CountDownLatch(1);
        boolean[] held = {hold};
        Thread stdin = new Thread(() -> {
            try {
                java.io.BufferedReader in = new java.io.BufferedReader(new java.io.InputStreamReader(System.in));
                String line;
                while ((line = in.readLine()) != null) {
                    if (held[0]) {
                        held[0] = false;
                        streams.start();
                        continue;
                    }
                    if (line.trim().equals("fetch")) {
                        reporter.fetch();
                        continue;
                    }
                    reporter.report(true);
                }
            } catch (Exception ignored) {
                // EOF or closed stdin: shut down
            }
            done.countDown();
        }, "stdin");
        stdin.setDaemon(true);
        Thread poll = new Thread(() -> {
            while (done.getCount() > 0) {
                reporter.report(false);
                try {
                    Thread.sleep(300);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "reporter");
        poll.setDaemon(true);
        if (!hold) {
            streams.start();
        }
        stdin.start();
        poll.start();
        done.await();
        streams.close(Duration.ofSeconds(20));
    }

    /** Sleeps per restored standby record (runs on the thread that restores standbys). */
    static final class SlowStandbys implements StandbyUpdateListener {
        private final long msPerRecord;

        SlowStandbys(long msPerRecord) {
            this.msPerRecord = msPerRecord;
        }

        @Override
        public void onUpdateStart(TopicPartition partition, String storeName, long startingOffset) {
        }

        @Override
        public void onBatchLoaded(TopicPartition partition, String storeName, TaskId taskId, long batchEndOffset,
                                  long batchSize, long currentEndOffset) {
            try {
                Thread.sleep(batchSize * msPerRecord);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        @Override
        public void onUpdateSuspended(TopicPartition partition, String storeName, long storeOffset,
                                      long currentEndOffset, SuspendReason reason) {
        }
    }

    /** Prints the app's own view of its tasks when it changed (or when asked). */
    static final class Reporter {
        private final KafkaStreams streams;
        private final String app;
        private final String rack;
        private String last = "";

        Reporter(KafkaStreams streams, String app, String rack) {
            this.streams = streams;
            this.app = app;
            this.rack = rack;
        }

        synchronized void report(boolean always) {
            TreeSet<String> active = new TreeSet<>(), standby = new TreeSet<>();
            try {
                for (ThreadMetadata thread : streams.metadataForLocalThreads()) {
                    for (TaskMetadata task : thread.activeTasks()) {
                        active.add(task.taskId().toString());
                    }
                    for (TaskMetadata task : thread.standbyTasks()) {
                        standby.add(task.taskId().toString());
                    }
                }
            } catch (RuntimeException e) {
                return; // not started yet, or closing
            }
            String body = "\"state\":\"" + streams.state() + "\",\"process_id\":\"" + processId() + "\",\"rack\":\""
                + rack + "\",\"active\":" + list(active) + ",\"standby\":" + list(standby) + ",\"rackwise\":"
                + stats();
            if (always || !body.equals(last)) {
                last = body;
                String wire = always ? ",\"fetched\":" + fetched() : "";
                System.out.println("{\"event\":\"tasks\",\"ts_ms\":" + System.currentTimeMillis() + "," + body
                    + wire + "}");
                System.out.flush();
            }
        }

        /**
         * The main consumers' own {@code consumer-node-metrics} {@code incoming-byte-total} per
         * broker (node id), summed over the stream threads: what this process fetched from where.
         * The restore consumer (standbys, restoration) is left out.
         */
        synchronized void fetch() {
            java.util.TreeMap<String, Double> nodes = new java.util.TreeMap<>();
            java.util.TreeMap<String, Double> topics = new java.util.TreeMap<>();
            double lag = 0;
            for (var e : streams.metrics().entrySet()) {
                var name = e.getKey();
                String client = name.tags().getOrDefault("client-id", "");
                if (!client.endsWith("-consumer") || client.endsWith("-restore-consumer")) {
                    continue;
                }
                Object v = e.getValue().metricValue();
                if (!(v instanceof Number n)) {
                    continue;
                }
                if (name.group().equals("consumer-node-metrics") && name.name().equals("incoming-byte-total")) {
                    nodes.merge(name.tags().getOrDefault("node-id", "?"), n.doubleValue(), Double::sum);
                } else if (name.group().equals("consumer-fetch-manager-metrics")
                    && name.name().equals("bytes-consumed-total") && name.tags().containsKey("topic")
                    && !name.tags().containsKey("partition")) {
                    topics.merge(name.tags().get("topic"), n.doubleValue(), Double::sum);
                } else if (name.group().equals("consumer-fetch-manager-metrics") && name.name().equals("records-lag")
                    && name.tags().containsKey("partition") && !Double.isNaN(n.doubleValue())) {
                    lag = Math.max(lag, n.doubleValue());
                }
            }
            System.out.println("{\"event\":\"fetch\",\"ts_ms\":" + System.currentTimeMillis() + ",\"process_id\":\""
                + processId() + "\",\"rack\":\"" + rack + "\",\"nodes\":" + numbers(nodes) + ",\"topics\":"
                + numbers(topics) + ",\"lag\":" + (long) lag + "}");
            System.out.flush();
        }

        private static String numbers(java.util.Map<String, Double> m) {
            List<String> out = new ArrayList<>();
            m.forEach((k, v) -> out.add("\"" + k + "\":" + v.longValue()));
            return "{" + String.join(",", out) + "}";
        }

        /**
         * Bytes the main consumers (not the restore consumer) received per broker node id so far:
         * {@code consumer-node-metrics incoming-byte-total}. Almost all of it is fetch responses, so
         * it shows which brokers (racks) the active tasks read from. Only in reports asked for.
         */
        private String fetched() {
            java.util.TreeMap<String, Double> byNode = new java.util.TreeMap<>();
            try {
                streams.metrics().forEach((name, metric) -> {
                    String client = name.tags().getOrDefault("client-id", "");
                    String node = name.tags().get("node-id");
                    if ("consumer-node-metrics".equals(name.group()) && "incoming-byte-total".equals(name.name())
                            && node != null && client.endsWith("-consumer") && !client.endsWith("-restore-consumer")
                            && metric.metricValue() instanceof Double v) {
                        byNode.merge(node.replace("node-", ""), v, Double::sum);
                    }
                });
            } catch (RuntimeException e) {
                return "null";
            }
            List<String> parts = new ArrayList<>();
            byNode.forEach((node, v) -> parts.add("\"" + node + "\":" + Math.round(v)));
            return "{" + String.join(",", parts) + "}";
        }

        private String processId() {
            try {
                Field f = KafkaStreams.class.getDeclaredField("processId");
                f.setAccessible(true);
                return String.valueOf(f.get(streams));
            } catch (ReflectiveOperationException | RuntimeException e) {
                return "?";
            }
        }

        private String stats() {
            try {
                Object s = Class.forName("dev.rackwise.plugins.RackwiseTaskAssignor")
                    .getMethod("statsFor", String.class).invoke(null, app);
                return s == null ? "null" : "\"" + s + "\"";
            } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
                return "null";
            }
        }

        private static String list(TreeSet<String> items) {
            List<String> quoted = new ArrayList<>();
            for (String s : items) {
                quoted.add("\"" + s + "\"");
            }
            return "[" + String.join(",", quoted) + "]";
        }
    }
}
