package dev.rackwise.plugins.request;

import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Subscription;

/**
 * One member of the group: its id, static instance id (null when dynamic) and its subscription,
 * written on the wire as ConsumerProtocolSubscription v3 bytes.
 */
public record RequestMember(String memberId, String instanceId, Subscription subscription) {
    public RequestMember {
        if (memberId == null || subscription == null) {
            throw new IllegalArgumentException("member id and subscription are required");
        }
    }
}
