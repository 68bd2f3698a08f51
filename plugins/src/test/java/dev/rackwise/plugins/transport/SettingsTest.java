package dev.rackwise.plugins.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;

class SettingsTest {
    @Test
    void defaultsAndOverrides() {
        Map<String, Object> c = new HashMap<>();
        c.put("bootstrap.servers", List.of("a:1", "b:2"));
        Settings s = Settings.parse(c, Settings.string(c.get("bootstrap.servers")),
            Map.of("security.protocol", "SASL_PLAINTEXT", "sasl.mechanism", "PLAIN"), "rackwise-g");
        assertEquals("a:1,b:2", s.bootstrapServers());
        assertEquals(5000, s.timeoutMs());
        assertEquals(10000, s.backoffMs());
        assertEquals("rackwise.requests", s.requestsTopic());
        assertEquals("rackwise.plans", s.plansTopic());
        assertEquals("rackwise.deadletter", s.deadletterTopic());
        assertEquals(Map.of("security.protocol", "SASL_PLAINTEXT", "sasl.mechanism", "PLAIN"), s.clientConfigs());

        c.put("rackwise.bootstrap.servers", "agent:9092");
        c.put("rackwise.timeout.ms", 750);
        c.put("rackwise.backoff.ms", "0");
        c.put("rackwise.plans.topic", "p");
        c.put("rackwise.security.protocol", "SSL");
        c.put("rackwise.ssl.truststore.location", "/ts");
        c.put("rackwise.unrelated", "x");
        s = Settings.parse(c, "a:1", Map.of("security.protocol", "PLAINTEXT"), "rackwise-g");
        assertEquals("agent:9092", s.bootstrapServers());
        assertEquals(750, s.timeoutMs());
        assertEquals(0, s.backoffMs());
        assertEquals("p", s.plansTopic());
        assertEquals(Map.of("security.protocol", "SSL", "ssl.truststore.location", "/ts"), s.clientConfigs());
    }

    @Test
    void rejectsBadValues() {
        assertThrows(ConfigException.class, () -> Settings.parse(Map.of(), null, Map.of(), "x"));
        assertThrows(ConfigException.class, () -> Settings.parse(Map.of("rackwise.timeout.ms", "soon"), "a:1", Map.of(), "x"));
        assertThrows(ConfigException.class, () -> Settings.parse(Map.of("rackwise.timeout.ms", "0"), "a:1", Map.of(), "x"));
    }

    /** The same numbers agent/routing.py's group_partition gives (checked there by hand). */
    @Test
    void partitionIsJavasDefaultPartitionersForTheKey() {
        assertEquals(List.of(0, 2, 2, 8), List.of(1, 3, 6, 12).stream()
            .map(n -> KafkaTransport.partitionFor("rackwise-it-java", n)).toList());
        assertEquals(List.of(0, 0, 3, 9), List.of(1, 3, 6, 12).stream()
            .map(n -> KafkaTransport.partitionFor("", n)).toList());
        assertEquals(List.of(0, 1, 1, 1), List.of(1, 3, 6, 12).stream()
            .map(n -> KafkaTransport.partitionFor("gr\u00fcppe", n)).toList());
    }
}
