package dev.rackwise.plugins.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.rackwise.plugins.RackwiseGroupAssignor;
import dev.rackwise.plugins.RackwiseUniformAssignor;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.coordinator.group.GroupCoordinatorConfig;
import org.apache.kafka.coordinator.group.api.assignor.ConsumerGroupPartitionAssignor;
import org.junit.jupiter.api.Test;

/**
 * The drop-in for {@code uniform}: the same answer as RackwiseGroupAssignor under the name
 * {@code uniform}, and what the group coordinator's own config (the release on the test class
 * path: 4.4.0 by default in {@code make plugins-test}) makes of the lists an operator may write.
 */
class RackwiseUniformAssignorTest {
    private static final String DROP_IN = RackwiseUniformAssignor.class.getName();

    private static Map<String, Object> broker(String node, String assignors) {
        Map<String, Object> b = new HashMap<>();
        b.put("node.id", node);
        b.put("listeners", "PLAINTEXT://127.0.0.1:21092,CONTROLLER://127.0.0.1:21093");
        b.put("controller.listener.names", "CONTROLLER");
        b.put("replica.selector.class", "org.apache.kafka.common.replica.RackAwareReplicaSelector");
        if (assignors != null) {
            b.put("group.consumer.assignors", assignors);
        }
        return b;
    }

    @Test
    void answersToUniformWithRackwisesAssignment() {
        RackwiseUniformAssignor dropIn = new RackwiseUniformAssignor(s -> null);
        dropIn.configure(broker("2001", DROP_IN + ",range"));
        RackwiseGroupAssignor rackwise = RackwiseGroupAssignorTest.assignor(null, true);
        assertEquals("uniform", dropIn.name());
        assertEquals("rackwise", rackwise.name());
        for (Set<Integer> target : List.of(Set.<Integer>of(), Set.of(0, 3), Set.of(1, 2))) {
            assertEquals(RackwiseGroupAssignorTest.partitions(rackwise.assign(RackwiseGroupAssignorTest.spec(target),
                    RackwiseGroupAssignorTest.TOPICS)),
                RackwiseGroupAssignorTest.partitions(dropIn.assign(RackwiseGroupAssignorTest.spec(target),
                    RackwiseGroupAssignorTest.TOPICS)));
        }
        // rack-optimal: every member reads only its own rack's partitions
        assertEquals(Map.of("m1", Set.of(0, 3), "m2", Set.of(1, 4), "m3", Set.of(2, 5)),
            RackwiseGroupAssignorTest.partitions(dropIn.assign(RackwiseGroupAssignorTest.spec(Set.of()),
                RackwiseGroupAssignorTest.TOPICS)));
        assertEquals(4, dropIn.metrics().assignments());
    }

    @Test
    void countsUnderAnMBeanOfItsOwn() throws Exception {
        RackwiseUniformAssignor dropIn = new RackwiseUniformAssignor(s -> null);
        dropIn.configure(broker("2002", DROP_IN));
        dropIn.assign(RackwiseGroupAssignorTest.spec(Set.of()), RackwiseGroupAssignorTest.TOPICS);
        javax.management.ObjectName name =
            new javax.management.ObjectName("kafka.rackwise:type=RackwiseUniformAssignor,name=broker-2002");
        assertEquals(1L, java.lang.management.ManagementFactory.getPlatformMBeanServer()
            .getAttribute(name, "AssignmentsComputed"));
    }

    @Test
    void refusesAListThatAlsoNamesKafkasUniform() {
        for (String list : List.of("uniform,range," + DROP_IN, DROP_IN + ",uniform",
                DROP_IN + ",org.apache.kafka.coordinator.group.assignor.UniformAssignor")) {
            ConfigException e = assertThrows(ConfigException.class,
                () -> new RackwiseUniformAssignor(s -> null).configure(broker("2003", list)), list);
            assertTrue(e.getMessage().contains("List the drop-in instead of it"), e.getMessage());
        }
    }

    @Test
    void listEntriesAsKafkaHandsThem() {
        assertEquals(List.of("a", "b"), RackwiseUniformAssignor.entries(" a , b,"));
        assertEquals(List.of("a", "b"), RackwiseUniformAssignor.entries(List.of("a", " b")));
        assertEquals(List.of(), RackwiseUniformAssignor.entries(null));
    }

    private static List<ConsumerGroupPartitionAssignor> kafkasAssignors(String list) {
        Map<String, Object> props = broker("2004", list);
        return new GroupCoordinatorConfig(new AbstractConfig(GroupCoordinatorConfig.CONFIG_DEF, props))
            .consumerGroupAssignors();
    }

    @Test
    void kafkasGroupCoordinatorConfigTakesItAsTheDefaultUniform() {
        // what a broker builds from group.consumer.assignors: the first entry is the default
        List<ConsumerGroupPartitionAssignor> assignors = kafkasAssignors(DROP_IN + ",range");
        assertEquals(List.of("uniform", "range"), assignors.stream().map(ConsumerGroupPartitionAssignor::name).toList());
        assertInstanceOf(RackwiseUniformAssignor.class, assignors.get(0));
        // beside rackwise's own name: both rackwise classes, one name each
        assertEquals(List.of("uniform", "range", "rackwise"), kafkasAssignors(
            DROP_IN + ",range," + RackwiseGroupAssignor.class.getName()).stream()
            .map(ConsumerGroupPartitionAssignor::name).toList());
    }

    @Test
    void kafkasGroupCoordinatorConfigRefusesItBesideKafkasUniformInEitherOrder() {
        // 4.4.0: Kafka's own duplicate-name check, or the drop-in's when it comes first;
        // 4.1-4.3 have no check of their own: the drop-in's refuses both orders
        for (String list : List.of("uniform,range," + DROP_IN, DROP_IN + ",range,uniform")) {
            Exception e = assertThrows(Exception.class, () -> kafkasAssignors(list), list);
            Throwable root = e;
            while (!(root instanceof ConfigException) && root.getCause() != null) {
                root = root.getCause();
            }
            assertInstanceOf(ConfigException.class, root, list);
            assertTrue(root.getMessage().contains("uniform"), root.getMessage());
        }
    }
}
