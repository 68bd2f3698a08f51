package dev.rackwise.tasks;

import java.util.Comparator;
import java.util.regex.Pattern;

/**
 * Kafka's client order: process ids that are canonical UUIDs ({@code 8-4-4-4-12} hex digits)
 * first, compared as {@code UUID.compareTo} does (most, then least significant bits as
 * <em>signed</em> longs), then the id itself; any other id after every UUID, by code point.
 */
final class ProcessOrder implements Comparator<String> {
    static final ProcessOrder INSTANCE = new ProcessOrder();
    private static final Pattern UUID = Pattern.compile(
            "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}");

    private ProcessOrder() {
    }

    @Override
    public int compare(String a, String b) {
        boolean ua = UUID.matcher(a).matches();
        boolean ub = UUID.matcher(b).matches();
        if (ua != ub) {
            return ua ? -1 : 1;
        }
        if (ua) {
            String ha = a.replace("-", "");
            String hb = b.replace("-", "");
            int c = Long.compare(Long.parseUnsignedLong(ha.substring(0, 16), 16),
                    Long.parseUnsignedLong(hb.substring(0, 16), 16));
            if (c == 0) {
                c = Long.compare(Long.parseUnsignedLong(ha.substring(16), 16),
                        Long.parseUnsignedLong(hb.substring(16), 16));
            }
            if (c != 0) {
                return c;
            }
        }
        return Lex.compareStrings(a, b);
    }
}
