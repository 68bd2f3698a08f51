package dev.rackwise.plugins.core;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import dev.rackwise.plugins.plan.Plan;
import dev.rackwise.plugins.request.AssignRequest;
import dev.rackwise.plugins.request.RequestMember;
import dev.rackwise.plugins.request.RequestProtocol;
import dev.rackwise.plugins.request.RequestTopic;
import org.apache.kafka.common.TopicPartition;

/**
 * Checks a plan against the request it answers before anything uses it. Decides nothing itself:
 * it only says whether the plan can be handed to Kafka as it is.
 *
 * <ul>
 * <li>the plan is for this group and of kind consumer;</li>
 * <li>its members are exactly the request's members;</li>
 * <li>every partition exists (topic in the request, 0 &lt;= p &lt; count), goes to a member subscribed
 *     to its topic, and is assigned at most once;</li>
 * <li>classic-cooperative only: no partition goes to a new owner while another member still lists
 *     it as owned (Kafka's ConsumerCoordinator would reject such an assignment).</li>
 * </ul>
 */
public final class PlanValidator {
    private PlanValidator() {
    }

    /** Empty when the plan is usable, else what is wrong with it. */
    public static Optional<String> problem(String groupId, AssignRequest request, Plan plan) {
        if (!groupId.equals(plan.groupId())) {
            return Optional.of("plan is for group \"" + plan.groupId() + "\", not \"" + groupId + "\"");
        }
        if (!"consumer".equals(plan.kind())) {
            return Optional.of("plan is of kind \"" + plan.kind() + "\", not consumer");
        }
        Map<String, Integer> counts = new HashMap<>();
        for (RequestTopic t : request.topics()) {
            counts.put(t.name(), t.partitions());
        }
        Map<String, RequestMember> members = new HashMap<>();
        for (RequestMember m : request.members()) {
            members.put(m.memberId(), m);
        }
        for (String id : plan.members().keySet()) {
            if (!members.containsKey(id)) {
                return Optional.of("plan names member " + id + ", who is not in the group");
            }
        }
        for (String id : members.keySet()) {
            if (!plan.members().containsKey(id)) {
                return Optional.of("plan leaves out member " + id);
            }
        }
        Map<TopicPartition, String> owners = request.protocol() == RequestProtocol.CLASSIC_COOPERATIVE
            ? ownersOf(request) : Map.of();
        Set<TopicPartition> seen = new HashSet<>();
        for (Map.Entry<String, List<TopicPartition>> e : plan.members().entrySet()) {
            RequestMember member = members.get(e.getKey());
            for (TopicPartition tp : e.getValue()) {
                Integer count = counts.get(tp.topic());
                if (count == null) {
                    return Optional.of(tp + " is of a topic the request does not have");
                }
                if (tp.partition() < 0 || tp.partition() >= count) {
                    return Optional.of(tp + " does not exist: " + tp.topic() + " has " + count + " partitions");
                }
                if (!member.subscription().topics().contains(tp.topic())) {
                    return Optional.of(tp + " goes to " + e.getKey() + ", who is not subscribed to " + tp.topic());
                }
                if (!seen.add(tp)) {
                    return Optional.of(tp + " is assigned more than once");
                }
                String owner = owners.get(tp);
                if (owner != null && !owner.equals(e.getKey()) && !ownedBy(member, tp)) {
                    return Optional.of(tp + " goes to " + e.getKey() + " while " + owner
                        + " still owns it (cooperative: it must be revoked first)");
                }
            }
        }
        return Optional.empty();
    }

    private static Map<TopicPartition, String> ownersOf(AssignRequest request) {
        Map<TopicPartition, String> owners = new HashMap<>();
        for (RequestMember m : request.members()) {
            for (TopicPartition tp : m.subscription().ownedPartitions()) {
                owners.putIfAbsent(tp, m.memberId());
            }
        }
        return owners;
    }

    private static boolean ownedBy(RequestMember member, TopicPartition tp) {
        return member.subscription().ownedPartitions().contains(tp);
    }
}
