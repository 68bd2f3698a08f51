package dev.rackwise.plugins.plan;

/** A reply that is not a readable AssignmentPlan (bad JSON, a missing or mistyped field). */
public class PlanFormatException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public PlanFormatException(String message) {
        super(message);
    }
}
