package dev.rackwise.plugins.plan;

import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.kafka.common.TopicPartition;

/**
 * Reads the AssignmentPlan JSON the agent publishes. Only the fields a plug-in needs are read;
 * others (summary, replica racks, created_at ...) are ignored, so new fields never break it.
 *
 * <pre>{"group_id":"g","kind":"consumer","generation":4,
 *  "members":[{"member_id":"m1","partitions":[{"topic":"t","partition":0}]}],
 *  "withheld":[{"topic":"t","partition":1,"owner":"m2","target":"m1"}],"followup_ms":null}</pre>
 */
public final class PlanReader {
    private PlanReader() {
    }

    public static Plan read(byte[] utf8) {
        if (utf8 == null) {
            throw new PlanFormatException("empty reply (null value)");
        }
        String text;
        try {
            text = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .decode(ByteBuffer.wrap(utf8)).toString();
        } catch (CharacterCodingException e) {
            throw new PlanFormatException("plan is not valid UTF-8");
        }
        return read(text);
    }

    public static Plan read(String json) {
        Map<String, Object> root = asObject(Json.parse(json), "plan");
        String groupId = asString(root.get("group_id"), "group_id");
        Object kindValue = root.get("kind");
        String kind = kindValue == null ? "consumer" : asString(kindValue, "kind");
        long generation = asLong(root.get("generation"), "generation");
        Map<String, List<TopicPartition>> members = new LinkedHashMap<>();
        List<Object> memberList = asList(root.get("members"), "members");
        for (int i = 0; i < memberList.size(); i++) {
            Map<String, Object> m = asObject(memberList.get(i), "members[" + i + "]");
            String memberId = asString(m.get("member_id"), "members[" + i + "].member_id");
            Object parts = m.get("partitions");
            List<TopicPartition> partitions = parts == null ? List.of()
                : partitions(parts, "members[" + i + "].partitions");
            if (members.put(memberId, partitions) != null) {
                throw new PlanFormatException("member " + memberId + " appears twice in the plan");
            }
        }
        Object withheldValue = root.get("withheld");
        List<TopicPartition> withheld = withheldValue == null ? List.of() : partitions(withheldValue, "withheld");
        Object followup = root.get("followup_ms");
        Long followupMs = followup == null ? null : asLong(followup, "followup_ms");
        return new Plan(groupId, kind, generation, members, withheld, followupMs);
    }

    private static List<TopicPartition> partitions(Object value, String where) {
        List<Object> list = asList(value, where);
        List<TopicPartition> out = new ArrayList<>(list.size());
        for (int i = 0; i < list.size(); i++) {
            Map<String, Object> p = asObject(list.get(i), where + "[" + i + "]");
            String topic = asString(p.get("topic"), where + "[" + i + "].topic");
            long partition = asLong(p.get("partition"), where + "[" + i + "].partition");
            if (partition < 0 || partition > Integer.MAX_VALUE) {
                throw new PlanFormatException(where + "[" + i + "].partition: " + partition + " is out of range");
            }
            out.add(new TopicPartition(topic, (int) partition));
        }
        return out;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> asObject(Object v, String where) {
        if (v instanceof Map) {
            return (Map<String, Object>) v;
        }
        throw new PlanFormatException(where + ": expected an object, got " + typeOf(v));
    }

    @SuppressWarnings("unchecked")
    private static List<Object> asList(Object v, String where) {
        if (v instanceof List) {
            return (List<Object>) v;
        }
        throw new PlanFormatException(where + ": expected an array, got " + typeOf(v));
    }

    private static String asString(Object v, String where) {
        if (v instanceof String s) {
            return s;
        }
        throw new PlanFormatException(where + ": expected a string, got " + typeOf(v));
    }

    private static long asLong(Object v, String where) {
        if (v instanceof Long l) {
            return l;
        }
        throw new PlanFormatException(where + ": expected an integer, got " + typeOf(v));
    }

    private static String typeOf(Object v) {
        if (v == null) {
            return "null (or missing)";
        }
        if (v instanceof Map) {
            return "an object";
        }
        if (v instanceof List) {
            return "an array";
        }
        return v instanceof String ? "a string" : v.toString();
    }
}
