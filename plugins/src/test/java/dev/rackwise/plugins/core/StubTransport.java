package dev.rackwise.plugins.core;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;

import dev.rackwise.plugins.request.AssignRequest;
import dev.rackwise.plugins.request.RequestCodec;
import dev.rackwise.plugins.transport.ExchangeException;
import dev.rackwise.plugins.transport.Transport;

/** A transport that answers from a function of the decoded request (pure unit tests only). */
public final class StubTransport implements Transport {
    /** What the fake agent does with a request. */
    @FunctionalInterface
    public interface Agent {
        String reply(String groupId, AssignRequest request) throws ExchangeException;
    }

    public final List<AssignRequest> requests = new ArrayList<>();
    public final List<String> groups = new ArrayList<>();
    private final Agent agent;

    public StubTransport(Agent agent) {
        this.agent = agent;
    }

    @Override
    public byte[] exchange(String groupId, String kind, byte[] request, long timeoutMs) throws ExchangeException {
        AssignRequest decoded = RequestCodec.decode(ByteBuffer.wrap(request));
        requests.add(decoded);
        groups.add(groupId);
        return agent.reply(groupId, decoded).getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public void close() {
    }

    /** Plan JSON giving each member the partitions listed as "topic-partition". */
    public static String plan(String groupId, long generation, Map<String, List<String>> members) {
        StringJoiner ms = new StringJoiner(",", "[", "]");
        members.forEach((id, parts) -> {
            StringJoiner ps = new StringJoiner(",", "[", "]");
            for (String p : parts) {
                int dash = p.lastIndexOf('-');
                ps.add("{\"topic\":\"" + p.substring(0, dash) + "\",\"partition\":" + p.substring(dash + 1) + "}");
            }
            ms.add("{\"member_id\":\"" + id + "\",\"partitions\":" + ps + "}");
        });
        return "{\"group_id\":\"" + groupId + "\",\"kind\":\"consumer\",\"generation\":" + generation
            + ",\"members\":" + ms + ",\"withheld\":[],\"followup_ms\":null}";
    }
}
