package dev.rackwise.core;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Arrays;
import java.util.Random;

import org.junit.jupiter.api.Test;

/**
 * Decode.mayTrade, the test that lets § 5.3's swaps skip a member's scan, says yes exactly when
 * one of the member's weights passes the scan's own weight tests: skipping changes no swap.
 */
class SwapWindowTest {
    @Test
    void mayTradeIsTrueExactlyWhenSomeWeightPassesTheScansTests() {
        long seed = Long.getLong("rackwise.seed", 29L);
        System.out.println("SwapWindowTest seed=" + seed);
        Random rnd = new Random(seed);
        int yes = 0;
        for (int trial = 0; trial < 200_000; trial++) {
            int size = rnd.nextInt(8);
            double[] w = new double[size];
            for (int i = 0; i < size; i++) {
                // small integers give ties and exact edges; fractions give rounding at the edges
                w[i] = rnd.nextBoolean() ? 1 + rnd.nextInt(6) : rnd.nextDouble() * 1e4 + 0.1;
            }
            Arrays.sort(w);
            double la = (rnd.nextBoolean() ? 10 + rnd.nextInt(20) : rnd.nextDouble() * 5e4) + 1;
            double lb = la - (rnd.nextBoolean() ? rnd.nextInt(8) : rnd.nextDouble() * la);
            double wp = rnd.nextBoolean() ? 1 + rnd.nextInt(6) : rnd.nextDouble() * 1e4 + 0.1;
            boolean some = false;
            for (double wq : w) {
                // the scan's tests in Decode.swaps, as written there
                some |= wq < wp && Math.max(la - wp + wq, lb + wp - wq) < la;
            }
            yes += some ? 1 : 0;
            assertEquals(some, Decode.mayTrade(w, la, lb, wp),
                "seed " + seed + " trial " + trial + ": " + Arrays.toString(w) + " la " + la + " lb " + lb + " wp " + wp);
        }
        // both answers occur often enough for the check to mean something
        assertEquals(true, yes > 20_000 && yes < 180_000, "yes " + yes);
    }
}
