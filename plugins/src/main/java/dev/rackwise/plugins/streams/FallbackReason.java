package dev.rackwise.plugins.streams;

/** Why the task assignor used Kafka's StickyTaskAssignor instead of its own assignment (counted and logged). */
public enum FallbackReason {
    /** Kafka's inputs could not be made into a task problem (the core's TaskInputException). */
    INPUT,
    /** Kafka's TaskAssignmentUtils.validateTaskAssignment rejected the computed assignment. */
    INVALID_ASSIGNMENT,
    /** Anything unexpected; the plug-in never lets it escape. */
    INTERNAL
}
