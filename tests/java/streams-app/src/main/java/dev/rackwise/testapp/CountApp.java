package dev.rackwise.testapp;

import java.nio.file.Files;
import java.time.Duration;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CountDownLatch;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.ThreadMetadata;
import org.apache.kafka.streams.TaskMetadata;
import org.apache.kafka.streams.kstream.Produced;

/**
 * A stateful count over an input topic, run as one Streams client.
 *
 * Args: bootstrap applicationId clientRack inputTopic outputTopic [groupProtocol].
 * groupProtocol "streams" joins a KIP-1071 streams group (default: the classic protocol);
 * the assignment settings then belong to the group on the broker, so they are not set.
 * Whenever the client is RUNNING it prints one JSON line with its own view of its
 * assignment: {"rack":..., "active":{"0_1":["topic-1"]}, "standby":{...}}. It stops on
 * stdin EOF, so the test controls its lifetime.
 */
public final class CountApp {
    private CountApp() {}

    public static void main(String[] args) throws Exception {
        String bootstrap = args[0], appId = args[1], rack = args[2], input = args[3], output = args[4];
        boolean streamsGroup = args.length > 5 && args[5].equals("streams");
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, appId);
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(StreamsConfig.CLIENT_ID_CONFIG, appId + "-" + rack);
        props.put(StreamsConfig.STATE_DIR_CONFIG, Files.createTempDirectory("streams-" + rack).toString());
        props.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, 1);
        props.put(StreamsConfig.consumerPrefix("client.rack"), rack);
        if (streamsGroup) {
            props.put("group.protocol", "streams"); // by name: the app builds against Streams 3.8 too
            props.put("client.rack", rack);  // KIP-1071 sends the Streams client's own rack
        } else {
            props.put(StreamsConfig.NUM_STANDBY_REPLICAS_CONFIG, 1);
            props.put(StreamsConfig.RACK_AWARE_ASSIGNMENT_STRATEGY_CONFIG, StreamsConfig.RACK_AWARE_ASSIGNMENT_STRATEGY_MIN_TRAFFIC);
        }
        props.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, 3);
        props.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 500);
        props.put(StreamsConfig.DEFAULT_KEY_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
        props.put(StreamsConfig.DEFAULT_VALUE_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
        if (!streamsGroup) {  // a streams group's session is the broker's to set
            props.put(StreamsConfig.consumerPrefix("session.timeout.ms"), 10000);
            props.put(StreamsConfig.consumerPrefix("heartbeat.interval.ms"), 1000);
        }

        StreamsBuilder builder = new StreamsBuilder();
        builder.<String, String>stream(input).groupByKey().count()
               .toStream().mapValues(Object::toString).to(output, Produced.with(Serdes.String(), Serdes.String()));

        KafkaStreams streams = new KafkaStreams(builder.build(), props);
        streams.setStateListener((now, before) -> {
            if (now == KafkaStreams.State.RUNNING) {
                report(streams, rack);
            }
        });
        CountDownLatch done = new CountDownLatch(1);
        Thread stdinWatcher = new Thread(() -> {
            try {
                while (System.in.read() != -1) {
                    report(streams, rack);
                }
            } catch (Exception ignored) {
                // EOF or closed stdin: shut down
            }
            done.countDown();
        });
        stdinWatcher.setDaemon(true);
        streams.start();
        stdinWatcher.start();
        done.await();
        streams.close(Duration.ofSeconds(20));
    }

    private static synchronized void report(KafkaStreams streams, String rack) {
        StringBuilder active = new StringBuilder(), standby = new StringBuilder();
        for (ThreadMetadata thread : streams.metadataForLocalThreads()) {
            for (TaskMetadata task : thread.activeTasks()) append(active, task);
            for (TaskMetadata task : thread.standbyTasks()) append(standby, task);
        }
        System.out.println("{\"state\":\"" + streams.state() + "\",\"rack\":\"" + rack + "\",\"active\":{" + active
                + "},\"standby\":{" + standby + "}}");
        System.out.flush();
    }

    private static void append(StringBuilder out, TaskMetadata task) {
        if (out.length() > 0) out.append(',');
        Set<String> parts = new TreeSet<>();
        for (TopicPartition tp : task.topicPartitions()) parts.add("\"" + tp.topic() + "-" + tp.partition() + "\"");
        out.append('"').append(task.taskId()).append("\":[").append(String.join(",", parts)).append(']');
    }
}
