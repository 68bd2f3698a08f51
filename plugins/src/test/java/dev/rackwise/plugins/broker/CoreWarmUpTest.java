package dev.rackwise.plugins.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class CoreWarmUpTest {
    @Test
    void oneRoundAssignsEverySyntheticGroupWithoutFailing() {
        // budget 0 ms: the loop stops after its first round, which must get through all shapes
        for (boolean followers : new boolean[] {true, false}) {
            CoreWarmUp.Outcome o = CoreWarmUp.run(0, followers);
            assertFalse(o.failed(), "a synthetic group failed (followers " + followers + ")");
            assertEquals(1, o.rounds());
        }
    }

    @Test
    void stopsAtItsBudgetOrItsRoundLimit() {
        CoreWarmUp.Outcome o = CoreWarmUp.run(300, true);
        assertFalse(o.failed());
        assertTrue(o.rounds() >= 1 && o.rounds() <= CoreWarmUp.MAX_ROUNDS, "rounds " + o.rounds());
        // it stops at the first round end past its budget: under the limit means the budget ran out
        assertTrue(o.rounds() == CoreWarmUp.MAX_ROUNDS || o.cpuMs() >= 300, o.toString());
    }

    @Test
    void primingAssignsItsTinyGroupsWithoutFailing() {
        for (boolean followers : new boolean[] {true, false}) {
            assertTrue(CoreWarmUp.primeNow(followers) >= 0, "a priming group failed (followers " + followers + ")");
        }
        CoreWarmUp.prime(true);
        assertEquals(-1, CoreWarmUp.prime(true), "primed twice in one JVM");
    }
}
