package dev.rackwise.core;

/**
 * A rack-optimal problem that cannot be solved as given: the message names what is wrong
 * (a duplicate member, a negative weight, costs too large to solve exactly).
 */
public final class CoreInputException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    public CoreInputException(String message) {
        super(message);
    }
}
