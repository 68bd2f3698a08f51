package dev.rackwise.tasks;

/**
 * A Streams task id, {@code "<subtopology>_<partition>"}; ordered by subtopology, then
 * partition, numerically (so {@code 0_2} comes before {@code 0_10}), as Kafka orders tasks.
 */
public record TaskId(int subtopology, int partition) implements Comparable<TaskId> {
    public TaskId {
        if (subtopology < 0 || partition < 0) {
            throw new TaskInputException("task id " + subtopology + "_" + partition
                    + " is negative");
        }
    }

    /** Parses {@code "0_3"}; throws {@link TaskInputException} for anything else. */
    public static TaskId parse(String text) {
        if (text != null) {
            int us = text.indexOf('_');
            if (us > 0 && us == text.lastIndexOf('_')) {
                try {
                    return new TaskId(Integer.parseInt(text.substring(0, us)),
                            Integer.parseInt(text.substring(us + 1)));
                } catch (NumberFormatException e) {
                    // fall through to the message below
                }
            }
        }
        throw new TaskInputException("task id " + text + " is not '<subtopology>_<partition>'");
    }

    @Override
    public int compareTo(TaskId o) {
        int c = Integer.compare(subtopology, o.subtopology);
        return c != 0 ? c : Integer.compare(partition, o.partition);
    }

    @Override
    public String toString() {
        return subtopology + "_" + partition;
    }
}
