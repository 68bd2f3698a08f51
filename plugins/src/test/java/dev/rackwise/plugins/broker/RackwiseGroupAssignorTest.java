package dev.rackwise.plugins.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import dev.rackwise.plugins.RackwiseGroupAssignor;
import dev.rackwise.plugins.core.FallbackReason;
import dev.rackwise.plugins.core.StubTransport;
import dev.rackwise.plugins.request.AssignRequest;
import dev.rackwise.plugins.request.RequestMember;
import dev.rackwise.plugins.request.RequestProtocol;
import dev.rackwise.plugins.request.RequestTopic;
import dev.rackwise.plugins.transport.Settings;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.coordinator.group.api.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.api.assignor.GroupSpec;
import org.apache.kafka.coordinator.group.api.assignor.SubscribedTopicDescriber;
import org.apache.kafka.coordinator.group.api.assignor.SubscriptionType;
import org.apache.kafka.coordinator.group.assignor.UniformAssignor;
import org.apache.kafka.coordinator.group.modern.Assignment;
import org.apache.kafka.coordinator.group.modern.GroupSpecImpl;
import org.apache.kafka.coordinator.group.modern.MemberSubscriptionAndAssignmentImpl;
import org.junit.jupiter.api.Test;

class RackwiseGroupAssignorTest {
    static final Uuid ORDERS = Uuid.fromString("AAAAAAAAAAAAAAAAAAAAAQ");
    static final Map<Uuid, String> NAMES = Map.of(ORDERS, "orders");

    /** The coordinator's own GroupSpec: m1 (az1) holds orders-0..2 as its target; m2 (az2) is new. */
    static GroupSpec spec() {
        Map<String, MemberSubscriptionAndAssignmentImpl> members = new HashMap<>();
        members.put("m1", new MemberSubscriptionAndAssignmentImpl(Optional.of("az1"), Optional.of("i1"), Set.of(ORDERS),
            new Assignment(Map.of(ORDERS, Set.of(0, 1, 2)))));
        members.put("m2", new MemberSubscriptionAndAssignmentImpl(Optional.of("az2"), Optional.empty(), Set.of(ORDERS),
            new Assignment(Map.of())));
        Map<Uuid, Map<Integer, String>> inverted = Map.of(ORDERS, Map.of(0, "m1", 1, "m1", 2, "m1"));
        return new GroupSpecImpl(members, SubscriptionType.HOMOGENEOUS, inverted);
    }

    static final SubscribedTopicDescriber TOPICS = new SubscribedTopicDescriber() {
        @Override
        public int numPartitions(Uuid topicId) {
            return topicId.equals(ORDERS) ? 3 : -1;
        }

        @Override
        public Set<String> racksForPartition(Uuid topicId, int partition) {
            return Set.of();
        }
    };

    static RackwiseGroupAssignor assignor(StubTransport transport, Map<Uuid, String> names, String group) {
        BrokerLookups lookups = new BrokerLookups(transport, (ids, timeout) -> {
            Map<Uuid, String> out = new HashMap<>(names);
            out.keySet().retainAll(ids);
            return out;
        }, members -> Optional.ofNullable(group));
        RackwiseGroupAssignor a = new RackwiseGroupAssignor(s -> lookups);
        Map<String, Object> broker = new HashMap<>();
        broker.put("node.id", "1");
        broker.put("listeners", "PLAINTEXT://127.0.0.1:21092,CONTROLLER://127.0.0.1:21093");
        broker.put("controller.listener.names", "CONTROLLER");
        a.configure(broker);
        return a;
    }

    static GroupAssignment uniform() {
        return new UniformAssignor().assign(spec(), TOPICS);
    }

