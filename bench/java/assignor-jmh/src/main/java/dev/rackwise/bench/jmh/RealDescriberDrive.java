package dev.rackwise.bench.jmh;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Supplier;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.metadata.PartitionRecord;
import org.apache.kafka.common.metadata.RegisterBrokerRecord;
import org.apache.kafka.common.metadata.TopicRecord;
import org.apache.kafka.coordinator.common.runtime.KRaftCoordinatorMetadataImage;
import org.apache.kafka.coordinator.group.api.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.api.assignor.GroupSpec;
import org.apache.kafka.coordinator.group.api.assignor.MemberSubscription;
import org.apache.kafka.coordinator.group.modern.Assignment;
import org.apache.kafka.coordinator.group.modern.GroupSpecImpl;
import org.apache.kafka.coordinator.group.modern.MemberSubscriptionAndAssignmentImpl;
import org.apache.kafka.coordinator.group.modern.TopicIds;
import org.apache.kafka.coordinator.group.api.assignor.SubscribedTopicDescriber;
import org.apache.kafka.coordinator.group.modern.SubscribedTopicDescriberImpl;
import org.apache.kafka.image.MetadataDelta;
import org.apache.kafka.image.MetadataImage;
import org.apache.kafka.image.MetadataProvenance;

/**
 * What a broker's own describer costs beside the bench's: one cell of the grid as a real KRaft
 * metadata image (two brokers per rack, each partition's replicas on one broker of each of its
 * two racks, the leader first), read through Kafka's {@code SubscribedTopicDescriberImpl} over
 * {@code KRaftCoordinatorMetadataImage}, as a coordinator hands it to assign(). Prints, per
 * call, thread CPU (as {@link BrokerCpuDrive}): one pass over every partition's racks through
 * the bench's {@link RackDescriber} and through Kafka's describer; {@code uniform} and rackwise
 * with Kafka's describer, a new one each call as a coordinator makes it, over the same image
 * and (rackwise) over a new image of equal content each call, as the controller's no-op records
 * make one (the topics' and brokers' objects unchanged, so replica racks stay kept:
 * {@code TopicRacks.Cache}); rackwise with the bench's. Answers through either describer hash
 * alike (the same racks).
 *
 * <p>Args: members partitionsPerMember topics HOMOGENEOUS|HETEROGENEOUS FULL|INCREMENTAL
 * iterations [SAME_IMAGE_ONLY: only rackwise on the same image, for a profiler].
 */
public final class RealDescriberDrive {
    private RealDescriberDrive() {
    }

    public static void main(String[] a) {
        Grid grid = new Grid(Integer.parseInt(a[0]), Integer.parseInt(a[1]), Integer.parseInt(a[2]),
            a[3].equals("HETEROGENEOUS"), a[4].equals("INCREMENTAL"));
        int iters = Integer.parseInt(a[5]);
        MetadataImage image = image(grid);
        KRaftCoordinatorMetadataImage coordinatorImage = new KRaftCoordinatorMetadataImage(image);
        // a broker makes a new describer for every call, over its current image
        Supplier<SubscribedTopicDescriber> same = () -> new SubscribedTopicDescriberImpl(coordinatorImage);
        // ... and after any metadata change, over a new image (here: the same content, a later offset)
        long[] offset = {image.provenance().lastContainedOffset()};
        Supplier<SubscribedTopicDescriber> changed = () -> new SubscribedTopicDescriberImpl(
            new KRaftCoordinatorMetadataImage(later(image, ++offset[0])));
        SubscribedTopicDescriber real = same.get();
        String cell = String.join(" ", java.util.Arrays.copyOfRange(a, 0, 5));
        BrokerCase uniform = new BrokerCase(grid, BrokerCase.Assignor.UNIFORM);
        BrokerCase rackwise = new BrokerCase(grid, BrokerCase.Assignor.RACKWISE);
        // the group as a coordinator hands it over: each member's own TopicIds view over its
        // own set of names, current targets as Kafka's Assignment of HashSets (as replayed)
        GroupSpec uniformSpec = asBroker(uniform.spec, grid, coordinatorImage);
        GroupSpec rackwiseSpec = asBroker(rackwise.spec, grid, coordinatorImage);
        if (a.length > 6 && a[6].equals("SAME_IMAGE_ONLY")) { // one line, for a profiler
            CpuPerCall.print(cell + " RACKWISE kafka-describer-same-image broker-spec", hash(rackwise.assignor.assign(
                rackwiseSpec, real)), () -> rackwise.assignor.assign(rackwiseSpec, same.get()), iters);
            return;
        }
        CpuPerCall.print(cell + " RACKS_PASS bench-describer", 0, () -> BrokerCase.racksPass(grid, rackwise.describer), iters);
        CpuPerCall.print(cell + " RACKS_PASS kafka-describer", 0, () -> BrokerCase.racksPass(grid, real), iters);
        CpuPerCall.print(cell + " UNIFORM kafka-describer", hash(uniform.assignor.assign(uniform.spec, real)),
            () -> uniform.assignor.assign(uniform.spec, same.get()), iters);
        CpuPerCall.print(cell + " RACKWISE kafka-describer-same-image", hash(rackwise.assignor.assign(rackwise.spec, real)),
            () -> rackwise.assignor.assign(rackwise.spec, same.get()), iters);
        CpuPerCall.print(cell + " RACKWISE kafka-describer-new-image", hash(rackwise.assignor.assign(rackwise.spec,
            changed.get())), () -> rackwise.assignor.assign(rackwise.spec, changed.get()), iters);
        CpuPerCall.print(cell + " RACKWISE bench-describer", hash(rackwise.assign()), rackwise::assign, iters);
        CpuPerCall.print(cell + " UNIFORM kafka-describer broker-spec", hash(uniform.assignor.assign(uniformSpec, real)),
            () -> uniform.assignor.assign(uniformSpec, same.get()), iters);
        CpuPerCall.print(cell + " RACKWISE kafka-describer-same-image broker-spec", hash(rackwise.assignor.assign(
            rackwiseSpec, real)), () -> rackwise.assignor.assign(rackwiseSpec, same.get()), iters);
    }

