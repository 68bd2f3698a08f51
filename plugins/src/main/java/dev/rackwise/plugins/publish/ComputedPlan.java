package dev.rackwise.plugins.publish;

import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

import dev.rackwise.core.Problem;
import dev.rackwise.core.Solution;

/**
 * One assignment a plug-in computed, as handed to the background publisher: the core's own
 * problem and solution (immutable), who asked, and what the plug-in knew of names. The
 * publisher turns it into a plan of the plan contract off the assignment path.
 *
 * @param groupId        the group, or null when not known yet (the publisher learns it later)
 * @param memberIds      the group's members (how a broker finds its group id)
 * @param topicNames     topic names by the problem's topic keys (ids on a broker); missing ones
 *                       are looked up by the publisher
 * @param protocol       {@code consumer} (KIP-848), {@code cooperative} or {@code eager} (classic)
 * @param withheld       partitions left out this round because another member still owns them
 *                       (classic cooperative), by the problem's topic keys
 * @param followerFetching whether members with a rack read from followers
 * @param assignMicros   how long assign() took
 * @param createdAtMs    when assign() ran (epoch ms)
 */
public final class ComputedPlan {
    private final String groupId;
    private final Set<String> memberIds;
    private final Supplier<Problem> problem;
    private final Supplier<Solution> solution;
    private final Map<String, String> topicNames;
    private final String protocol;
    private final Map<dev.rackwise.core.TopicPartition, String> withheld;
    private final boolean followerFetching;
    private final long assignMicros;
    private final long createdAtMs;

    public ComputedPlan(String groupId, Set<String> memberIds, Problem problem, Solution solution,
                        Map<String, String> topicNames, String protocol,
                        Map<dev.rackwise.core.TopicPartition, String> withheld,
                        boolean followerFetching, long assignMicros, long createdAtMs) {
        this(groupId, memberIds, () -> problem, () -> solution, topicNames, protocol, withheld, followerFetching,
            assignMicros, createdAtMs);
    }

    /**
     * A plan whose problem and solution are made only when the publisher asks for them, on its
     * own thread: a broker's assign() hands over the core's indexed input and answer, and never
     * pays for their string forms. Each supplier is called at most once.
     */
    public ComputedPlan(String groupId, Set<String> memberIds, Supplier<Problem> problem, Supplier<Solution> solution,
                        Map<String, String> topicNames, String protocol,
                        Map<dev.rackwise.core.TopicPartition, String> withheld,
                        boolean followerFetching, long assignMicros, long createdAtMs) {
        this.groupId = groupId;
        this.memberIds = memberIds;
        this.problem = once(problem);
        this.solution = once(solution);
        this.topicNames = topicNames;
        this.protocol = protocol;
        this.withheld = withheld;
        this.followerFetching = followerFetching;
        this.assignMicros = assignMicros;
        this.createdAtMs = createdAtMs;
    }

    private static <T> Supplier<T> once(Supplier<T> make) {
        return new Supplier<>() {
            private T value;

            @Override
            public synchronized T get() {
                if (value == null) {
                    value = make.get();
                }
                return value;
            }
        };
    }

    public String groupId() {
        return groupId;
    }

    public Set<String> memberIds() {
        return memberIds;
    }

    public Problem problem() {
        return problem.get();
    }

    public Solution solution() {
        return solution.get();
    }

    public Map<String, String> topicNames() {
        return topicNames;
    }

    public String protocol() {
        return protocol;
    }

    public Map<dev.rackwise.core.TopicPartition, String> withheld() {
        return withheld;
    }

    public boolean followerFetching() {
        return followerFetching;
    }

    public long assignMicros() {
        return assignMicros;
    }

    public long createdAtMs() {
        return createdAtMs;
    }
}
