package dev.rackwise.tasks;

/**
 * Kafka Streams' {@code rack.aware.assignment.strategy} (KIP-925), by its config value.
 */
public enum RackStrategy {
    /** No rack-aware optimisation: Kafka's high-availability assignment only. */
    NONE("none"),
    /** Least cross-rack traffic plus moves, any client may take any task of the step. */
    MIN_TRAFFIC("min_traffic"),
    /** As {@link #MIN_TRAFFIC}, with at most ⌈n_c / T · T_s⌉ tasks of a subtopology per client. */
    BALANCE_SUBTOPOLOGY("balance_subtopology");

    private final String configValue;

    RackStrategy(String configValue) {
        this.configValue = configValue;
    }

    /** The value Kafka Streams' config uses ({@code none}, {@code min_traffic} ...). */
    public String configValue() {
        return configValue;
    }

    /** The strategy for a config value; throws {@link TaskInputException} for any other. */
    public static RackStrategy fromConfig(String value) {
        for (RackStrategy s : values()) {
            if (s.configValue.equals(value)) {
                return s;
            }
        }
        throw new TaskInputException("rack.aware.assignment.strategy " + value
                + " is unknown: use none, min_traffic or balance_subtopology");
    }
}
