package dev.rackwise.plugins.config;

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
        assertEquals(10000, s.backoffMs());
        assertEquals("rackwise.plans", s.plansTopic());
        assertEquals(Map.of("security.protocol", "SASL_PLAINTEXT", "sasl.mechanism", "PLAIN"), s.clientConfigs());

        c.put("rackwise.bootstrap.servers", "agent:9092");
        c.put("rackwise.backoff.ms", "250");
        c.put("rackwise.plans.topic", "p");
        c.put("rackwise.security.protocol", "SSL");
        c.put("rackwise.ssl.truststore.location", "/ts");
        c.put("rackwise.unrelated", "x");
        s = Settings.parse(c, "a:1", Map.of("security.protocol", "PLAINTEXT"), "rackwise-g");
        assertEquals("agent:9092", s.bootstrapServers());
        assertEquals(250, s.backoffMs());
        assertEquals("p", s.plansTopic());
        assertEquals(Map.of("security.protocol", "SSL", "ssl.truststore.location", "/ts"), s.clientConfigs());
        assertEquals(Map.of("ssl.x", "y"), Settings.inheritedSecurity(Map.of("ssl.x", "y", "acks", "all")));
    }

    @Test
    void rejectsBadValues() {
        assertThrows(ConfigException.class, () -> Settings.parse(Map.of(), null, Map.of(), "x"));
        assertThrows(ConfigException.class, () -> Settings.parse(Map.of("rackwise.backoff.ms", "soon"), "a:1", Map.of(), "x"));
        assertThrows(ConfigException.class, () -> Settings.parse(Map.of("rackwise.backoff.ms", "0"), "a:1", Map.of(), "x"));
    }
}
