package dev.rackwise.plugins.streams;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import dev.rackwise.plugins.config.PluginConfig;
import dev.rackwise.plugins.advice.AdviceReader;
import dev.rackwise.plugins.advice.AdviceView;
import dev.rackwise.plugins.advice.HeldAdvice;
import dev.rackwise.plugins.publish.PlanPublisher;
import dev.rackwise.plugins.publish.TopicProbe;
import org.apache.kafka.clients.CommonClientConfigs;

/**
 * What a Streams application's task assignor holds besides Kafka's inputs, shared per config in
 * the application's JVM (Kafka Streams builds a new assignor on every rebalance): the agent's
 * advice (a background reader) and the plan reports (a background producer). Starting them
 * starts threads and nothing else: no call here waits.
 *
 * @param held    the advice reader's view, or null without one (tests)
 * @param reports the plan reports, or null without publishing (tests)
 */
public record StreamsLookups(AdviceView advice, HeldAdvice held, StreamsPlanReports reports) {
    /** Without advice or publishing. */
    public static final StreamsLookups NONE = new StreamsLookups(AdviceView.NONE, null, null);
    private static final Map<PluginConfig, StreamsLookups> SHARED = new ConcurrentHashMap<>();

    /** The shared lookups of this config, their background threads started on first use. */
    public static StreamsLookups start(PluginConfig config) {
        return SHARED.computeIfAbsent(config, StreamsLookups::create);
    }

    private static StreamsLookups create(PluginConfig config) {
        Map<String, Object> clients = new HashMap<>(config.settings().clientConfigs());
        clients.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, config.settings().bootstrapServers());
        clients.put(CommonClientConfigs.CLIENT_ID_CONFIG, config.settings().clientId());
        AdviceReader reader = new AdviceReader(config.advice(), AdviceReader.kafkaConsumers(clients));
        reader.start();
        HeldAdvice held = new HeldAdvice(reader, System::currentTimeMillis);
        PlanPublisher publisher = new PlanPublisher(config.settings().plansTopic(), PlanPublisher.DEFAULT_CAPACITY,
            PlanPublisher.kafkaProducers(clients), config.settings().backoffMs(), TopicProbe.kafka(clients));
        StreamsPlanReports reports = new StreamsPlanReports(PlanPublisher.DEFAULT_CAPACITY, publisher, held).start();
        return new StreamsLookups(held, held, reports);
    }
}
