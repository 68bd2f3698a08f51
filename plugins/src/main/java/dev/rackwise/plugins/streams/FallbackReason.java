package dev.rackwise.plugins.streams;

/** Why a plug-in used Kafka's own assignor instead of the agent's plan (counted and logged). */
public enum FallbackReason {
    /** The plug-in has no usable settings (see the WARN logged at configure time). */
    NOT_CONFIGURED,
    /** The plug-in's own Kafka clients are still starting (broker: built off the coordinator thread). */
    NOT_READY,
    /** A recent time-out or transport failure: the agent is not asked again until the back-off ends. */
    BACKING_OFF,
    /** No reply within rackwise.timeout.ms. */
    TIMEOUT,
    /** Kafka could not be reached or the request not written. */
    TRANSPORT,
    /** The agent answered on the dead-letter topic. */
    ERROR_REPLY,
    /** The reply is not a readable plan. */
    BAD_PLAN,
    /** The plan does not fit the group (unknown member or partition, a partition twice ...). */
    INVALID_PLAN,
    /** The request could not be built (broker: a topic id or the group id could not be resolved). */
    UNRESOLVED,
    /** Anything unexpected; the plug-in never lets it escape. */
    INTERNAL
}
