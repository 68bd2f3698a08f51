package dev.rackwise.tasks;

/**
 * A task-assignment problem that cannot be solved as given: the message names what is wrong
 * (a duplicate process id, a client with no thread, a lag that is not a Kafka sentinel, a
 * task that reads no partition) and what to do about it.
 */
public final class TaskInputException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    public TaskInputException(String message) {
        super(message);
    }
}
