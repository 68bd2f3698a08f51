package dev.rackwise.plugins.classic;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import dev.rackwise.plugins.config.PluginConfig;
import dev.rackwise.plugins.advice.AdviceReader;
import dev.rackwise.plugins.advice.AdviceView;
import dev.rackwise.plugins.advice.HeldAdvice;
import dev.rackwise.plugins.publish.PlanPublisher;
import dev.rackwise.plugins.publish.PlanReports;
import dev.rackwise.plugins.publish.PlanSink;
import dev.rackwise.plugins.publish.TopicProbe;
import org.apache.kafka.clients.CommonClientConfigs;

/**
 * What a classic group's leader holds besides Kafka's inputs, shared per config in the
 * application's JVM: the agent's advice (a background reader) and the plan publisher (a
 * background producer). Starting them starts threads and nothing else: no call here waits.
 */
public record ClassicLookups(AdviceView advice, PlanSink plans, HeldAdvice held, PlanReports reports) {
    /** Without advice or publishing. */
    public static final ClassicLookups NONE = new ClassicLookups(AdviceView.NONE, PlanSink.NONE, null, null);
    private static final Map<PluginConfig, ClassicLookups> SHARED = new ConcurrentHashMap<>();

    public ClassicLookups(AdviceView advice, PlanSink plans) {
        this(advice, plans, null, null);
    }

    /** The shared lookups of this config, their background threads started on first use. */
    public static ClassicLookups start(PluginConfig config) {
        return SHARED.computeIfAbsent(config, ClassicLookups::create);
    }

    private static ClassicLookups create(PluginConfig config) {
        Map<String, Object> clients = new HashMap<>(config.settings().clientConfigs());
        clients.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, config.settings().bootstrapServers());
        clients.put(CommonClientConfigs.CLIENT_ID_CONFIG, config.settings().clientId());
        AdviceReader reader = new AdviceReader(config.advice(), AdviceReader.kafkaConsumers(clients));
        reader.start();
        HeldAdvice held = new HeldAdvice(reader, System::currentTimeMillis);
        PlanPublisher publisher = new PlanPublisher(config.settings().plansTopic(), PlanPublisher.DEFAULT_CAPACITY,
            PlanPublisher.kafkaProducers(clients), config.settings().backoffMs(),
            TopicProbe.kafka(clients));
        PlanReports reports = new PlanReports(PlanPublisher.DEFAULT_CAPACITY, publisher, new PlanReports.Names() {
            @Override
            public String topic(String key) {
                return key; // classic groups speak topic names already
            }

            @Override
            public Optional<String> group(java.util.Set<String> memberIds) {
                return Optional.empty(); // the leader knows its group.id: it is always given
            }
        }, held).start();
        return new ClassicLookups(held, reports, held, reports);
    }
}
