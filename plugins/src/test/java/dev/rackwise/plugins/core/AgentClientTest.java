package dev.rackwise.plugins.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import dev.rackwise.plugins.request.RequestProtocol;
import dev.rackwise.plugins.transport.ExchangeException;
import dev.rackwise.plugins.transport.ExchangeException.Failure;
import org.junit.jupiter.api.Test;

class AgentClientTest {
    final AtomicLong now = new AtomicLong(1_000);

    AgentClient client(StubTransport transport) {
        return new AgentClient(() -> transport, 5000, 10_000, now::get);
    }

    @Test
    void timeoutBacksOffThenAsksAgain() {
        int[] calls = {0};
        StubTransport t = new StubTransport((g, r) -> {
            calls[0]++;
            throw new ExchangeException(Failure.TIMEOUT, "no reply within 5000 ms");
        });
        AgentClient c = client(t);
        assertEquals(FallbackReason.TIMEOUT, c.request("g", PlanValidatorTest.request(RequestProtocol.CLASSIC_EAGER)).reason());
        now.addAndGet(9_999);
        Outcome o = c.request("g", PlanValidatorTest.request(RequestProtocol.CLASSIC_EAGER));
        assertEquals(FallbackReason.BACKING_OFF, o.reason());
        assertEquals(1, calls[0]);
        now.addAndGet(1);
        assertEquals(FallbackReason.TIMEOUT, c.request("g", PlanValidatorTest.request(RequestProtocol.CLASSIC_EAGER)).reason());
        assertEquals(2, calls[0]);
    }

    @Test
    void errorReplyDoesNotBackOff() {
        StubTransport t = new StubTransport((g, r) -> {
            throw new ExchangeException(Failure.ERROR_REPLY, "unknown-topic", "the agent rejected the request", null);
        });
        AgentClient c = client(t);
        Outcome o = c.request("g", PlanValidatorTest.request(RequestProtocol.CLASSIC_EAGER));
        assertEquals(FallbackReason.ERROR_REPLY, o.reason());
        assertEquals(FallbackReason.ERROR_REPLY, c.request("g", PlanValidatorTest.request(RequestProtocol.CLASSIC_EAGER)).reason());
    }

    @Test
    void badAndInvalidPlans() {
        AgentClient notJson = client(new StubTransport((g, r) -> "not json"));
        assertEquals(FallbackReason.BAD_PLAN, notJson.request("g", PlanValidatorTest.request(RequestProtocol.CLASSIC_EAGER)).reason());
        AgentClient twice = client(new StubTransport((g, r) -> StubTransport.plan(g, 1,
            Map.of("a", List.of("t-0"), "b", List.of("t-0"), "c", List.of()))));
        Outcome o = twice.request("g", PlanValidatorTest.request(RequestProtocol.CLASSIC_EAGER));
        assertEquals(FallbackReason.INVALID_PLAN, o.reason());
        assertTrue(o.detail().contains("more than once"), o.detail());
    }

    @Test
    void transportThatCannotBeBuiltIsATransportFailure() {
        AgentClient c = new AgentClient(() -> {
            throw new IllegalStateException("no such host");
        }, 5000, 0, now::get);
        assertEquals(FallbackReason.TRANSPORT, c.request("g", PlanValidatorTest.request(RequestProtocol.CLASSIC_EAGER)).reason());
        // back-off 0: asked again at once
        assertEquals(FallbackReason.TRANSPORT, c.request("g", PlanValidatorTest.request(RequestProtocol.CLASSIC_EAGER)).reason());
    }

    @Test
    void statsCountByReason() {
        AssignStats s = new AssignStats();
        s.record(Outcome.fallback(FallbackReason.TIMEOUT, "x"));
        s.record(Outcome.fallback(FallbackReason.TIMEOUT, "x"));
        assertEquals("plans_used=0 fallbacks={timeout=2}", s.toString());
    }
}
