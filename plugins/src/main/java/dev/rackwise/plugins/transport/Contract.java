package dev.rackwise.plugins.transport;

/** Names shared with the agent (plugins/README.md § 7): topics, headers, kinds. */
public final class Contract {
    public static final String REQUESTS_TOPIC = "rackwise.requests";
    public static final String PLANS_TOPIC = "rackwise.plans";
    public static final String DEADLETTER_TOPIC = "rackwise.deadletter";

    public static final String HEADER_REQUEST_ID = "rackwise-request-id";
    public static final String HEADER_KIND = "rackwise-kind";
    public static final String HEADER_ERROR = "rackwise-error";
    public static final String HEADER_ERROR_DETAIL = "rackwise-error-detail";

    public static final String KIND_CONSUMER = "consumer";
    public static final String KIND_STREAMS = "streams";

    private Contract() {
    }
}
