package dev.rackwise.plugins.core;

import dev.rackwise.plugins.plan.Plan;

/** Either a validated plan to use, or why to fall back. */
public record Outcome(Plan plan, FallbackReason reason, String detail) {
    public static Outcome use(Plan plan) {
        return new Outcome(plan, null, null);
    }

    public static Outcome fallback(FallbackReason reason, String detail) {
        return new Outcome(null, reason, detail);
    }

    public boolean usesPlan() {
        return plan != null;
    }
}
