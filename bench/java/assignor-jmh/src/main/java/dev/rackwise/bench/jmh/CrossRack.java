package dev.rackwise.bench.jmh;

import java.util.Arrays;

/**
 * Per grid cell and assignor, what the result costs (not how long it takes): one assign() per
 * cell, outside JMH, on the very inputs the benchmarks time. Prints tab-separated rows.
 *
 * <p>{@code java -cp target/benchmarks.jar dev.rackwise.bench.jmh.CrossRack broker|classic
 * MEMBERS PARTITIONS_PER_MEMBER TOPICS [SUBSCRIPTION]} where each of the three is a comma list,
 * e.g. {@code broker 100,1000 10,50 10,100}; SUBSCRIPTION (HOMOGENEOUS or HETEROGENEOUS) keeps
 * that one only.
 */
public final class CrossRack {
    private CrossRack() {
    }

    public static void main(String[] args) {
        boolean broker = args[0].equals("broker");
        int[] members = ints(args[1]);
        int[] ppm = ints(args[2]);
        int[] topics = ints(args[3]);
        String only = args.length > 4 && !args[4].equals("BOTH") ? args[4] : null; // HOMOGENEOUS or HETEROGENEOUS: that one only
        // the broker assignors to run (comma list of BrokerCase.Assignor names; default all)
        java.util.Set<String> assignors = args.length > 5 ? java.util.Set.of(args[5].split(",")) : null;
        System.out.println("side\tmembers\tppm\ttopics\tsubscription\tassignment\tassignor\tpartitions\tassigned"
            + "\tcross\tcross_bytes_share\tmoved\tmoves_lower_bound\tcertified_optimal\tmin_count\tmax_count"
            + "\tmax_bytes_over_mean\tfingerprint");
        for (int m : members) {
            for (int k : ppm) {
                for (int t : topics) {
                    for (boolean het : new boolean[] {false, true}) {
                        if (only != null && het != only.equals("HETEROGENEOUS")) {
                            continue;
                        }
                        for (boolean inc : new boolean[] {false, true}) {
                            Grid grid = new Grid(m, k, t, het, inc);
                            if (broker) {
                                for (BrokerCase.Assignor a : BrokerCase.Assignor.values()) {
                                    if (a == BrokerCase.Assignor.RACKS_PASS
                                            || assignors != null && !assignors.contains(a.name())) {
                                        continue;
                                    }
                                    BrokerCase c = new BrokerCase(grid, a);
                                    print("broker", grid, het, inc, a.name(), c.outcome(c.assign()));
                                }
                            } else {
                                for (ClassicCase.Assignor a : ClassicCase.Assignor.values()) {
                                    ClassicCase c = new ClassicCase(grid, a);
                                    print("classic", grid, het, inc, a.name(), c.outcome(c.assign()));
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    private static void print(String side, Grid g, boolean het, boolean inc, String assignor, Outcome o) {
        System.out.printf("%s\t%d\t%d\t%d\t%s\t%s\t%s\t%d\t%d\t%d\t%.4f\t%d\t%d\t%s\t%d\t%d\t%.3f\t%08x%n", side, g.members,
            g.partitionsPerTopic * g.topics / g.members, g.topics, het ? "HETEROGENEOUS" : "HOMOGENEOUS",
            inc ? "INCREMENTAL" : "FULL", assignor, o.partitions(), o.assigned(), o.cross(), o.crossBytesShare(),
            o.moved(), o.movesLowerBound(), o.certifiedOptimal(), o.minCount(), o.maxCount(), o.maxBytesOverMean(), o.fingerprint());
        System.out.flush();
    }

    private static int[] ints(String s) {
        return Arrays.stream(s.split(",")).mapToInt(Integer::parseInt).toArray();
    }
}
