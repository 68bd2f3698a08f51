package dev.rackwise.plugins.request;

/** A subscribed topic and its partition count as the caller sees it. */
public record RequestTopic(String name, int partitions) {
    public RequestTopic {
        if (name == null) {
            throw new IllegalArgumentException("topic name is null");
        }
        if (partitions < 0) {
            throw new IllegalArgumentException("topic " + name + ": negative partition count " + partitions);
        }
    }
}
