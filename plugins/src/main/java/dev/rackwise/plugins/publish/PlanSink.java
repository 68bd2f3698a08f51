package dev.rackwise.plugins.publish;

/** Where computed plans go; {@link #offer} never blocks and never throws. */
public interface PlanSink {
    /** A sink that keeps nothing (no publisher configured). */
    PlanSink NONE = plan -> false;

    /** Queue the plan for publishing; false when it was dropped (queue full, publisher off). */
    boolean offer(ComputedPlan plan);
}
