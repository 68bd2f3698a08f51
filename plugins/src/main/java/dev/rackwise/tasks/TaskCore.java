package dev.rackwise.tasks;

/**
 * Kafka Streams' high-availability task assignment (KIP-441) with KIP-925 rack-aware
 * optimisation solved exactly and KIP-708 client-tag standbys: the problem stated in
 * docs/streams-assignor.md, the same as the Python {@code assignor/streams}.
 *
 * <p>Pure, deterministic (the same problem in any insertion order gives the same plan) and
 * thread-safe: every call builds its own state; nothing is static and mutable.
 *
 * <p>Example: two clients of one thread in az1 and az2, four fresh stateful tasks, strategy
 * none: round robin gives {@code 0_0, 0_2} to the first and {@code 0_1, 0_3} to the second
 * (clients in Kafka's order, by process UUID); nothing moves, no follow-up.
 */
public final class TaskCore {
    private TaskCore() {
    }

    /** Assigns every task of {@code problem}; never returns null. */
    public static TaskPlan assign(TaskProblem problem) {
        return HighAvailability.run(problem);
    }
}
