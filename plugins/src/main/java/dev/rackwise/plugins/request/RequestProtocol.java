package dev.rackwise.plugins.request;

/** The rebalance protocol a request is planned for; the agent withholds only under classic-cooperative. */
public enum RequestProtocol {
    CLASSIC_COOPERATIVE("classic-cooperative"),
    CLASSIC_EAGER("classic-eager"),
    /** KIP-848: the broker's group coordinator reconciles towards the target by itself. */
    CONSUMER("consumer");

    private final String wireName;

    RequestProtocol(String wireName) {
        this.wireName = wireName;
    }

    /** The string written in the request envelope. */
    public String wireName() {
        return wireName;
    }

    /** The protocol named {@code name} on the wire, or an IllegalArgumentException saying which are known. */
    public static RequestProtocol fromWireName(String name) {
        for (RequestProtocol p : values()) {
            if (p.wireName.equals(name)) {
                return p;
            }
        }
        throw new IllegalArgumentException("unknown protocol \"" + name
            + "\": expected classic-cooperative, classic-eager or consumer");
    }
}
