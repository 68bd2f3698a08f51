package dev.rackwise.plugins.advice;

/** Why an advice record was ignored (each has a counter in {@link AdviceReader}). */
public enum IgnoredReason {
    /** Not UTF-8 JSON of the contract, or its value is for another key. */
    MALFORMED,
    /** A {@code schema_version} other than 1: a newer agent this plug-in cannot read. */
    UNKNOWN_SCHEMA_VERSION,
    /** A key or {@code kind} that is neither {@code topic} nor {@code group}. */
    UNKNOWN_KIND,
    /** Larger than {@code rackwise.advice.max.record.bytes}. */
    OVERSIZED,
    /** Older than {@code rackwise.advice.max.age.ms} when it was to be used. */
    STALE
}
