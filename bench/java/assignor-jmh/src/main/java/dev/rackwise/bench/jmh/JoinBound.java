package dev.rackwise.bench.jmh;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.coordinator.group.api.assignor.GroupAssignment;

/**
 * A tighter lower bound on the moves of an unweighted incremental broker cell, for the cells
 * where {@link Outcome}'s bound is not met. When every member of the joiner's bucket must end
 * with exactly {@code parts / members} partitions, each over-full member sheds one partition;
 * with nothing read across racks, a shed partition can go straight to the joiner only if one
 * of its replicas is in the joiner's rack. An over-full member holding no such partition sheds
 * to another member, a move that is not one of the joiner's arrivals. So moves >= the
 * joiner's share + the over-full members lacking a partition local to the joiner (and >= the
 * partitions to shed), and a cross-rack read (10 moves' worth under KIP-925's default costs,
 * unweighted) never pays for the difference.
 *
 * <p>{@code java -cp target/benchmarks.jar dev.rackwise.bench.jmh.JoinBound MEMBERS PER_MEMBER
 * TOPICS HOMOGENEOUS|HETEROGENEOUS}
 */
public final class JoinBound {
    private JoinBound() {
    }

    public static void main(String[] args) {
        Grid g = new Grid(Integer.parseInt(args[0]), Integer.parseInt(args[1]), Integer.parseInt(args[2]),
            args[3].equals("HETEROGENEOUS"), true);
        BrokerCase c = new BrokerCase(g, BrokerCase.Assignor.RACKWISE);
        Map<Uuid, Integer> topicIndex = new HashMap<>();
        for (int t = 0; t < g.topics; t++) {
            topicIndex.put(g.topicIds[t], t);
        }
        String joinRack = g.newMemberRack();
        Set<Integer> joinTopics = new HashSet<>();
        for (int t : g.newMemberTopics()) {
            joinTopics.add(t);
        }
        List<String> bucket = new ArrayList<>();
        for (int i = 0; i < g.baseMembers(); i++) {
            int[] ts = g.topicsOf(i);
            if (ts.length == joinTopics.size() && ts.length > 0 && joinTopics.contains(ts[0])) {
                bucket.add(Grid.memberId(i));
            }
        }
        long parts = (long) joinTopics.size() * g.partitionsPerTopic;
        int n = bucket.size() + 1;
        if (parts % n != 0) {
            System.out.println("the bucket's share is not exact (" + parts + " over " + n + "): bound does not apply");
            return;
        }
        long share = parts / n;
        int over = 0;
        int lacking = 0;
        for (String m : bucket) {
            int count = 0;
            boolean local = false;
            for (Map.Entry<Uuid, Set<Integer>> e : c.previous.members().get(m).partitions().entrySet()) {
                for (int p : e.getValue()) {
                    count++;
                    local |= g.local(joinRack, topicIndex.get(e.getKey()), p);
                }
            }
            if (count > share) {
                over += count - share;
                lacking += local ? 0 : 1;
            }
        }
        GroupAssignment now = c.assign();
        Outcome o = c.outcome(now);
        // The joiner's arrivals and the sheds of members lacking a local partition are
        // different moves; every shed is a move too.
        long bound = Math.max(share + lacking, over);
        System.out.printf("bucket of %d members + joiner, %d partitions, share %d: %d to shed, %d over-full members "
            + "without a partition in %s -> moves >= %d; rackwise moved %d with %d cross-rack: %s%n", bucket.size(),
            parts, share, over, lacking, joinRack, bound, o.moved(), o.cross(),
            o.cross() == 0 && o.moved() == bound ? "optimal" : "not certified");
    }
}
