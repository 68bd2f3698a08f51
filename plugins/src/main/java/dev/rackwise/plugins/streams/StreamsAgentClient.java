package dev.rackwise.plugins.streams;

import java.util.Optional;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

import dev.rackwise.plugins.plan.PlanFormatException;
import dev.rackwise.plugins.transport.Contract;
import dev.rackwise.plugins.transport.ExchangeException;
import dev.rackwise.plugins.transport.Transport;

/**
 * The Streams side of the exchange with the agent (the consumer plug-ins' AgentClient, for kind
 * {@code streams}): send the request within the bound, read and validate the plan, and say why
 * not when there is none. After a time-out or a transport failure the agent is not asked again
 * for {@code backoffMs}.
 *
 * Kafka Streams builds a new task assignor on every rebalance (AssignorConfiguration
 * .customTaskAssignor), so the back-off and the counts live here, in one client per application
 * and settings that outlives the assignor instances (RackwiseTaskAssignor keeps them).
 */
public final class StreamsAgentClient {
    /** A validated plan to use, or why to fall back. */
    public record Result(StreamsPlan plan, FallbackReason reason, String detail) {
        public static Result use(StreamsPlan plan) {
            return new Result(plan, null, null);
        }

        public static Result fallback(FallbackReason reason, String detail) {
            return new Result(null, reason, detail);
        }

        public boolean usesPlan() {
            return plan != null;
        }
    }

    private final Supplier<Transport> transport;
    private final long timeoutMs;
    private final long backoffMs;
    private final LongSupplier clockMs;
    private final AssignStats stats = new AssignStats();
    private volatile long askAgainAtMs;

    public StreamsAgentClient(Supplier<Transport> transport, long timeoutMs, long backoffMs, LongSupplier clockMs) {
        this.transport = transport;
        this.timeoutMs = timeoutMs;
        this.backoffMs = backoffMs;
        this.clockMs = clockMs;
    }

    public AssignStats stats() {
        return stats;
    }

    /** Counts what one assign() finally did (the caller decides: Kafka may still refuse a plan). */
    public void record(Result result) {
        if (result.usesPlan()) {
            stats.computed();
        } else {
            stats.fallback(result.reason());
        }
    }

    /** The agent's validated plan for {@code request}, or the reason to fall back. Never throws. */
    public Result request(StreamsRequest request) {
        try {
            return ask(request);
        } catch (RuntimeException e) {
            return Result.fallback(FallbackReason.INTERNAL, e.toString());
        }
    }

    private Result ask(StreamsRequest request) {
        long now = clockMs.getAsLong();
        long askAgainAt = askAgainAtMs;
        if (now < askAgainAt) {
            return Result.fallback(FallbackReason.BACKING_OFF, "the agent timed out or was unreachable recently; "
                + "asking again in " + (askAgainAt - now) + " ms (rackwise.backoff.ms)");
        }
        byte[] bytes = request.encode();
        byte[] reply;
        try {
            Transport t = transport.get();  // the first call builds the clients: that counts too
            long left = timeoutMs - (clockMs.getAsLong() - now);
            if (left <= 0) {
                throw new ExchangeException(ExchangeException.Failure.TIMEOUT,
                    "no time left within " + timeoutMs + " ms after starting the plug-in's Kafka clients");
            }
            reply = t.exchange(request.applicationId(), Contract.KIND_STREAMS, bytes, left);
        } catch (ExchangeException e) {
            switch (e.failure()) {
                case ERROR_REPLY:
                    return Result.fallback(FallbackReason.ERROR_REPLY, e.getMessage());
                case TIMEOUT:
                    backOff();
                    return Result.fallback(FallbackReason.TIMEOUT, e.getMessage());
                default:
                    backOff();
                    return Result.fallback(FallbackReason.TRANSPORT, e.getMessage());
            }
        } catch (RuntimeException e) {
            backOff();
            return Result.fallback(FallbackReason.TRANSPORT, "cannot reach the agent's topics: " + e);
        }
        StreamsPlan plan;
        try {
            plan = StreamsPlanReader.read(reply);
        } catch (PlanFormatException e) {
            return Result.fallback(FallbackReason.BAD_PLAN, e.getMessage());
        }
        Optional<String> problem = StreamsPlanValidator.problem(request, plan);
        if (problem.isPresent()) {
            return Result.fallback(FallbackReason.INVALID_PLAN, "plan generation " + plan.generation() + ": "
                + problem.get());
        }
        return Result.use(plan);
    }

    private void backOff() {
        if (backoffMs > 0) {
            askAgainAtMs = clockMs.getAsLong() + backoffMs;
        }
    }
}
