package dev.rackwise.core;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Arrays;
import java.util.HashSet;
import java.util.Random;
import java.util.Set;

import org.junit.jupiter.api.Test;

/** Instance's id sort (by 8-bit character prefixes as longs) against String's own order. */
class SortedOrderTest {
    private static final long SEED = 4_2026_1128L;

    @Test
    void ordersAsStringCompareToDoes() {
        System.out.println("SortedOrderTest seed " + SEED);
        Random rnd = new Random(SEED);
        // shared prefixes of many lengths, NULs, characters past 127 and past 255, one another's prefixes
        char[] alphabet = {'\0', 'a', 'b', 'm', 'z', '0', '9', '-', '\u00e9', '\u00ff', '\u0100', '\u4e2d'};
        for (int round = 0; round < 3000; round++) {
            int n = 1 + rnd.nextInt(round % 10 == 0 ? 2000 : 40);
            String common = "x".repeat(rnd.nextInt(3) == 0 ? rnd.nextInt(12) : 0);
            int letters = 2 + rnd.nextInt(alphabet.length - 1);
            Set<String> seen = new HashSet<>();
            String[] values = new String[n];
            for (int i = 0; i < n; i++) {
                String v;
                do {
                    StringBuilder b = new StringBuilder(common);
                    int len = rnd.nextInt(14);
                    for (int c = 0; c < len; c++) {
                        b.append(alphabet[rnd.nextInt(letters)]);
                    }
                    v = b.toString();
                } while (!seen.add(v));
                values[i] = v;
            }
            int[] order = Instance.sortedOrder(values, "value");
            String[] got = new String[n];
            for (int i = 0; i < n; i++) {
                got[i] = values[order[i]];
            }
            String[] expected = values.clone();
            Arrays.sort(expected);
            assertArrayEquals(expected, got, "round " + round + " of seed " + SEED);
        }
    }

    @Test
    void aValueListedTwiceIsAnInputError() {
        assertThrows(CoreInputException.class, () -> Instance.sortedOrder(new String[] {"b", "a", "b"}, "member"));
        assertThrows(CoreInputException.class,
            () -> Instance.sortedOrder(new String[] {"member10", "member1", "member10"}, "member"));
    }
}
