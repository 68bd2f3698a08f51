package dev.rackwise.plugins.core;

import java.util.Optional;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

import dev.rackwise.plugins.plan.Plan;
import dev.rackwise.plugins.plan.PlanFormatException;
import dev.rackwise.plugins.plan.PlanReader;
import dev.rackwise.plugins.request.AssignRequest;
import dev.rackwise.plugins.request.RequestCodec;
import dev.rackwise.plugins.transport.Contract;
import dev.rackwise.plugins.transport.ExchangeException;
import dev.rackwise.plugins.transport.Transport;

/**
 * What both plug-ins share: encode the request, ask the agent within the bound, read and
 * validate the plan, and say why not when there is none. After a time-out or a transport
 * failure the agent is not asked again for {@code backoffMs}, so a group whose agent is down
 * falls back at once instead of waiting out the bound on every rebalance.
 */
public final class AgentClient {
    private final Supplier<Transport> transport;
    private final long timeoutMs;
    private final long backoffMs;
    private final LongSupplier clockMs;
    private volatile long askAgainAtMs;

    public AgentClient(Supplier<Transport> transport, long timeoutMs, long backoffMs, LongSupplier clockMs) {
        this.transport = transport;
        this.timeoutMs = timeoutMs;
        this.backoffMs = backoffMs;
        this.clockMs = clockMs;
    }

    /** The agent's validated plan for {@code request}, or the reason to fall back. Never throws. */
    public Outcome request(String groupId, AssignRequest request) {
        return request(groupId, request, timeoutMs);
    }

    /** As {@link #request(String, AssignRequest)} with a shorter bound for this call. */
    public Outcome request(String groupId, AssignRequest request, long boundMs) {
        try {
            return ask(groupId, request, Math.max(1, Math.min(boundMs, timeoutMs)));
        } catch (RuntimeException e) {
            return Outcome.fallback(FallbackReason.INTERNAL, e.toString());
        }
    }

    private Outcome ask(String groupId, AssignRequest request, long boundMs) {
        long now = clockMs.getAsLong();
        long askAgainAt = askAgainAtMs;
        if (now < askAgainAt) {
            return Outcome.fallback(FallbackReason.BACKING_OFF, "the agent timed out or was unreachable recently; "
                + "asking again in " + (askAgainAt - now) + " ms (rackwise.backoff.ms)");
        }
        byte[] bytes = RequestCodec.encode(request);
        byte[] reply;
        try {
            // The first call builds the transport: that time counts against the bound too.
            Transport t = transport.get();
            long left = boundMs - (clockMs.getAsLong() - now);
            if (left <= 0) {
                throw new ExchangeException(ExchangeException.Failure.TIMEOUT,
                    "no time left within " + boundMs + " ms after starting the plug-in's Kafka clients");
            }
            reply = t.exchange(groupId, Contract.KIND_CONSUMER, bytes, left);
        } catch (ExchangeException e) {
            switch (e.failure()) {
                case ERROR_REPLY:
                    return Outcome.fallback(FallbackReason.ERROR_REPLY, e.getMessage());
                case TIMEOUT:
                    backOff();
                    return Outcome.fallback(FallbackReason.TIMEOUT, e.getMessage());
                default:
                    backOff();
                    return Outcome.fallback(FallbackReason.TRANSPORT, e.getMessage());
            }
        } catch (RuntimeException e) {
            backOff();
            return Outcome.fallback(FallbackReason.TRANSPORT, "cannot reach the agent's topics: " + e);
        }
        Plan plan;
        try {
            plan = PlanReader.read(reply);
        } catch (PlanFormatException e) {
            return Outcome.fallback(FallbackReason.BAD_PLAN, e.getMessage());
        }
        Optional<String> problem = PlanValidator.problem(groupId, request, plan);
        if (problem.isPresent()) {
            return Outcome.fallback(FallbackReason.INVALID_PLAN,
                "plan generation " + plan.generation() + ": " + problem.get());
        }
        return Outcome.use(plan);
    }

    private void backOff() {
        if (backoffMs > 0) {
            askAgainAtMs = clockMs.getAsLong() + backoffMs;
        }
    }
}
