package dev.rackwise.plugins.classic;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;

import dev.rackwise.plugins.RackwiseAssignor;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.RebalanceProtocol;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.consumer.RangeAssignor;
import org.junit.jupiter.api.Test;

class RebalanceProtocolsTest {
    static RebalanceProtocol of(Object strategies) {
        return RebalanceProtocols.inEffect(strategies, RackwiseAssignor.class);
    }

    @Test
    void highestCommonProtocolAsConsumerCoordinatorPicksIt() {
        assertEquals(RebalanceProtocol.COOPERATIVE, of(RackwiseAssignor.class.getName()));
        assertEquals(RebalanceProtocol.COOPERATIVE, of(List.of(RackwiseAssignor.class, CooperativeStickyAssignor.class)));
        assertEquals(RebalanceProtocol.EAGER, of(RackwiseAssignor.class.getName() + ", " + RangeAssignor.class.getName()));
        assertEquals(RebalanceProtocol.EAGER, of(List.of(RangeAssignor.class.getName(), RackwiseAssignor.class.getName())));
        assertEquals(RebalanceProtocol.COOPERATIVE, of(null));
        assertEquals(RebalanceProtocol.COOPERATIVE, of("no.such.Assignor"));
    }
}
