package dev.rackwise.plugins.advice;

import java.util.regex.Pattern;

/**
 * Python's {@code fnmatch.fnmatchcase} for group-id patterns, as the agent's planner matches
 * {@code planner.rules}: {@code *} any run, {@code ?} one character, {@code [seq]} one of,
 * {@code [!seq]} none of; everything else literal. Example: {@code orders-[!x]*} matches
 * {@code orders-eu} but not {@code orders-x1}.
 */
public final class Fnmatch {
    private Fnmatch() {
    }

    public static Pattern compile(String pattern) {
        StringBuilder re = new StringBuilder();
        int i = 0;
        int n = pattern.length();
        while (i < n) {
            char c = pattern.charAt(i++);
            if (c == '*') {
                re.append(".*");
            } else if (c == '?') {
                re.append('.');
            } else if (c == '[') {
                int j = i;
                if (j < n && pattern.charAt(j) == '!') {
                    j++;
                }
                if (j < n && pattern.charAt(j) == ']') {
                    j++;
                }
                while (j < n && pattern.charAt(j) != ']') {
                    j++;
                }
                if (j >= n) {
                    re.append("\\[");  // no closing bracket: a literal '[', as Python does
                } else {
                    String body = pattern.substring(i, j);
                    i = j + 1;
                    boolean negate = body.startsWith("!");
                    if (negate) {
                        body = body.substring(1);
                    }
                    re.append(negate ? "[^" : "[");
                    for (char b : body.toCharArray()) {
                        // ranges (a-z) keep their '-'; a backslash before any other
                        // non-alphanumeric character makes it literal in a Java regex
                        if (b == '-' || Character.isLetterOrDigit(b)) {
                            re.append(b);
                        } else {
                            re.append('\\').append(b);
                        }
                    }
                    re.append(']');
                }
            } else {
                re.append(Pattern.quote(String.valueOf(c)));
            }
        }
        return Pattern.compile(re.toString(), Pattern.DOTALL);
    }
}
