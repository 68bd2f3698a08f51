package dev.rackwise.plugins.advice;

/** Advice values as protocol/advice.py writes them (tests/unit/agent/test_advice.py checks that side). */
final class AdviceRecords {
    static final long T = 1_795_567_200_000L;  // 2026-11-25T00:40:00Z

    private AdviceRecords() {
    }

    static String topic(String name, long at, String partitions) {
        return "{\"schema_version\":1,\"kind\":\"topic\",\"topic\":\"" + name + "\","
            + "\"measured_at\":\"2026-11-25T00:40:00.000Z\",\"measured_at_ms\":" + at + ",\"partitions\":[" + partitions + "]}";
    }

    static String orders(long at) {
        return topic("orders", at, "{\"partition\":0,\"bytes_per_s\":5000.0,\"leader\":1,\"leader_rack\":\"az1\"},"
            + "{\"partition\":1,\"bytes_per_s\":1000.0,\"leader\":2,\"leader_rack\":\"az2\"},"
            + "{\"partition\":2,\"bytes_per_s\":0.0,\"leader\":3,\"leader_rack\":null}");
    }

    static String group(String pattern, int priority, String assignor, long at) {
        return "{\"schema_version\":1,\"kind\":\"group\",\"pattern\":\"" + pattern + "\",\"priority\":" + priority
            + ",\"assignor\":\"" + assignor + "\",\"config\":{\"non_overlap_cost\":1,\"traffic_cost\":10},"
            + "\"updated_at\":\"2026-11-25T00:40:00.000Z\",\"updated_at_ms\":" + at + "}";
    }
}
