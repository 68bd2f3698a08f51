package dev.rackwise.core;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** The tie-break rule of docs/streams-assignor.md § 6, with the Python's golden values. */
class LexFlowTest {
    @Test
    void perturbationMatchesThePythonReference() {
        long[] full = {1364076728L, 821347079L, 2247144488L, 614249094L};
        long[] sixteen = {20815, 12533, 34289, 9373};
        for (int k = 0; k < 4; k++) {
            assertEquals(full[k], LexFlow.perturbation(k, 32));
            assertEquals(sixteen[k], LexFlow.perturbation(k, 16));
        }
        assertEquals(7, LexFlow.perturbation(123456, 4));
    }

    @Test
    void lowerLevelsBreakTiesOnly() {
        LexFlow net = new LexFlow();
        int s = net.addNode();
        int a = net.addNode();
        int b = net.addNode();
        int t = net.addNode();
        net.setSupply(s, 1);
        net.setSupply(t, -1);
        int first = net.addArc(s, a, 1, 10, 1);
        int second = net.addArc(s, b, 1, 10, 0);
        net.addArc(a, t, 1, 0, 0);
        net.addArc(b, t, 1, 0, 0);
        net.solveInTwoStages();
        assertEquals(0, net.flow(first));
        assertEquals(1, net.flow(second));
    }
}
