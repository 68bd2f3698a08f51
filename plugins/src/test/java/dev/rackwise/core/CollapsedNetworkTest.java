package dev.rackwise.core;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

/**
 * docs/rack-optimal.md § 4.2 by hand, index for index: the same group and the same 17 arcs as
 * the Python reference's tests/unit/assignor/test_optimal_kinds.py
 * (test_hand_checked_network_index_for_index, test_hand_checked_answer).
 */
class CollapsedNetworkTest {
    /** t-0, t-1 in az1, t-2, t-3 in az2; a (az1) owned t-0 and t-2, c (az2) t-3, b nothing. */
    static Problem handGroup() {
        PartitionSpec az1 = new PartitionSpec(List.of("az1"), "az1", 1.0);
        PartitionSpec az2 = new PartitionSpec(List.of("az2"), "az2", 1.0);
        return Problem.builder().racks(List.of("az1", "az2")).costs(10.0, 1.0)
                .member("a", "az1", true, List.of("t"))
                .member("b", "az1", true, List.of("t"))
                .member("c", "az2", true, List.of("t"))
                .topic("t", List.of(az1, az1, az2, az2))
                .previousOwner("t", 0, "a").previousOwner("t", 2, "a").previousOwner("t", 3, "c")
                .build();
    }

    /**
     * Band: P = 4, N = 3 -> [1, 2], uniform. Types T0 (az1, first t-0), T1 (az2, first t-2);
     * kinds K0 = [a], K1 = [b], K2 = [c]; supplies S0 = (T0, none) {t-1}, S1 = (T0, K0) {t-0},
     * S2 = (T1, K0) {t-2}, S3 = (T1, K2) {t-3}; pools P0 = az1, P1 = az2. Nodes: sink 0, K0-K2
     * 1-3, P0-P1 4-5, S0-S3 6-9. D = 2: a cross-rack partition is round(1000 * 10 * 1) * 2 =
     * 20000 units, a move round(1000 * 1) * 2 = 2000.
     */
    @Test
    void handCheckedNetworkIndexForIndex() {
        RackOptimal.Network net = RackOptimal.build(new Instance(handGroup()));
        long cross = 20000;
        long move = 2000;
        long[][] want = {
            {1, 0, 1, 0, 0, 0}, {2, 0, 1, 0, 0, 0}, {3, 0, 1, 0, 0, 0}, // kinds -> sink
            {4, 1, 4, 0, 0, 0}, {4, 2, 4, 0, 0, 0}, {5, 3, 4, 0, 0, 0}, // pools -> kinds
            {6, 4, 1, 0, 0, 0}, {6, 5, 1, 0, cross, 0}, // S0: unowned, no keep arc
            {7, 1, 1, 0, 0, 0}, {7, 4, 1, 0, move, 1}, {7, 5, 1, 0, cross + move, 1}, // S1
            {8, 1, 1, 0, cross, 0}, {8, 4, 1, 0, cross + move, 1}, {8, 5, 1, 0, move, 1}, // S2
            {9, 3, 1, 0, 0, 0}, {9, 4, 1, 0, cross + move, 1}, {9, 5, 1, 0, move, 1}, // S3
        };
        assertEquals(want.length, net.flow.arcCount());
        assertEquals(10, net.flow.nodeCount());
        for (int k = 0; k < want.length; k++) {
            assertArrayEquals(want[k], net.flow.arc(k), "arc " + k);
        }
        assertArrayEquals(new int[] {-1, 8, 11, 14}, net.keepArc);
        // supplies supply their units, kinds demand n * lo, the sink P - N * lo
        long[] supply = {-1, -1, -1, -1, 0, 0, 1, 1, 1, 1};
        for (int v = 0; v < supply.length; v++) {
            assertEquals(supply[v], net.flow.supply(v), "node " + v);
        }
    }

    /**
     * The unique optimum: a keeps t-0 (free), c keeps t-3; t-2 costs a 20000 to keep but 2000
     * to move to c (local there); then every member needs one, so t-1 goes to b. One move.
     */
    @Test
    void handCheckedAnswer() {
        Solution s = RackOptimal.solve(handGroup());
        assertEquals(Map.of("a", RackOptimalTest.tps("t", 0), "b", RackOptimalTest.tps("t", 1),
                "c", RackOptimalTest.tps("t", 2, 3)), s.assignment());
        assertEquals(1.0, s.cost(), 1e-12);
        assertEquals(1, s.moved());
        assertEquals(32, s.perturbationBits());
        assertEquals(3, s.levelsUsed());
    }

    /** § 4.2: the tries stop at (balance, cost); beyond that the input is refused. */
    @Test
    void costsThatDoNotFitAreRefused() {
        // one huge weight beside ordinary ones (as the Python test): dividing the cost level
        // by its gcd (§ 4.2) cannot bring it below 2^60
        PartitionSpec huge = new PartitionSpec(List.of("az1"), "az1", 1e18);
        PartitionSpec az1 = new PartitionSpec(List.of("az1"), "az1", 1.0);
        PartitionSpec az2 = new PartitionSpec(List.of("az2"), "az2", 1.0);
        Problem pb = Problem.builder().racks(List.of("az1", "az2")).costs(10.0, 1.0)
                .member("a", "az1", true, List.of("t")).member("b", "az2", true, List.of("t"))
                .topic("t", List.of(huge, az2, az1, az2)).build();
        CoreInputException e = org.junit.jupiter.api.Assertions.assertThrows(CoreInputException.class,
                () -> RackOptimal.solve(pb));
        org.junit.jupiter.api.Assertions.assertTrue(e.getMessage().contains("costs too large to solve exactly"),
                e.getMessage());
    }
}
