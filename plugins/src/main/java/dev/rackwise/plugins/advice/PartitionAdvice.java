package dev.rackwise.plugins.advice;

/**
 * One partition of a {@code topic/<topic>} advice record: its measured bytes/s ({@code null}
 * until the agent has two samples), its leader's broker id and rack (each {@code null} when
 * unknown). docs/architecture.md § Advice.
 */
public record PartitionAdvice(int partition, Double bytesPerS, Integer leader, String leaderRack) {
}
