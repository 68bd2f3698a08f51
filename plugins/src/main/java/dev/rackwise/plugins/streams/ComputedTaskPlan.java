package dev.rackwise.plugins.streams;

import dev.rackwise.tasks.TaskPlan;

/**
 * One assignment the task assignor computed, as handed to the background reports: the
 * translated problem (immutable), the core's plan, how long assign() took and when it ran.
 */
public record ComputedTaskPlan(String applicationId, TaskProblems.Translated input, TaskPlan plan, long assignMicros,
                               long createdAtMs) {
}
