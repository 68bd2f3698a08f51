package dev.rackwise.tasks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The package's contract (plugins/README.md): no Kafka type, no dev.rackwise.plugins type,
 * and no static state that could change between calls.
 */
class PackageRulesTest {
    private static List<Path> sources() throws IOException {
        Path dir = Path.of("src/main/java/dev/rackwise/tasks");
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(p -> p.toString().endsWith(".java")).sorted().toList();
        }
    }

    @Test
    void importsNeitherKafkaNorThePlugins() throws IOException {
        List<String> bad = new ArrayList<>();
        List<Path> files = sources();
        assertFalse(files.isEmpty());
        for (Path p : files) {
            for (String line : Files.readAllLines(p)) {
                String l = line.trim();
                if (l.contains("org.apache.kafka") || l.contains("dev.rackwise.plugins")) {
                    bad.add(p.getFileName() + ": " + l);
                }
            }
        }
        assertEquals(List.of(), bad);
    }

    @Test
    void everyStaticFieldIsFinal() throws Exception {
        List<String> bad = new ArrayList<>();
        for (Path p : sources()) {
            String name = p.getFileName().toString().replace(".java", "");
            Class<?> c = Class.forName("dev.rackwise.tasks." + name);
            List<Class<?>> all = new ArrayList<>(List.of(c));
            all.addAll(List.of(c.getDeclaredClasses()));
            for (Class<?> k : all) {
                for (Field f : k.getDeclaredFields()) {
                    if (f.isSynthetic()) {
                        continue; // an enum's own values() array
                    }
                    int m = f.getModifiers();
                    if (Modifier.isStatic(m) && !Modifier.isFinal(m)) {
                        bad.add(k.getName() + "." + f.getName());
                    }
                    if (Modifier.isStatic(m) && f.getType().isArray()) {
                        bad.add(k.getName() + "." + f.getName() + " (a static array is mutable)");
                    }
                }
            }
        }
        assertEquals(List.of(), bad);
    }
}
