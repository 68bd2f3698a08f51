package dev.rackwise.plugins.classic;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

import dev.rackwise.plugins.plan.Plan;
import dev.rackwise.plugins.request.AssignRequest;
import dev.rackwise.plugins.request.RequestMember;
import dev.rackwise.plugins.request.RequestProtocol;
import dev.rackwise.plugins.request.RequestTopic;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Assignment;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.GroupAssignment;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.GroupSubscription;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.RebalanceProtocol;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Subscription;
import org.apache.kafka.common.Cluster;

/** Classic leader's inputs to a request, and a validated plan to the leader's GroupAssignment. */
public final class ClassicTranslator {
    private ClassicTranslator() {
    }

    /**
     * Topics: every topic some member subscribes to that the leader's metadata knows, with its
     * partition count, sorted by name (a topic without metadata is left out, as Kafka's own
     * assignors skip it). Members: sorted by member id, each subscription as the leader got it.
     */
    public static AssignRequest request(RebalanceProtocol protocol, Cluster cluster, GroupSubscription group) {
        Map<String, Subscription> subs = new TreeMap<>(group.groupSubscription());
        TreeSet<String> names = new TreeSet<>();
        for (Subscription s : subs.values()) {
            names.addAll(s.topics());
        }
        List<RequestTopic> topics = new ArrayList<>();
        for (String name : names) {
            Integer count = cluster.partitionCountForTopic(name);
            if (count != null) {
                topics.add(new RequestTopic(name, count));
            }
        }
        List<RequestMember> members = new ArrayList<>();
        for (Map.Entry<String, Subscription> e : subs.entrySet()) {
            members.add(new RequestMember(e.getKey(), e.getValue().groupInstanceId().orElse(null), e.getValue()));
        }
        RequestProtocol p = protocol == RebalanceProtocol.EAGER
            ? RequestProtocol.CLASSIC_EAGER : RequestProtocol.CLASSIC_COOPERATIVE;
        return new AssignRequest(p, topics, members);
    }

    /** Each member's partitions in plan order; withheld partitions go to nobody this round. */
    public static GroupAssignment assignment(Plan plan, AssignRequest request) {
        Map<String, Assignment> out = new HashMap<>();
        for (RequestMember m : request.members()) {
            out.put(m.memberId(), new Assignment(List.copyOf(plan.members().getOrDefault(m.memberId(), List.of()))));
        }
        return new GroupAssignment(out);
    }
}
