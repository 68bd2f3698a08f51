package dev.rackwise.clients;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** {@code key=value} command-line arguments; {@code config=k=v} may repeat (extra consumer settings). */
final class Args {
    final Map<String, String> values = new LinkedHashMap<>();
    final List<String> configs = new ArrayList<>();

    static Args parse(String[] argv) {
        Args a = new Args();
        for (String arg : argv) {
            int eq = arg.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("expected key=value, got " + arg);
            }
            String key = arg.substring(0, eq).replaceFirst("^--", "");
            String value = arg.substring(eq + 1);
            if (key.equals("config")) {
                a.configs.add(value);
            } else {
                a.values.put(key, value);
            }
        }
        return a;
    }

    String get(String key, String dflt) {
        String v = values.get(key);
        return v == null || v.isEmpty() ? dflt : v;
    }

    String require(String key) {
        String v = values.get(key);
        if (v == null || v.isEmpty()) {
            throw new IllegalArgumentException("missing " + key + "=...");
        }
        return v;
    }
}
