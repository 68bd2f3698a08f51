package dev.rackwise.golden;

import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Assignment;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Subscription;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.consumer.StickyAccess;
import org.apache.kafka.clients.consumer.StickyAssignor;
import org.apache.kafka.clients.consumer.internals.AbstractStickyAssignor.MemberData;
import org.apache.kafka.clients.consumer.internals.ConsumerProtocol;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.ConsumerProtocolAssignment;
import org.apache.kafka.common.message.ConsumerProtocolSubscription;
import org.apache.kafka.streams.internals.generated.SubscriptionInfoData;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.assignment.ProcessId;
import org.apache.kafka.streams.processor.internals.assignment.AssignmentInfo;
import org.apache.kafka.streams.processor.internals.assignment.SubscriptionInfo;
import org.apache.kafka.streams.state.HostInfo;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.reflect.Field;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;

/**
 * Golden vectors from the real Kafka classes.
 *
 * <p>{@code write}: one JSON line per vector, {@code {"kind", "name", "hex", "reencode", "read"}},
 * where "read" is what the same Java classes decode from those bytes.
 * {@code decode}: stdin lines {@code KIND HEX}; one JSON line each, {@code {"ok": true, "read": ...}}
 * or {@code {"ok": false, "error": ...}}.
 */
public final class Main {
    private static final PrintStream OUT = new PrintStream(System.out, false, StandardCharsets.UTF_8);

    public static void main(String[] args) throws Exception {
        String mode = args.length > 0 ? args[0] : "write";
        if (mode.equals("write")) {
            write();
        } else if (mode.equals("decode")) {
            decode();
        } else {
            throw new IllegalArgumentException("mode: write | decode");
        }
        OUT.flush();
    }

    // ---------------------------------------------------------------- JSON (tiny, ASCII-safe)

