package dev.rackwise.plugins.advice;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import dev.rackwise.plugins.plan.Json;
import dev.rackwise.plugins.plan.PlanFormatException;

/**
 * Decodes one advice record (docs/architecture.md § Advice; protocol/advice.py is the Python
 * side) into a {@link TopicAdvice} or a {@link GroupAdvice}. Fields it does not know are
 * ignored; anything else that is not the contract throws {@link AdviceFormatException} with
 * the reason. Example: key {@code topic/orders}, value
 * {@code {"schema_version":1,"kind":"topic","topic":"orders","measured_at_ms":5,"partitions":[]}}.
 */
public final class AdviceDecoder {
    public static final String TOPIC_PREFIX = "topic/";
    public static final String GROUP_PREFIX = "group/";

    private AdviceDecoder() {
    }

    /** {@code value} must not be null (a tombstone is the caller's to handle). */
    public static Object decode(String key, byte[] value, int maxRecordBytes) {
        if (value.length > maxRecordBytes) {
            throw new AdviceFormatException(IgnoredReason.OVERSIZED,
                "advice " + key + ": " + value.length + " bytes, over the limit of " + maxRecordBytes);
        }
        if (!key.startsWith(TOPIC_PREFIX) && !key.startsWith(GROUP_PREFIX)) {
            throw new AdviceFormatException(IgnoredReason.UNKNOWN_KIND, "advice key " + key + " is neither topic/ nor group/");
        }
        Map<String, Object> root;
        try {
            String text = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                .decode(ByteBuffer.wrap(value)).toString();
            root = Json.object(Json.parse(text), "value");
        } catch (CharacterCodingException e) {
            throw malformed(key, "not UTF-8");
        } catch (PlanFormatException e) {
            throw malformed(key, e.getMessage());
        }
        if (!Long.valueOf(1).equals(root.get("schema_version"))) {
            throw new AdviceFormatException(IgnoredReason.UNKNOWN_SCHEMA_VERSION,
                "advice " + key + ": schema_version " + root.get("schema_version") + " is not 1");
        }
        Object kind = root.get("kind");
        try {
            if ("topic".equals(kind)) {
                TopicAdvice t = topic(root);
                check(key, TOPIC_PREFIX + t.topic());
                return t;
            }
            if ("group".equals(kind)) {
                GroupAdvice g = group(root);
                check(key, GROUP_PREFIX + g.pattern());
                return g;
            }
        } catch (PlanFormatException e) {
            throw malformed(key, e.getMessage());
        }
        throw new AdviceFormatException(IgnoredReason.UNKNOWN_KIND, "advice " + key + ": unknown kind " + kind);
    }

    private static TopicAdvice topic(Map<String, Object> root) {
        String topic = string(root.get("topic"), "topic");
        long at = nonNegative(root.get("measured_at_ms"), "measured_at_ms");
        List<Object> list = Json.list(root.get("partitions"), "partitions");
        List<PartitionAdvice> parts = new ArrayList<>(list.size());
        for (int i = 0; i < list.size(); i++) {
            String where = "partitions[" + i + "]";
            Map<String, Object> p = Json.object(list.get(i), where);
            long partition = nonNegative(p.get("partition"), where + ".partition");
            if (partition != i) {
                throw new PlanFormatException(where + ".partition: " + partition + ", expected " + i + " (partition order)");
            }
            Object b = p.get("bytes_per_s");
            Double bytes = null;
            if (b != null) {
                if (!(b instanceof Number n) || !(n.doubleValue() >= 0) || Double.isInfinite(n.doubleValue())) {
                    throw new PlanFormatException(where + ".bytes_per_s: expected a non-negative number or null");
                }
                bytes = n.doubleValue();
            }
            Object l = p.get("leader");
            Integer leader = l == null ? null : (int) nonNegative(l, where + ".leader");
            Object r = p.get("leader_rack");
            String rack = r == null ? null : string(r, where + ".leader_rack");
            parts.add(new PartitionAdvice(i, bytes, leader, rack));
        }
        return new TopicAdvice(topic, at, parts);
    }

    private static GroupAdvice group(Map<String, Object> root) {
        String pattern = string(root.get("pattern"), "pattern");
        long priority = nonNegative(root.get("priority"), "priority");
        if (priority > Integer.MAX_VALUE) {
            throw new PlanFormatException("priority: out of range");
        }
        String assignor = string(root.get("assignor"), "assignor");
        Object c = root.get("config");
        Map<String, Object> config = c == null ? Map.of() : Json.object(c, "config");
        long at = nonNegative(root.get("updated_at_ms"), "updated_at_ms");
        return new GroupAdvice(pattern, (int) priority, assignor, config, at);
    }

    private static void check(String key, String expected) {
        if (!key.equals(expected)) {
            throw new PlanFormatException("the value is for key " + expected);
        }
    }

    private static AdviceFormatException malformed(String key, String why) {
        return new AdviceFormatException(IgnoredReason.MALFORMED, "advice " + key + ": " + why);
    }

    private static String string(Object v, String where) {
        if (v instanceof String s && !s.isEmpty()) {
            return s;
        }
        throw new PlanFormatException(where + ": expected a non-empty string");
    }

    private static long nonNegative(Object v, String where) {
        if (v instanceof Long l && l >= 0) {
            return l;
        }
        throw new PlanFormatException(where + ": expected a non-negative integer");
    }
}
