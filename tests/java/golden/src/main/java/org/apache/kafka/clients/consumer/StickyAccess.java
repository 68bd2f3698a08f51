package org.apache.kafka.clients.consumer;

import org.apache.kafka.clients.consumer.internals.AbstractStickyAssignor.MemberData;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.types.Struct;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Lives in the assignors' package only to reach their package-private and protected members:
 * the V0 sticky schema (the public path always writes V1) and memberData (the real readers).
 */
public final class StickyAccess {
    private StickyAccess() {}

    /** Sticky user data in the V0 layout (previous assignment, no generation). */
    public static ByteBuffer stickyV0(Map<String, List<Integer>> previous) {
        Struct struct = new Struct(StickyAssignor.STICKY_ASSIGNOR_USER_DATA_V0);
        List<Struct> topics = new ArrayList<>();
        for (Map.Entry<String, List<Integer>> e : previous.entrySet()) {
            Struct t = new Struct(StickyAssignor.TOPIC_ASSIGNMENT);
            t.set("topic", e.getKey());
            t.set("partitions", e.getValue().toArray());
            topics.add(t);
        }
        struct.set("previous_assignment", topics.toArray());
        ByteBuffer buf = ByteBuffer.allocate(StickyAssignor.STICKY_ASSIGNOR_USER_DATA_V0.sizeOf(struct));
        StickyAssignor.STICKY_ASSIGNOR_USER_DATA_V0.write(buf, struct);
        buf.flip();
        return buf;
    }

    public static MemberData stickyMemberData(ByteBuffer userData) {
        return new StickyAssignor().memberData(
            new ConsumerPartitionAssignor.Subscription(List.of("t"), userData));
    }

    public static MemberData cooperativeMemberData(ByteBuffer userData) {
        return new CooperativeStickyAssignor().memberData(
            new ConsumerPartitionAssignor.Subscription(List.of("t"), userData));
    }

    public static List<TopicPartition> partitions(MemberData d) {
        return d.partitions;
    }
}
