package dev.rackwise.plugins.streams;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.zip.GZIPInputStream;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.assignment.TaskTopicPartition;
import org.junit.jupiter.api.Test;

class StreamsRequestTest {
    static final Path GOLDEN = Path.of("src/test/resources/streams-request-v1.json");

    /** The golden request: tests/unit/test_streams_request.py decodes the same file. */
    @Test
    void encodesTheGoldenRequest() throws IOException {
        String json = StreamsRequest.of("orders-app", FakeApplicationState.sample()).toJson();
        if (System.getenv("RACKWISE_WRITE_GOLDEN") != null) {
            Files.writeString(GOLDEN, json + "\n");
        }
        assertEquals(Files.readString(GOLDEN).strip(), json);
    }

    @Test
    void lagsDifferingFromTheTaskDefaultAreListedPerProcess() {
        StreamsRequest req = StreamsRequest.of("a", FakeApplicationState.sample());
        Map<TaskId, Long> defaults = req.defaultLags();
        assertEquals(500L, defaults.get(new TaskId(0, 1)));
        assertEquals(500L, defaults.get(new TaskId(0, 2)));
        // 0_0: -2, 0 and 500 once each: the tie goes to the larger value
        assertEquals(500L, defaults.get(new TaskId(0, 0)));
        String json = req.toJson();
        assertTrue(json.contains("\"lags\":{\"0_0\":-2}"), json);
        assertTrue(json.contains("\"lags\":{\"0_0\":0,\"0_1\":-2}"), json);
        assertTrue(json.contains("\"lags\":{}"), json);
    }

    @Test
    void escapesStringsAndCompressesLargeRequests() throws IOException {
        FakeApplicationState s = new FakeApplicationState();
        for (int p = 0; p < 3000; p++) {
            s.task(0, p, "in\"put\\\n", Set.of("az1", "az2"), "app-very-long-store-name-changelog", Set.of("az3"));
        }
        s.process(1, 1, "az\u0001", Set.of(), Set.of(), Map.of());
        StreamsRequest req = StreamsRequest.of("app", s);
        String json = req.toJson();
        assertTrue(json.contains("\"topic\":\"in\\\"put\\\\\\n\""));
        assertTrue(json.contains("\"rack\":\"az\\u0001\""));
        byte[] value = req.encode();
        assertTrue(json.length() > StreamsRequest.COMPRESS_ABOVE);
        assertEquals((byte) 0x1f, value[0]);
        assertEquals((byte) 0x8b, value[1]);
        try (GZIPInputStream in = new GZIPInputStream(new ByteArrayInputStream(value))) {
            assertArrayEquals(json.getBytes(StandardCharsets.UTF_8), in.readAllBytes());
        }
    }

    @Test
    void unknownRacksAreNullAndNamedTopologiesUnsupported() {
        StreamsRequest req = StreamsRequest.of("a", FakeApplicationState.sample());
        assertTrue(req.toJson().contains("{\"topic\":\"app-store-changelog\",\"partition\":2,\"source\":false,"
            + "\"changelog\":true,\"racks\":null}"));

        FakeApplicationState named = new FakeApplicationState();
        TaskId id = new TaskId(0, 0, "topo");
        Set<TaskTopicPartition> parts = new HashSet<>();
        parts.add(new FakeApplicationState.Part(new TopicPartition("in", 0), true, false, null));
        named.tasks.put(id, new FakeApplicationState.Task(id, false, parts));
        assertThrows(StreamsRequest.UnsupportedRequestException.class, () -> StreamsRequest.of("a", named));
    }
}
