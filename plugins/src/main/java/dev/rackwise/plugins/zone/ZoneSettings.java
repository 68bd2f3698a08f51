package dev.rackwise.plugins.zone;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.apache.kafka.common.config.ConfigException;

/**
 * Where {@link ZoneDetector} looks: the provider's {@code config.providers.zone.param.*} keys, else
 * the same {@code RACKWISE_ZONE*} environment variables as the Python side (agent/member/zone.py), else
 * the defaults. See docs/member.md.
 */
public record ZoneSettings(
        List<String> sources,
        int timeoutMs,
        String zone,
        String file,
        URI awsEndpoint,
        URI gcpEndpoint,
        URI azureEndpoint,
        boolean azureLocationZone) {

    /** The sources, in the order they are asked. */
    public static final List<String> SOURCES = List.of("env", "file", "aws", "gcp", "azure");
    public static final int MAX_TIMEOUT_MS = 1000;
    public static final String DEFAULT_FILE = "/etc/rackwise/zone";
    // The link-local address for every cloud: resolving metadata.google.internal would be a DNS
    // query that leaves the host and that no socket time-out bounds (docs/member.md).
    public static final String DEFAULT_ENDPOINT = "http://169.254.169.254";

    /** A setting: its provider param and its environment variable. */
    enum Key {
        ZONE("zone", "RACKWISE_ZONE"),
        FILE("file", "RACKWISE_ZONE_FILE"),
        SOURCES("sources", "RACKWISE_ZONE_SOURCES"),
        TIMEOUT_MS("timeout.ms", "RACKWISE_ZONE_TIMEOUT_MS"),
        AWS_ENDPOINT("aws.endpoint", "RACKWISE_ZONE_AWS_ENDPOINT"),
        GCP_ENDPOINT("gcp.endpoint", "RACKWISE_ZONE_GCP_ENDPOINT"),
        AZURE_ENDPOINT("azure.endpoint", "RACKWISE_ZONE_AZURE_ENDPOINT"),
        AZURE_FORMAT("azure.format", "RACKWISE_ZONE_AZURE");

        final String param;
        final String env;

        Key(String param, String env) {
            this.param = param;
            this.env = env;
        }
    }

    /** Settings from provider params (over) environment (over) defaults; a bad value is a ConfigException. */
    public static ZoneSettings from(Map<String, ?> params, Map<String, String> env) {
        String rawSources = value(Key.SOURCES, params, env);
        List<String> sources = new ArrayList<>();
        if (rawSources == null) {
            sources.addAll(SOURCES);
        } else {
            List<String> asked = new ArrayList<>();
            for (String s : rawSources.split(",")) {
                String name = s.trim().toLowerCase(Locale.ROOT);
                if (name.isEmpty()) continue;
                if (!SOURCES.contains(name)) {
                    throw new ConfigException(Key.SOURCES.param, rawSources,
                            "unknown zone source " + name + ": choose from " + String.join(", ", SOURCES));
                }
                asked.add(name);
            }
            // Always the documented order, whatever order they were listed in: Python and JVM agree.
            for (String s : SOURCES) if (asked.contains(s)) sources.add(s);
            if (sources.isEmpty()) {
                throw new ConfigException(Key.SOURCES.param, rawSources,
                        "no zone source enabled: choose from " + String.join(", ", SOURCES));
            }
        }
        int timeoutMs = MAX_TIMEOUT_MS;
        String rawTimeout = value(Key.TIMEOUT_MS, params, env);
        if (rawTimeout != null) {
            try {
                timeoutMs = Integer.parseInt(rawTimeout);
            } catch (NumberFormatException e) {
                throw new ConfigException(Key.TIMEOUT_MS.param, rawTimeout, "expected whole milliseconds");
            }
            if (timeoutMs < 1 || timeoutMs > MAX_TIMEOUT_MS) {
                throw new ConfigException(Key.TIMEOUT_MS.param, rawTimeout,
                        "expected 1.." + MAX_TIMEOUT_MS + " ms per source");
            }
        }
        String format = value(Key.AZURE_FORMAT, params, env);
        if (format != null && !format.equals("location-zone") && !format.equals("zone")) {
            throw new ConfigException(Key.AZURE_FORMAT.param, format, "expected location-zone or zone");
        }
        String file = value(Key.FILE, params, env);
        return new ZoneSettings(
                List.copyOf(sources),
                timeoutMs,
                value(Key.ZONE, params, env),
                file == null ? DEFAULT_FILE : file,
                endpoint(Key.AWS_ENDPOINT, params, env),
                endpoint(Key.GCP_ENDPOINT, params, env),
                endpoint(Key.AZURE_ENDPOINT, params, env),
                format == null || format.equals("location-zone"));
    }

    private static String value(Key key, Map<String, ?> params, Map<String, String> env) {
        Object p = params.get(key.param);
        if (p != null && !p.toString().isBlank()) return p.toString().trim();
        String e = env.get(key.env);
        return e == null || e.isBlank() ? null : e.trim();
    }

    private static URI endpoint(Key key, Map<String, ?> params, Map<String, String> env) {
        String raw = value(key, params, env);
        if (raw == null) raw = DEFAULT_ENDPOINT;
        URI uri;
        try {
            uri = new URI(raw);
        } catch (URISyntaxException e) {
            throw new ConfigException(key.param, raw, "not a URL: " + e.getMessage());
        }
        if (!"http".equals(uri.getScheme()) || uri.getHost() == null) {
            throw new ConfigException(key.param, raw, "expected http://HOST[:PORT] (metadata services speak plain HTTP)");
        }
        String path = uri.getRawPath();
        if ((path != null && !path.isEmpty() && !path.equals("/")) || uri.getRawQuery() != null
                || uri.getRawFragment() != null) {
            throw new ConfigException(key.param, raw, "give only http://HOST[:PORT], the paths are fixed");
        }
        if (uri.getPort() > 65535) {
            throw new ConfigException(key.param, raw, "port out of range");
        }
        return URI.create("http://" + uri.getRawAuthority());
    }
}
