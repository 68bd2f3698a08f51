package dev.rackwise.plugins.request;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;

import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Subscription;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class RequestCodecTest {
    /**
     * The golden request. tests/unit/test_request_codec.py decodes the same checked-in hex
     * (src/test/resources/assign-request-v0.hex) with protocol/request.py.
     */
    static AssignRequest golden() {
        Subscription m1 = new Subscription(List.of("orders", "payments"), null,
            List.of(new TopicPartition("orders", 0), new TopicPartition("orders", 1)), 5, Optional.of("az1"));
        Subscription m2 = new Subscription(List.of("orders"), ByteBuffer.wrap(new byte[] {1, 2}), List.of(), -1,
            Optional.empty());
        return new AssignRequest(RequestProtocol.CLASSIC_COOPERATIVE,
            List.of(new RequestTopic("orders", 6), new RequestTopic("payments", 3)),
            List.of(new RequestMember("m1", null, m1), new RequestMember("m2-\u00fc", "i-2", m2)));
    }

    static String goldenHex() throws IOException {
        try (InputStream in = RequestCodecTest.class.getResourceAsStream("/assign-request-v0.hex")) {
            return new String(in.readAllBytes(), StandardCharsets.US_ASCII).strip();
        }
    }

    @Test
    void encodesTheGoldenBytes() throws IOException {
        assertEquals(goldenHex(), HexFormat.of().formatHex(RequestCodec.encode(golden())));
    }

    @Test
    void headerIsHandBuilt() {
        AssignRequest empty = new AssignRequest(RequestProtocol.CONSUMER, List.of(), List.of());
        byte[] expected = HexFormat.of().parseHex(
            "0000"                      // version 0
            + "0008" + "636f6e73756d6572" // protocol "consumer"
            + "00000000"                // topics: 0
            + "00000000");              // members: 0
        assertArrayEquals(expected, RequestCodec.encode(empty));
    }

    @Test
    void decodesWhatItEncodes() throws IOException {
        AssignRequest back = RequestCodec.decode(ByteBuffer.wrap(HexFormat.of().parseHex(goldenHex())));
        assertEquals(RequestProtocol.CLASSIC_COOPERATIVE, back.protocol());
        assertEquals(golden().topics(), back.topics());
        assertEquals(2, back.members().size());
        RequestMember m1 = back.members().get(0);
        assertEquals("m1", m1.memberId());
        assertNull(m1.instanceId());
        assertEquals(List.of("orders", "payments"), m1.subscription().topics());
        assertEquals(List.of(new TopicPartition("orders", 0), new TopicPartition("orders", 1)),
            m1.subscription().ownedPartitions());
        assertEquals(Optional.of(5), m1.subscription().generationId());
        assertEquals(Optional.of("az1"), m1.subscription().rackId());
        RequestMember m2 = back.members().get(1);
        assertEquals("m2-\u00fc", m2.memberId());
        assertEquals("i-2", m2.instanceId());
        assertEquals(ByteBuffer.wrap(new byte[] {1, 2}), m2.subscription().userData());
        assertEquals(Optional.empty(), m2.subscription().rackId());
    }

    @Test
    void rejectsMalformedInput() throws IOException {
        byte[] good = HexFormat.of().parseHex(goldenHex());
        assertThrows(IllegalArgumentException.class, () -> RequestCodec.decode(ByteBuffer.wrap(new byte[] {0})));
        byte[] truncated = java.util.Arrays.copyOf(good, good.length - 1);
        assertThrows(RuntimeException.class, () -> RequestCodec.decode(ByteBuffer.wrap(truncated)));
        byte[] trailing = java.util.Arrays.copyOf(good, good.length + 1);
        assertThrows(IllegalArgumentException.class, () -> RequestCodec.decode(ByteBuffer.wrap(trailing)));
        byte[] version1 = good.clone();
        version1[1] = 1;
        assertThrows(IllegalArgumentException.class, () -> RequestCodec.decode(ByteBuffer.wrap(version1)));
    }
}
