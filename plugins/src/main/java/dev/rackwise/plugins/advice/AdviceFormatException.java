package dev.rackwise.plugins.advice;

/** An advice record that cannot be used, and why. */
public final class AdviceFormatException extends RuntimeException {
    private final IgnoredReason reason;

    public AdviceFormatException(IgnoredReason reason, String message) {
        super(message);
        this.reason = reason;
    }

    public IgnoredReason reason() {
        return reason;
    }
}