    /**
     * {@code spec} as a group coordinator builds it (4.4.0 TargetAssignmentBuilder, read from the
     * bytecode): each member's subscription a new {@code TopicIds} over its own set of topic
     * names, resolved through the image; each current target an {@code Assignment} of HashSets,
     * as replayed from target-assignment records. Equal content to {@code spec}.
     */
    static GroupSpec asBroker(GroupSpec spec, Grid grid, KRaftCoordinatorMetadataImage image) {
        Map<Uuid, String> names = new java.util.HashMap<>();
        for (int t = 0; t < grid.topics; t++) {
            names.put(grid.topicIds[t], grid.topicNames[t]);
        }
        Map<String, MemberSubscriptionAndAssignmentImpl> members = new java.util.HashMap<>();
        Map<Uuid, Map<Integer, String>> inverted = new java.util.HashMap<>();
        for (String m : spec.memberIds()) {
            MemberSubscription sub = spec.memberSubscription(m);
            Set<String> own = new java.util.HashSet<>();
            for (Uuid id : sub.subscribedTopicIds()) {
                own.add(names.get(id));
            }
            Map<Uuid, Set<Integer>> current = new java.util.HashMap<>();
            spec.memberAssignment(m).partitions().forEach((id, ps) -> {
                current.put(id, new java.util.HashSet<>(ps));
                Map<Integer, String> byPartition = inverted.computeIfAbsent(id, k -> new java.util.HashMap<>());
                for (int p : ps) {
                    byPartition.put(p, m);
                }
            });
            members.put(m, new MemberSubscriptionAndAssignmentImpl(sub.rackId(), sub.instanceId(),
                new TopicIds(own, image), new Assignment(current)));
        }
        return new GroupSpecImpl(members, spec.subscriptionType(), inverted);
    }

    /** {@code image} as of a later offset: equal content, another provenance (so unequal). */
    static MetadataImage later(MetadataImage image, long offset) {
        return new MetadataImage(new MetadataProvenance(offset, image.provenance().lastContainedEpoch(),
            image.provenance().lastContainedLogTimeMs(), image.provenance().isOffsetBatchAligned()),
            image.features(), image.cluster(), image.topics(), image.configs(), image.clientQuotas(),
            image.producerIds(), image.acls(), image.scram(), image.delegationTokens());
    }

    private static int hash(GroupAssignment x) {
        StringBuilder sb = new StringBuilder();
        new TreeMap<>(x.members()).forEach((m, ma) -> {
            Map<String, TreeSet<Integer>> parts = new TreeMap<>();
            ma.partitions().forEach((t, ps) -> parts.put(t.toString(), new TreeSet<>(ps)));
            sb.append(m).append(parts).append('\n');
        });
        return sb.toString().hashCode();
    }

    /** The grid as a metadata image: brokers 2r and 2r + 1 in rack r. */
    static MetadataImage image(Grid grid) {
        MetadataDelta delta = new MetadataDelta.Builder().setImage(MetadataImage.EMPTY).build();
        for (int b = 0; b < 2 * Grid.RACKS; b++) {
            delta.replay(new RegisterBrokerRecord().setBrokerId(b).setBrokerEpoch(1)
                .setIncarnationId(new Uuid(7, b + 1)).setRack(Grid.rack(b / 2)));
        }
        for (int t = 0; t < grid.topics; t++) {
            delta.replay(new TopicRecord().setName(grid.topicNames[t]).setTopicId(grid.topicIds[t]));
            for (int p = 0; p < grid.partitionsPerTopic; p++) {
                int[] racks = grid.replicaRacks[t][p];
                List<Integer> replicas = List.of(2 * racks[0] + (p & 1), 2 * racks[1] + (p & 1));
                delta.replay(new PartitionRecord().setTopicId(grid.topicIds[t]).setPartitionId(p)
                    .setReplicas(replicas).setIsr(replicas).setLeader(replicas.get(0)).setLeaderEpoch(0)
                    .setPartitionEpoch(0));
            }
        }
        return delta.apply(MetadataProvenance.EMPTY);
    }
}
