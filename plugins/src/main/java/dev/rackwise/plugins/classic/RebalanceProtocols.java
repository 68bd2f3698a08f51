package dev.rackwise.plugins.classic;

import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.RebalanceProtocol;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.utils.Utils;

/**
 * The rebalance protocol a classic consumer runs. An assignor is never told it: Kafka's
 * ConsumerCoordinator takes the highest protocol every configured assignor supports
 * (COOPERATIVE when rackwise is alone, EAGER beside range or round-robin). The same rule is
 * applied here to the consumer's {@code partition.assignment.strategy}.
 */
public final class RebalanceProtocols {
    private RebalanceProtocols() {
    }

    public static RebalanceProtocol inEffect(Object strategies, Class<?> self) {
        if (strategies == null) {
            return RebalanceProtocol.COOPERATIVE;
        }
        Set<RebalanceProtocol> common = EnumSet.allOf(RebalanceProtocol.class);
        for (Object entry : (List<?>) ConfigDef.parseType("partition.assignment.strategy", strategies, ConfigDef.Type.LIST)) {
            String name = entry instanceof Class<?> c ? c.getName() : String.valueOf(entry).trim();
            if (name.isEmpty() || name.equals(self.getName())) {
                continue;
            }
            common.retainAll(supported(name));
        }
        if (common.isEmpty()) {
            return RebalanceProtocol.COOPERATIVE;
        }
        List<RebalanceProtocol> sorted = new ArrayList<>(common);
        Collections.sort(sorted);
        return sorted.get(sorted.size() - 1);
    }

    private static Set<RebalanceProtocol> supported(String className) {
        try {
            ConsumerPartitionAssignor a = Utils.newInstance(className, ConsumerPartitionAssignor.class);
            return EnumSet.copyOf(a.supportedProtocols());
        } catch (ClassNotFoundException | RuntimeException e) {
            return EnumSet.allOf(RebalanceProtocol.class);
        }
    }
}
