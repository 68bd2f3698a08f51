package dev.rackwise.core;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;

/** Bad input: a CoreInputException that names what is wrong. */
class InputTest {
    private static void says(String words, Runnable r) {
        CoreInputException e = assertThrows(CoreInputException.class, r::run);
        assertTrue(e.getMessage().contains(words), e.getMessage());
    }

    @Test
    void errorsNameTheProblem() {
        says("listed twice", () -> Problem.builder().member("a", null, false, Set.of()).member("a", "x", true, Set.of()));
        says("weight", () -> new PartitionSpec(List.of(), null, -1));
        says("weight", () -> new PartitionSpec(List.of(), null, Double.NaN));
        says("replica rack is null", () -> new PartitionSpec(Arrays.asList("az1", null), null));
        says("traffic_cost", () -> Problem.builder().costs(-1, 1));
        says("non_overlap_cost", () -> Problem.builder().costs(1, Double.POSITIVE_INFINITY));
        says("member id", () -> Problem.builder().member("", null, false, Set.of()));
        says("topic t is listed twice", () -> Problem.builder().topic("t", List.of()).topic("t", List.of()));
        says("two previous owners", () -> Problem.builder().previousOwner("t", 0, "a").previousOwner("t", 0, "b"));
        says("null topic", () -> Problem.builder().member("a", null, false, Arrays.asList("t", null)));
    }

    @Test
    void costsTooLargeToSolveExactly() {
        Problem pb = Problem.builder().racks(List.of("az1", "az2")).costs(1e15, 1)
                .member("a", "az1", true, Set.of("t"))
                .member("b", "az2", true, Set.of("t", "u"))
                .topic("t", List.of(new PartitionSpec(List.of("az1"), "az1", 1e3)))
                .topic("u", List.of(new PartitionSpec(List.of("az1"), "az1", 1e3)))
                .build();
        says("costs too large to solve exactly", () -> RackOptimal.solve(pb));
    }
}