    @Test
    void usesAValidPlanByTopicId() {
        StubTransport t = new StubTransport((g, r) -> StubTransport.plan(g, 9,
            Map.of("m1", List.of("orders-0", "orders-2"), "m2", List.of("orders-1"))));
        RackwiseGroupAssignor a = assignor(t, NAMES, "g848");
        GroupAssignment ga = a.assign(spec(), TOPICS);
        assertEquals(Map.of(ORDERS, Set.of(0, 2)), ga.members().get("m1").partitions());
        assertEquals(Map.of(ORDERS, Set.of(1)), ga.members().get("m2").partitions());
        assertEquals(1, a.stats().plansUsed());

        AssignRequest sent = t.requests.get(0);
        assertEquals("g848", t.groups.get(0));
        assertEquals(RequestProtocol.CONSUMER, sent.protocol());
        assertEquals(List.of(new RequestTopic("orders", 3)), sent.topics());
        RequestMember m1 = sent.members().get(0);
        assertEquals("m1", m1.memberId());
        assertEquals("i1", m1.instanceId());
        assertEquals(List.of("orders"), m1.subscription().topics());
        assertEquals(List.of(new TopicPartition("orders", 0), new TopicPartition("orders", 1),
            new TopicPartition("orders", 2)), m1.subscription().ownedPartitions());
        assertEquals(Optional.empty(), m1.subscription().generationId()); // -1 on the wire
        assertEquals(Optional.of("az1"), m1.subscription().rackId());
        assertNull(sent.members().get(1).instanceId());
    }

    @Test
    void unknownGroupFallsBackToUniform() {
        StubTransport t = new StubTransport((g, r) -> {
            throw new AssertionError("must not be asked");
        });
        RackwiseGroupAssignor a = assignor(t, NAMES, null);
        assertEquals(uniform(), a.assign(spec(), TOPICS));
        assertEquals(1, a.stats().fallbacks(FallbackReason.UNRESOLVED));
    }

    @Test
    void clientsStillStartingFallsBackToUniform() {
        RackwiseGroupAssignor a = new RackwiseGroupAssignor(s -> null);
        a.configure(Map.of(Settings.BOOTSTRAP, "agent-kafka:9092"));
        assertEquals(uniform(), a.assign(spec(), TOPICS));
        assertEquals(1, a.stats().fallbacks(FallbackReason.NOT_READY));
    }

    @Test
    void unnamedTopicFallsBackToUniform() {
        RackwiseGroupAssignor a = assignor(new StubTransport((g, r) -> "{}"), Map.of(), "g848");
        assertEquals(uniform(), a.assign(spec(), TOPICS));
        assertEquals(1, a.stats().fallbacks(FallbackReason.UNRESOLVED));
    }

    @Test
    void invalidPlanFallsBackToUniform() {
        StubTransport t = new StubTransport((g, r) -> StubTransport.plan(g, 9,
            Map.of("m1", List.of("orders-0", "orders-3"), "m2", List.of())));
        RackwiseGroupAssignor a = assignor(t, NAMES, "g848");
        assertEquals(uniform(), a.assign(spec(), TOPICS));
        assertEquals(1, a.stats().fallbacks(FallbackReason.INVALID_PLAN));
    }

    @Test
    void bootstrapIsTheBrokersOwnListenerElseRequired() {
        Map<String, Object> broker = new HashMap<>();
        broker.put("listeners", "PLAINTEXT://127.0.0.1:21092,CONTROLLER://127.0.0.1:21093,SASL_PLAINTEXT://127.0.0.1:21094");
        broker.put("advertised.listeners", "PLAINTEXT://kafka1:21092,SASL_PLAINTEXT://kafka1:21094");
        broker.put("inter.broker.listener.name", "SASL_PLAINTEXT");
        BrokerListener l = BrokerListener.of(broker).orElseThrow();
        assertEquals("kafka1:21094", l.bootstrap());
        assertEquals("SASL_PLAINTEXT", l.securityProtocol());

        broker.put("listener.security.protocol.map", "INTERNAL:SSL,CONTROLLER:PLAINTEXT");
        broker.put("listeners", "INTERNAL://:9093");
        broker.remove("advertised.listeners");
        broker.put("inter.broker.listener.name", "INTERNAL");
        assertEquals(new BrokerListener("INTERNAL", "localhost", 9093, "SSL"), BrokerListener.of(broker).orElseThrow());

        RackwiseGroupAssignor a = new RackwiseGroupAssignor(s -> null);
        assertThrows(ConfigException.class, () -> a.configure(Map.of("process.roles", "broker")));
        a.configure(Map.of(Settings.BOOTSTRAP, "agent-kafka:9092", Settings.TIMEOUT_MS, "1500"));
    }
}
