package dev.rackwise.plugins.broker;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;

class BrokerApiTest {
    @Test
    void theApiTheTestsRunOnIsRackAware() {
        // the jar is compiled against 4.1 and tested against RACKWISE_KAFKA_VERSION (>= 4.1)
        assertTrue(BrokerApi.rackAware());
        assertDoesNotThrow(BrokerApi::requireRackAwareApi);
        assertTrue(BrokerApi.kafkaVersion().matches("\\d+\\.\\d+\\.\\d+.*"), BrokerApi.kafkaVersion());
    }

    @Test
    void aBrokerWithoutRacksIsRefusedWithItsVersionNamed() {
        ConfigException e = assertThrows(ConfigException.class, () -> BrokerApi.check(false, "4.0.2"));
        assertTrue(e.getMessage().contains("Kafka 4.0.2"), e.getMessage());
        assertTrue(e.getMessage().contains("needs Kafka 4.1 or newer"), e.getMessage());
        assertDoesNotThrow(() -> BrokerApi.check(true, "4.1.2"));
    }

    @Test
    void theStreamsGroupAssignorListedOnABrokerWithoutKip1357IsRefused() {
        String listed = "sticky," + BrokerApi.STREAMS_GROUP_ASSIGNOR;
        ConfigException e = assertThrows(ConfigException.class,
            () -> BrokerApi.checkStreamsListed(listed, false, "4.3.1"));
        assertTrue(e.getMessage().contains("Kafka 4.3.1"), e.getMessage());
        assertTrue(e.getMessage().contains("4.4.0"), e.getMessage());
        assertDoesNotThrow(() -> BrokerApi.checkStreamsListed(listed, true, "4.4.0"));
        assertDoesNotThrow(() -> BrokerApi.checkStreamsListed(null, false, "4.3.1"));
        assertDoesNotThrow(() -> BrokerApi.checkStreamsListed("sticky", false, "4.3.1"));
    }

    @Test
    void kip1357IsPresentExactlyFrom44() {
        String[] v = BrokerApi.kafkaVersion().split("\\.");
        boolean from44 = Integer.parseInt(v[0]) > 4 || Integer.parseInt(v[0]) == 4 && Integer.parseInt(v[1]) >= 4;
        org.junit.jupiter.api.Assertions.assertEquals(from44, BrokerApi.streamsAssignors());
    }
}
