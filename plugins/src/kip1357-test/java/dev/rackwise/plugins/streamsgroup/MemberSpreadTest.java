package dev.rackwise.plugins.streamsgroup;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.rackwise.tasks.TaskId;
import org.junit.jupiter.api.Test;

class MemberSpreadTest {
    static TaskId t(int p) {
        return new TaskId(0, p);
    }

    @Test
    void heldTasksStayAndTheRestGoToTheFewest() {
        Map<String, List<TaskId>> out = MemberSpread.spread(List.of("m1", "m2"), List.of(t(0), t(1), t(2)),
            Map.of("m2", Set.of(t(1))));
        assertEquals(Map.of("m1", List.of(t(0), t(2)), "m2", List.of(t(1))), out);
    }

    @Test
    void noMemberHoldsMoreThanItsShare() {
        Map<String, List<TaskId>> out = MemberSpread.spread(List.of("m1", "m2"), List.of(t(0), t(1), t(2), t(3)),
            Map.of("m1", Set.of(t(0), t(1), t(2), t(3))));
        assertEquals(2, out.get("m1").size());
        assertEquals(2, out.get("m2").size());
    }

    @Test
    void theSameInputInAnyOrderGivesTheSameSpread() {
        Map<String, List<TaskId>> a = MemberSpread.spread(List.of("m1", "m2", "m3"),
            List.of(t(5), t(0), t(3), t(1)), Map.of());
        Map<String, List<TaskId>> b = MemberSpread.spread(List.of("m1", "m2", "m3"),
            List.of(t(1), t(3), t(0), t(5)), Map.of());
        assertEquals(a, b);
    }
}
