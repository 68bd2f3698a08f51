package dev.rackwise.plugins.broker;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import dev.rackwise.plugins.plan.Plan;
import dev.rackwise.plugins.request.AssignRequest;
import dev.rackwise.plugins.request.RequestMember;
import dev.rackwise.plugins.request.RequestProtocol;
import dev.rackwise.plugins.request.RequestTopic;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Subscription;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.coordinator.group.api.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.api.assignor.GroupSpec;
import org.apache.kafka.coordinator.group.api.assignor.MemberAssignment;
import org.apache.kafka.coordinator.group.api.assignor.MemberSubscription;
import org.apache.kafka.coordinator.group.api.assignor.SubscribedTopicDescriber;

/**
 * A KIP-848 GroupSpec to a request (protocol {@code consumer}) and a validated plan back to the
 * coordinator's GroupAssignment. Each member becomes a v3 subscription: its subscribed topics by
 * name, its current target assignment as owned partitions, generation -1, its rack.
 */
public final class GroupSpecTranslator {
    private GroupSpecTranslator() {
    }

    /** Every topic id the spec mentions: subscriptions and current targets. */
    public static Set<Uuid> topicIds(GroupSpec spec) {
        Set<Uuid> ids = new HashSet<>();
        for (String m : spec.memberIds()) {
            ids.addAll(spec.memberSubscription(m).subscribedTopicIds());
            ids.addAll(spec.memberAssignment(m).partitions().keySet());
        }
        return ids;
    }

    /** Subscribed topic ids that {@code names} cannot name. */
    public static Set<Uuid> unnamedSubscriptions(GroupSpec spec, Map<Uuid, String> names) {
        Set<Uuid> missing = new TreeSet<>(Comparator.comparing(Uuid::toString));
        for (String m : spec.memberIds()) {
            for (Uuid id : spec.memberSubscription(m).subscribedTopicIds()) {
                if (!names.containsKey(id)) {
                    missing.add(id);
                }
            }
        }
        return missing;
    }

    public static AssignRequest request(GroupSpec spec, SubscribedTopicDescriber topics, Map<Uuid, String> names) {
        TreeSet<String> subscribed = new TreeSet<>();
        Map<String, Uuid> idOf = new HashMap<>();
        for (String m : spec.memberIds()) {
            for (Uuid id : spec.memberSubscription(m).subscribedTopicIds()) {
                String name = names.get(id);
                if (name != null && subscribed.add(name)) {
                    idOf.put(name, id);
                }
            }
        }
        List<RequestTopic> requestTopics = new ArrayList<>();
        for (String name : subscribed) {
            int count = topics.numPartitions(idOf.get(name));
            if (count >= 0) {
                requestTopics.add(new RequestTopic(name, count));
            }
        }
        List<RequestMember> members = new ArrayList<>();
        for (String m : new TreeSet<>(spec.memberIds())) {
            MemberSubscription sub = spec.memberSubscription(m);
            List<String> memberTopics = new ArrayList<>();
            for (Uuid id : sub.subscribedTopicIds()) {
                String name = names.get(id);
                if (name != null) {
                    memberTopics.add(name);
                }
            }
            memberTopics.sort(null);
            List<TopicPartition> owned = new ArrayList<>();
            for (Map.Entry<Uuid, Set<Integer>> e : spec.memberAssignment(m).partitions().entrySet()) {
                String name = names.get(e.getKey());
                if (name != null) {
                    for (int p : e.getValue()) {
                        owned.add(new TopicPartition(name, p));
                    }
                }
            }
            owned.sort(Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition));
            Subscription subscription = new Subscription(memberTopics, null, owned, -1, sub.rackId());
            members.add(new RequestMember(m, sub.instanceId().orElse(null), subscription));
        }
        return new AssignRequest(RequestProtocol.CONSUMER, requestTopics, members);
    }

    /** The plan by topic id; {@code names} must name every topic of the plan (validation saw to it). */
    public static GroupAssignment assignment(Plan plan, AssignRequest request, Map<Uuid, String> names) {
        Map<String, Uuid> idOf = new HashMap<>();
        names.forEach((id, name) -> idOf.put(name, id));
        Map<String, MemberAssignment> out = new HashMap<>();
        for (RequestMember m : request.members()) {
            Map<Uuid, Set<Integer>> parts = new HashMap<>();
            for (TopicPartition tp : plan.members().getOrDefault(m.memberId(), List.of())) {
                parts.computeIfAbsent(idOf.get(tp.topic()), k -> new HashSet<>()).add(tp.partition());
            }
            out.put(m.memberId(), new TargetAssignment(parts));
        }
        return new GroupAssignment(out);
    }
}
