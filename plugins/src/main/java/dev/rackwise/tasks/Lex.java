package dev.rackwise.tasks;

import java.util.Comparator;
import java.util.List;

/** Orders shared by both implementations: strings by code point, lists element by element. */
final class Lex {
    static final Comparator<String> STRING = Lex::compareStrings;
    static final Comparator<List<String>> LIST = Lex::compareLists;

    private Lex() {
    }

    static int compareStrings(String a, String b) {
        int i = 0;
        int j = 0;
        while (i < a.length() && j < b.length()) {
            int ca = a.codePointAt(i);
            int cb = b.codePointAt(j);
            if (ca != cb) {
                return Integer.compare(ca, cb);
            }
            i += Character.charCount(ca);
            j += Character.charCount(cb);
        }
        return Integer.compare(a.length() - i, b.length() - j);
    }

    static int compareLists(List<String> a, List<String> b) {
        for (int i = 0; i < Math.min(a.size(), b.size()); i++) {
            int c = compareStrings(a.get(i), b.get(i));
            if (c != 0) {
                return c;
            }
        }
        return Integer.compare(a.size(), b.size());
    }
}
