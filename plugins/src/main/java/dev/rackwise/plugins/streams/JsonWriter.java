package dev.rackwise.plugins.streams;

/**
 * A tiny streaming JSON writer (RFC 8259) for the Streams request, so the jar needs no JSON
 * library. Commas are placed automatically; the caller balances begin/end. Strings are escaped
 * as RFC 8259 requires (quote, backslash, control characters; everything else is written as is,
 * the output being UTF-8).
 */
final class JsonWriter {
    private final StringBuilder out;
    /** Whether the current container already holds a value (bit per nesting level). */
    private long[] hasValue = new long[4];
    private int depth;
    private boolean afterKey;

    JsonWriter(int capacity) {
        out = new StringBuilder(capacity);
    }

    JsonWriter beginObject() {
        open('{');
        return this;
    }

    JsonWriter endObject() {
        return close('}');
    }

    JsonWriter beginArray() {
        open('[');
        return this;
    }

    JsonWriter endArray() {
        return close(']');
    }

    JsonWriter key(String name) {
        separate();
        string(name);
        out.append(':');
        afterKey = true;
        return this;
    }

    JsonWriter value(String s) {
        separate();
        if (s == null) {
            out.append("null");
        } else {
            string(s);
        }
        return this;
    }

    JsonWriter value(long n) {
        separate();
        out.append(n);
        return this;
    }

    JsonWriter value(boolean b) {
        separate();
        out.append(b);
        return this;
    }

    JsonWriter nullValue() {
        separate();
        out.append("null");
        return this;
    }

    @Override
    public String toString() {
        if (depth != 0) {
            throw new IllegalStateException("unbalanced JSON: " + depth + " containers still open");
        }
        return out.toString();
    }

    private void open(char c) {
        separate();
        out.append(c);
        depth++;
        if (depth / 64 >= hasValue.length) {
            hasValue = java.util.Arrays.copyOf(hasValue, hasValue.length * 2);
        }
        hasValue[depth / 64] &= ~(1L << (depth % 64));
    }

    private JsonWriter close(char c) {
        if (depth == 0) {
            throw new IllegalStateException("no container to close");
        }
        out.append(c);
        depth--;
        return this;
    }

    private void separate() {
        if (afterKey) {
            afterKey = false;
            return;
        }
        if (depth > 0) {
            long bit = 1L << (depth % 64);
            if ((hasValue[depth / 64] & bit) != 0) {
                out.append(',');
            } else {
                hasValue[depth / 64] |= bit;
            }
        }
    }

    private void string(String s) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"':
                    out.append("\\\"");
                    break;
                case '\\':
                    out.append("\\\\");
                    break;
                case '\n':
                    out.append("\\n");
                    break;
                case '\r':
                    out.append("\\r");
                    break;
                case '\t':
                    out.append("\\t");
                    break;
                case '\b':
                    out.append("\\b");
                    break;
                case '\f':
                    out.append("\\f");
                    break;
                default:
                    if (c < 0x20) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
            }
        }
        out.append('"');
    }
}
