package dev.rackwise.plugins.transport;

/** A request that got no usable reply: why, and for an error reply the agent's code and detail. */
public class ExchangeException extends Exception {
    private static final long serialVersionUID = 1L;

    /** What went wrong, as counted and logged by the plug-ins. */
    public enum Failure {
        /** No reply within the bound. */
        TIMEOUT,
        /** Kafka could not be reached or the request could not be written. */
        TRANSPORT,
        /** The agent answered on the dead-letter topic. */
        ERROR_REPLY
    }

    private final Failure failure;
    private final String errorCode;

    public ExchangeException(Failure failure, String message) {
        this(failure, null, message, null);
    }

    public ExchangeException(Failure failure, String errorCode, String message, Throwable cause) {
        super(message, cause);
        this.failure = failure;
        this.errorCode = errorCode;
    }

    public Failure failure() {
        return failure;
    }

    /** The {@code rackwise-error} header of an error reply, else null. */
    public String errorCode() {
        return errorCode;
    }
}
