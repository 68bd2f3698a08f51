package dev.rackwise.plugins.transport;

/** Sends one request to the agent through Kafka and waits for its reply. */
public interface Transport extends AutoCloseable {
    /**
     * Writes {@code request} for {@code groupId} and returns the plan JSON bytes of the reply.
     * Returns or throws within {@code timeoutMs}.
     */
    byte[] exchange(String groupId, String kind, byte[] request, long timeoutMs) throws ExchangeException;

    /**
     * Does ahead of time, within {@code timeoutMs}, what the first request would otherwise pay
     * for inside its bound (metadata, positioning the reply reader on every plans partition).
     * Best effort: never throws; a request still does whatever is left.
     */
    default void warmUp(long timeoutMs) {
    }

    @Override
    void close();
}
