package dev.rackwise.plugins.publish;

import java.util.Map;
import java.util.Set;

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
public record ComputedPlan(String groupId, Set<String> memberIds, Problem problem, Solution solution,
                           Map<String, String> topicNames, String protocol,
                           Map<dev.rackwise.core.TopicPartition, String> withheld,
                           boolean followerFetching, long assignMicros, long createdAtMs) {
}
