package dev.rackwise.plugins.streams;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.rackwise.plugins.plan.Json;
import dev.rackwise.plugins.plan.PlanFormatException;
import org.apache.kafka.streams.processor.TaskId;

/**
 * Reads a Streams AssignmentPlan JSON (kind {@code streams}). Read: {@code group_id}, {@code kind},
 * {@code generation}, {@code members[].process_id} (else {@code member_id}), {@code active_tasks},
 * {@code standby_tasks}, {@code warmup_tasks} ({@code "<subtopology>_<partition>"}) and
 * {@code followup_ms}; everything else is ignored, so fields may be added.
 */
public final class StreamsPlanReader {
    private StreamsPlanReader() {
    }

    public static StreamsPlan read(byte[] utf8) {
        if (utf8 == null) {
            throw new PlanFormatException("empty reply (null value)");
        }
        try {
            return read(StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                .decode(ByteBuffer.wrap(utf8)).toString());
        } catch (CharacterCodingException e) {
            throw new PlanFormatException("plan is not valid UTF-8");
        }
    }

    public static StreamsPlan read(String json) {
        Map<String, Object> root = Json.object(Json.parse(json), "plan");
        String groupId = string(root.get("group_id"), "group_id");
        String kind = root.get("kind") == null ? "consumer" : string(root.get("kind"), "kind");
        long generation = integer(root.get("generation"), "generation");
        Map<String, StreamsPlan.Tasks> processes = new LinkedHashMap<>();
        List<Object> members = Json.list(root.get("members"), "members");
        for (int i = 0; i < members.size(); i++) {
            String where = "members[" + i + "]";
            Map<String, Object> m = Json.object(members.get(i), where);
            Object pid = m.get("process_id") != null ? m.get("process_id") : m.get("member_id");
            String processId = string(pid, where + ".process_id");
            StreamsPlan.Tasks tasks = new StreamsPlan.Tasks(tasks(m.get("active_tasks"), where + ".active_tasks"),
                tasks(m.get("standby_tasks"), where + ".standby_tasks"),
                tasks(m.get("warmup_tasks"), where + ".warmup_tasks"));
            if (processes.put(processId, tasks) != null) {
                throw new PlanFormatException("process " + processId + " appears twice in the plan");
            }
        }
        Object followup = root.get("followup_ms");
        Long followupMs = followup == null ? null : integer(followup, "followup_ms");
        return new StreamsPlan(groupId, kind, generation, processes, followupMs);
    }

    /** {@code "<subtopology>_<partition>"}, both non-negative ints. */
    static TaskId taskId(String text, String where) {
        int underscore = text.indexOf('_');
        if (underscore <= 0 || underscore != text.lastIndexOf('_') || underscore == text.length() - 1) {
            throw new PlanFormatException(where + ": task id \"" + text + "\" is not <subtopology>_<partition>");
        }
        try {
            int sub = Integer.parseInt(text.substring(0, underscore));
            int part = Integer.parseInt(text.substring(underscore + 1));
            if (sub < 0 || part < 0) {
                throw new NumberFormatException();
            }
            return new TaskId(sub, part);
        } catch (NumberFormatException e) {
            throw new PlanFormatException(where + ": task id \"" + text + "\" is not <subtopology>_<partition>");
        }
    }

    private static List<TaskId> tasks(Object value, String where) {
        if (value == null) {
            return List.of();
        }
        List<Object> raw = Json.list(value, where);
        List<TaskId> out = new ArrayList<>(raw.size());
        for (int i = 0; i < raw.size(); i++) {
            out.add(taskId(string(raw.get(i), where + "[" + i + "]"), where + "[" + i + "]"));
        }
        return out;
    }

    private static String string(Object v, String where) {
        if (v instanceof String s) {
            return s;
        }
        throw new PlanFormatException(where + ": expected a string");
    }

    private static long integer(Object v, String where) {
        if (v instanceof Long l) {
            return l;
        }
        throw new PlanFormatException(where + ": expected an integer");
    }
}
