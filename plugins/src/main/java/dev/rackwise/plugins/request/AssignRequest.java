package dev.rackwise.plugins.request;

import java.util.List;

/**
 * RackwiseAssignRequest v0: what a plug-in asks the agent to plan (plugins/README.md).
 * Topics are sorted by name; members keep the order they are given in.
 */
public record AssignRequest(RequestProtocol protocol, List<RequestTopic> topics, List<RequestMember> members) {
    public static final short VERSION = 0;

    public AssignRequest {
        if (protocol == null) {
            throw new IllegalArgumentException("protocol is required");
        }
        topics = List.copyOf(topics);
        members = List.copyOf(members);
    }
}
