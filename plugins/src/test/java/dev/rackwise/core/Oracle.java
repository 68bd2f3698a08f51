package dev.rackwise.core;

import java.util.List;
import java.util.Map;

/** The cost rules of docs/rack-optimal.md § 2 written again, independently of the solver. */
final class Oracle {
    private Oracle() {
    }

    /** D x share. */
    static int share(Problem pb, MemberSpec m, PartitionSpec s) {
        int racks = pb.racks().size();
        int d = Math.max(racks, 1);
        if (m.rack() != null) {
            if (m.readsFollowers()) {
                return !s.replicaRacks().isEmpty() && !s.replicaRacks().contains(m.rack()) ? d : 0;
            }
            return s.leaderRack() != null && !s.leaderRack().equals(m.rack()) ? d : 0;
        }
        if (s.leaderRack() == null || racks == 0) {
            return 0;
        }
        return pb.racks().contains(s.leaderRack()) ? d - 1 : d;
    }

    static long unit(Problem pb, MemberSpec m, TopicPartition tp) {
        PartitionSpec s = pb.topics().get(tp.topic()).get(tp.partition());
        int d = Math.max(pb.racks().size(), 1);
        long u = Math.round(1000 * pb.trafficCost() * s.weight()) * share(pb, m, s);
        String prev = pb.previousOwners().get(tp);
        return prev != null && !prev.equals(m.id()) ? u + Math.round(1000 * pb.moveCost()) * d : u;
    }

    static long objective(Problem pb, Map<String, List<TopicPartition>> a) {
        long total = 0;
        for (MemberSpec m : pb.members()) {
            for (TopicPartition tp : a.get(m.id())) {
                total += unit(pb, m, tp);
            }
        }
        return total;
    }

    static double cost(Problem pb, Map<String, List<TopicPartition>> a) {
        double total = 0;
        int d = Math.max(pb.racks().size(), 1);
        for (MemberSpec m : pb.members()) {
            for (TopicPartition tp : a.get(m.id())) {
                PartitionSpec s = pb.topics().get(tp.topic()).get(tp.partition());
                total += pb.trafficCost() * s.weight() * share(pb, m, s) / d;
                String prev = pb.previousOwners().get(tp);
                if (prev != null && !prev.equals(m.id())) {
                    total += pb.moveCost();
                }
            }
        }
        return total;
    }
}