    static String q(String s) {
        if (s == null) return "null";
        StringBuilder b = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\') b.append('\\').append(c);
            else if (c < 0x20 || c > 0x7e) b.append(String.format("\\u%04x", (int) c));
            else b.append(c);
        }
        return b.append('"').toString();
    }

    static String hex(ByteBuffer buf) {
        if (buf == null) return null;
        ByteBuffer d = buf.duplicate();
        StringBuilder b = new StringBuilder();
        while (d.hasRemaining()) b.append(String.format("%02x", d.get() & 0xff));
        return b.toString();
    }

    static String hex(byte[] bytes) {
        return bytes == null ? null : hex(ByteBuffer.wrap(bytes));
    }

    static ByteBuffer unhex(String h) {
        byte[] out = new byte[h.length() / 2];
        for (int i = 0; i < out.length; i++) out[i] = (byte) Integer.parseInt(h.substring(2 * i, 2 * i + 2), 16);
        return ByteBuffer.wrap(out);
    }

    static String arr(List<String> items) {
        return "[" + String.join(",", items) + "]";
    }

    static String obj(String... kv) {
        StringBuilder b = new StringBuilder("{");
        for (int i = 0; i < kv.length; i += 2) {
            if (i > 0) b.append(',');
            b.append(q(kv[i])).append(':').append(kv[i + 1]);
        }
        return b.append('}').toString();
    }

    static String ints(List<Integer> xs) {
        List<String> s = new ArrayList<>();
        for (Integer x : xs) s.add(String.valueOf(x));
        return arr(s);
    }

    static String tps(Iterable<TopicPartition> tps) {
        List<String> s = new ArrayList<>();
        for (TopicPartition tp : tps) s.add("[" + q(tp.topic()) + "," + tp.partition() + "]");
        return arr(s);
    }

    // ---------------------------------------------------------------- what Java reads

    static String readSubscription(ByteBuffer buf) {
        short version = ConsumerProtocol.deserializeVersion(buf.duplicate());
        ConsumerProtocolSubscription m = ConsumerProtocol.deserializeConsumerProtocolSubscription(buf.duplicate());
        Subscription api = ConsumerProtocol.deserializeSubscription(buf.duplicate());
        List<String> topics = new ArrayList<>();
        for (String t : m.topics()) topics.add(q(t));
        List<String> owned = new ArrayList<>();
        for (ConsumerProtocolSubscription.TopicPartition tp : m.ownedPartitions())
            owned.add("[" + q(tp.topic()) + "," + ints(tp.partitions()) + "]");
        return obj("version", String.valueOf(version), "topics", arr(topics),
            "user_data", q(hex(m.userData())), "owned_partitions", arr(owned),
            "generation_id", String.valueOf(m.generationId()), "rack_id", q(m.rackId()),
            "api_rack", q(api.rackId().orElse(null)),
            "api_generation", api.generationId().map(String::valueOf).orElse("null"));
    }

    static String readAssignment(ByteBuffer buf) {
        short version = ConsumerProtocol.deserializeVersion(buf.duplicate());
        ConsumerProtocolAssignment m = ConsumerProtocol.deserializeConsumerProtocolAssignment(buf.duplicate());
        List<String> parts = new ArrayList<>();
        for (ConsumerProtocolAssignment.TopicPartition tp : m.assignedPartitions())
            parts.add("[" + q(tp.topic()) + "," + ints(tp.partitions()) + "]");
        return obj("version", String.valueOf(version), "assigned_partitions", arr(parts),
            "user_data", q(hex(m.userData())));
    }

    static String readSticky(ByteBuffer buf) {
        MemberData d = StickyAccess.stickyMemberData(buf.duplicate());
        return obj("partitions", tps(StickyAccess.partitions(d)),
            "generation", d.generation.map(String::valueOf).orElse("null"));
    }

    static String readCooperative(ByteBuffer buf) {
        MemberData d = StickyAccess.cooperativeMemberData(buf.duplicate());
        return obj("generation", d.generation.map(String::valueOf).orElse("null"));
    }

    static String task(TaskId t) {
        return q(t.toString());
    }

    static String readStreamsSubscription(ByteBuffer buf) throws Exception {
        SubscriptionInfo info = SubscriptionInfo.decode(buf.duplicate());
        Field f = SubscriptionInfo.class.getDeclaredField("data");
        f.setAccessible(true);
        SubscriptionInfoData d = (SubscriptionInfoData) f.get(info);
        if (info.version() > 11) {
            return obj("version", String.valueOf(info.version()),
                "latest_supported_version", String.valueOf(info.latestSupportedVersion()));
        }
        List<String> prev = new ArrayList<>();
        for (SubscriptionInfoData.TaskId t : d.prevTasks()) prev.add("[" + t.topicGroupId() + "," + t.partition() + "]");
        List<String> standby = new ArrayList<>();
        for (SubscriptionInfoData.TaskId t : d.standbyTasks()) standby.add("[" + t.topicGroupId() + "," + t.partition() + "]");
        List<String> sums = new ArrayList<>();
        for (SubscriptionInfoData.TaskOffsetSum t : d.taskOffsetSums()) {
            List<String> nested = new ArrayList<>();
            for (SubscriptionInfoData.PartitionToOffsetSum p : t.partitionToOffsetSum())
                nested.add("[" + p.partition() + "," + p.offsetSum() + "]");
            sums.add("[" + t.topicGroupId() + "," + t.partition() + "," + t.offsetSum() + ","
                + q(t.namedTopology()) + "," + arr(nested) + "]");
        }
        List<String> tags = new ArrayList<>();
        for (SubscriptionInfoData.ClientTag t : d.clientTags()) tags.add("[" + q(hex(t.key())) + "," + q(hex(t.value())) + "]");
        TreeMap<String, Long> offsets = new TreeMap<>();
        for (Map.Entry<TaskId, Long> e : info.taskOffsetSums().entrySet()) offsets.put(e.getKey().toString(), e.getValue());
        List<String> offsetItems = new ArrayList<>();
        for (Map.Entry<String, Long> e : offsets.entrySet()) offsetItems.add("[" + q(e.getKey()) + "," + e.getValue() + "]");
        return obj("version", String.valueOf(d.version()),
            "latest_supported_version", String.valueOf(d.latestSupportedVersion()),
            "process_id", q(info.processId().id().toString()),
            "prev_tasks", arr(prev), "standby_tasks", arr(standby),
            "user_end_point", q(hex(d.userEndPoint())),
            "task_offset_sums", arr(sums),
            "unique_field", String.valueOf(d.uniqueField()),
            "error_code", String.valueOf(d.errorCode()),
            "client_tags", arr(tags),
            "offset_sums", arr(offsetItems),
            "endpoint", q(info.userEndPoint()));
    }

    static String hostMap(Map<HostInfo, Set<TopicPartition>> m) {
        List<String> items = new ArrayList<>();
        if (m == null) return "[]";
        for (Map.Entry<HostInfo, Set<TopicPartition>> e : m.entrySet())
            items.add("[" + q(e.getKey().host()) + "," + e.getKey().port() + "," + tps(e.getValue()) + "]");
        return arr(items);
    }

    static String readStreamsAssignment(ByteBuffer buf) {
        AssignmentInfo info = AssignmentInfo.decode(buf.duplicate());
        List<String> active = new ArrayList<>();
        for (TaskId t : info.activeTasks()) active.add(task(t));
        List<String> standby = new ArrayList<>();
        for (Map.Entry<TaskId, Set<TopicPartition>> e : info.standbyTasks().entrySet())
            standby.add("[" + task(e.getKey()) + "," + tps(e.getValue()) + "]");
        return obj("version", String.valueOf(info.version()),
            "commonly_supported_version", String.valueOf(info.commonlySupportedVersion()),
            "active_tasks", arr(active), "standby_tasks", arr(standby),
            "partitions_by_host", hostMap(info.partitionsByHost()),
            "standby_partitions_by_host", hostMap(info.standbyPartitionByHost()),
            "error_code", String.valueOf(info.errCode()),
            "next_rebalance_ms", String.valueOf(info.nextRebalanceMs()));
    }

    static String read(String kind, ByteBuffer buf) throws Exception {
        switch (kind) {
            case "subscription": return readSubscription(buf);
            case "assignment": return readAssignment(buf);
            case "sticky": return readSticky(buf);
            case "cooperative-sticky": return readCooperative(buf);
            case "streams-subscription": return readStreamsSubscription(buf);
            case "streams-assignment": return readStreamsAssignment(buf);
            default: throw new IllegalArgumentException("unknown kind " + kind);
        }
    }

    // ---------------------------------------------------------------- write mode

    static void emit(String kind, String name, ByteBuffer bytes, boolean reencode) throws Exception {
        OUT.println(obj("kind", q(kind), "name", q(name), "hex", q(hex(bytes)),
            "reencode", String.valueOf(reencode), "read", read(kind, bytes)));
    }

    static ByteBuffer bytesOf(int n, int seed) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) b[i] = (byte) (i * 31 + seed);
        return ByteBuffer.wrap(b);
    }

    static final String[] UNICODE_TOPICS = {"zürich", "日本語", "emoji-\uD83D\uDE80", "a"};

    static List<Subscription> subscriptions() {
        List<Subscription> subs = new ArrayList<>();
        subs.add(new Subscription(List.of(), null, List.of(), -1, Optional.empty()));
        subs.add(new Subscription(List.of("t1"), null,
            List.of(new TopicPartition("t1", 0), new TopicPartition("t1", 1)), 5, Optional.of("az1")));
        subs.add(new Subscription(List.of("b", "a"), ByteBuffer.allocate(0), List.of(), 0, Optional.of("")));
        subs.add(new Subscription(Arrays.asList(UNICODE_TOPICS), bytesOf(256, 0),
            List.of(new TopicPartition("日本語", 3), new TopicPartition("a", 2), new TopicPartition("a", 0),
                new TopicPartition("zürich", 1), new TopicPartition("emoji-\uD83D\uDE80", 7)),
            Integer.MAX_VALUE, Optional.of("ラック-1")));
        List<String> many = new ArrayList<>();
        for (int i = 99; i >= 0; i--) many.add(String.format("topic-%03d", i));
        List<TopicPartition> owned = new ArrayList<>();
        for (int p = 99; p >= 0; p--) for (int t = 0; t < 10; t++) owned.add(new TopicPartition(String.format("topic-%03d", t), p));
        subs.add(new Subscription(many, bytesOf(1000, 7), owned, 123456, Optional.of("az2")));
        return subs;
    }

    static final String[] SUB_NAMES = {"empty", "basic", "empty-userdata-empty-rack", "unicode", "many"};

    static List<Assignment> assignments() {
        List<Assignment> out = new ArrayList<>();
        out.add(new Assignment(List.of(), null));
        out.add(new Assignment(List.of(new TopicPartition("t1", 0), new TopicPartition("t1", 1)), null));
        out.add(new Assignment(List.of(new TopicPartition("t2", 5), new TopicPartition("t1", 3),
            new TopicPartition("t2", 1), new TopicPartition("t1", 0)), ByteBuffer.allocate(0)));
        List<TopicPartition> uni = new ArrayList<>();
        for (String t : UNICODE_TOPICS) uni.add(new TopicPartition(t, t.length()));
        out.add(new Assignment(uni, bytesOf(3, 1)));
        List<TopicPartition> many = new ArrayList<>();
        for (int i = 0; i < 5000; i++) many.add(new TopicPartition("topic-" + (i % 7), i));
        out.add(new Assignment(many, bytesOf(4096, 3)));
        return out;
    }

    static final String[] ASG_NAMES = {"empty", "basic", "unsorted-empty-userdata", "unicode", "many"};

    static void write() throws Exception {
        List<Subscription> subs = subscriptions();
        for (short v = 0; v <= 3; v++)
            for (int i = 0; i < subs.size(); i++)
                emit("subscription", SUB_NAMES[i] + "-v" + v, ConsumerProtocol.serializeSubscription(subs.get(i), v), true);
        // A future version: v3 bytes with version 100 and an extra string after them (as
        // ConsumerProtocolTest.deserializeFutureSubscriptionVersion); Java reads it as v3.
        ByteBuffer v3 = ConsumerProtocol.serializeSubscription(subs.get(1), (short) 3);
        ByteBuffer future = ByteBuffer.allocate(v3.remaining() + 7);
        future.put(v3.duplicate()).putShort(0, (short) 100).position(v3.remaining());
        future.putShort((short) 5).put("extra".getBytes(StandardCharsets.UTF_8)).flip();
        emit("subscription", "future-v100", future, false);

        List<Assignment> asgs = assignments();
        for (short v = 0; v <= 3; v++)
            for (int i = 0; i < asgs.size(); i++)
                emit("assignment", ASG_NAMES[i] + "-v" + v, ConsumerProtocol.serializeAssignment(asgs.get(i), v), true);
        ByteBuffer a3 = ConsumerProtocol.serializeAssignment(asgs.get(1), (short) 3);
        ByteBuffer afuture = ByteBuffer.allocate(a3.remaining() + 7);
        afuture.put(a3.duplicate()).putShort(0, (short) 100).position(a3.remaining());
        afuture.putShort((short) 5).put("extra".getBytes(StandardCharsets.UTF_8)).flip();
        emit("assignment", "future-v100", afuture, false);

        writeSticky();
        writeStreamsSubscriptions();
        writeStreamsAssignments();
    }

    static void writeSticky() throws Exception {
        List<List<TopicPartition>> prevs = List.of(
            List.of(),
            List.of(new TopicPartition("t1", 0), new TopicPartition("t1", 1)),
            List.of(new TopicPartition("zürich", 2), new TopicPartition("a", 1), new TopicPartition("zürich", 0)));
        int[] gens = {1, 5, Integer.MAX_VALUE};
        String[] names = {"empty", "basic", "unicode"};
        for (int i = 0; i < prevs.size(); i++) {
            StickyAssignor a = new StickyAssignor();
            a.onAssignment(new Assignment(prevs.get(i)), new ConsumerGroupMetadata("g", gens[i], "m", Optional.empty()));
            emit("sticky", "v1-" + names[i], a.subscriptionUserData(Set.of("t1")), true);
            Map<String, List<Integer>> grouped = new LinkedHashMap<>();
            for (TopicPartition tp : prevs.get(i)) grouped.computeIfAbsent(tp.topic(), k -> new ArrayList<>()).add(tp.partition());
            emit("sticky", "v0-" + names[i], StickyAccess.stickyV0(grouped), true);
        }
        CooperativeStickyAssignor c = new CooperativeStickyAssignor();
        emit("cooperative-sticky", "initial", c.subscriptionUserData(Set.of("t1")), true);
        for (int g : new int[] {0, 7, Integer.MAX_VALUE}) {
            c.onAssignment(new Assignment(List.of()), new ConsumerGroupMetadata("g", g, "m", Optional.empty()));
            emit("cooperative-sticky", "generation-" + g, c.subscriptionUserData(Set.of("t1")), true);
        }
    }

    static void writeStreamsSubscriptions() throws Exception {
        ProcessId pid = new ProcessId(new UUID(0x0123456789abcdefL, 0xfedcba9876543210L));
        for (int v = 1; v <= 11; v++) {
            emit("streams-subscription", "empty-v" + v,
                new SubscriptionInfo(v, 11, pid, null, Map.of(), (byte) 0, 0, Map.of()).encode(), true);
            Map<TaskId, Long> sums = new HashMap<>();
            sums.put(new TaskId(0, 0), -2L);
            sums.put(new TaskId(0, 1), -2L);
            sums.put(new TaskId(1, 0), 100L);
            sums.put(new TaskId(1, 3), -3L);
            sums.put(new TaskId(2, 5), 0L);
            Map<String, String> tags = new HashMap<>();
            tags.put("az", "az1");
            tags.put("zone", "z-1");
            emit("streams-subscription", "tasks-v" + v,
                new SubscriptionInfo(v, 11, pid, "host-1:8080", sums, (byte) 7, 0, tags).encode(), true);
            emit("streams-subscription", "unicode-v" + v,
                new SubscriptionInfo(v, 11, new ProcessId(new UUID(-1L, 1L)), "hôst-ü-\uD83D\uDE80:9",
                    Map.of(new TaskId(3, 4), -2L), (byte) -1, 4, Map.of("ключ", "значение")).encode(), true);
            Map<TaskId, Long> many = new HashMap<>();
            for (int s = 0; s < 20; s++)
                for (int p = 0; p < 50; p++)
                    many.put(new TaskId(s, p), p % 10 == 0 ? -2L : (p % 10 == 1 ? Long.MAX_VALUE : (long) s * 1000003L * p));
            emit("streams-subscription", "many-v" + v,
                new SubscriptionInfo(v, 11, pid, "h:1", many, (byte) 1, 0, Map.of()).encode(), true);
            if (v >= 10) {
                Map<TaskId, Long> named = new HashMap<>();
                named.put(new TaskId(0, 1, "topo-a"), -2L);
                named.put(new TaskId(2, 0, "topo-ü"), 42L);
                named.put(new TaskId(1, 1), 7L);
                emit("streams-subscription", "named-v" + v,
                    new SubscriptionInfo(v, 11, pid, "h:2", named, (byte) 2, 0, Map.of()).encode(), true);
            }
        }
        // A newer Streams: Java reads only version and latest supported version.
        ByteBuffer future = ByteBuffer.allocate(16).putInt(12).putInt(12).putInt(0xdeadbeef).putInt(7);
        future.flip();
        emit("streams-subscription", "future-v12", future, false);
    }

    static Set<TopicPartition> set(TopicPartition... tps) {
        return new HashSet<>(Arrays.asList(tps));
    }

    static void writeStreamsAssignments() throws Exception {
        for (int v = 1; v <= 11; v++) {
            emit("streams-assignment", "empty-v" + v,
                new AssignmentInfo(v, 11, List.of(), Map.of(), Map.of(), Map.of(), 0).encode(), true);
            Map<TaskId, Set<TopicPartition>> standby = new HashMap<>();
            standby.put(new TaskId(0, 1), set(new TopicPartition("src", 1), new TopicPartition("app-store-changelog", 1)));
            Map<HostInfo, Set<TopicPartition>> byHost = new HashMap<>();
            byHost.put(new HostInfo("host1", 8080), set(new TopicPartition("t", 0), new TopicPartition("t", 1)));
            byHost.put(new HostInfo("host2", 9090), set(new TopicPartition("u", 3)));
            Map<HostInfo, Set<TopicPartition>> standbyByHost = new HashMap<>();
            standbyByHost.put(new HostInfo("host2", 9090), set(new TopicPartition("t", 0)));
            AssignmentInfo basic = new AssignmentInfo(v, 11, List.of(new TaskId(0, 0), new TaskId(1, 2)),
                standby, byHost, standbyByHost, v >= 4 ? 1 : 0);
            basic.setNextRebalanceTime(1234567890123L);
            emit("streams-assignment", "basic-v" + v, basic.encode(), true);

            Map<HostInfo, Set<TopicPartition>> uni = new HashMap<>();
            uni.put(new HostInfo("hôst-ü", 1), set(new TopicPartition("emoji-\uD83D\uDE80", 0),
                new TopicPartition("nul\u0000char", 2), new TopicPartition("日本語", 3)));
            Map<TaskId, Set<TopicPartition>> uniStandby = new HashMap<>();
            uniStandby.put(new TaskId(5, 5), set(new TopicPartition("zürich", 5)));
            emit("streams-assignment", "unicode-v" + v,
                new AssignmentInfo(v, 11, List.of(new TaskId(2, 3)), uniStandby, uni, uni, v >= 4 ? 2 : 0).encode(), true);

            List<TaskId> actives = new ArrayList<>();
            for (int i = 0; i < 1000; i++) actives.add(new TaskId(i % 10, i / 10));
            Map<TaskId, Set<TopicPartition>> manyStandby = new HashMap<>();
            for (int i = 0; i < 200; i++)
                manyStandby.put(new TaskId(20 + i % 5, i), set(new TopicPartition("src-" + (i % 5), i), new TopicPartition("cl-" + (i % 5), i)));
            Map<HostInfo, Set<TopicPartition>> manyHosts = new HashMap<>();
            for (int h = 0; h < 3; h++) {
                Set<TopicPartition> tps = new HashSet<>();
                for (int p = 0; p < 500; p++) tps.add(new TopicPartition("topic-" + (p % 4), h * 500 + p));
                manyHosts.put(new HostInfo("host-" + h, 7000 + h), tps);
            }
            AssignmentInfo many = new AssignmentInfo(v, 11, actives, manyStandby, manyHosts, Map.of(), 0);
            many.setNextRebalanceTime(0L);
            emit("streams-assignment", "many-v" + v, many.encode(), true);
            if (v >= 10) {
                Map<TaskId, Set<TopicPartition>> namedStandby = new HashMap<>();
                namedStandby.put(new TaskId(1, 1, "topo-ü"), set(new TopicPartition("x", 1)));
                emit("streams-assignment", "named-v" + v,
                    new AssignmentInfo(v, 11, List.of(new TaskId(0, 1, "topo-a"), new TaskId(0, 2)),
                        namedStandby, Map.of(), Map.of(), 0).encode(), true);
            }
        }
    }

    // ---------------------------------------------------------------- decode mode

    static void decode() throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            line = line.trim();
            if (line.isEmpty()) continue;
            String[] parts = line.split(" ", 2);
            try {
                String read = read(parts[0], unhex(parts.length > 1 ? parts[1] : ""));
                OUT.println(obj("ok", "true", "read", read));
            } catch (Exception e) {
                OUT.println(obj("ok", "false", "error", q(e.getClass().getSimpleName() + ": " + e.getMessage())));
            }
        }
    }
}
