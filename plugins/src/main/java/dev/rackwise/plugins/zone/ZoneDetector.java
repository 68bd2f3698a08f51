package dev.rackwise.plugins.zone;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.HttpURLConnection;
import java.net.Proxy;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Asks env, file, AWS IMDSv2, GCP and Azure, in that order, for the zone this JVM runs in: the
 * same sources, order, answers and failure texts as agent/member/zone.py (docs/member.md).
 */
public final class ZoneDetector {
    /** The zone, the source that answered and where exactly (variable, file or URL). */
    public record Result(String zone, String source, String detail) {}

    /** No source answered: every source in order with why it gave no zone. */
    public static final class NoZoneException extends Exception {
        private static final long serialVersionUID = 1L;
        private final List<String> failures;

        NoZoneException(List<String> failures) {
            super("cannot tell which zone this process runs in (" + String.join("; ", failures)
                    + "). Set RACKWISE_ZONE to the broker.rack of the brokers in this process's zone, "
                    + "or write it to RACKWISE_ZONE_FILE (docs/member.md)");
            this.failures = List.copyOf(failures);
        }

        public List<String> failures() {
            return failures;
        }
    }

    static final int AWS_TOKEN_TTL_S = 60;
    static final String GCP_PATH = "/computeMetadata/v1/instance/zone";
    static final String AZURE_PATH = "/metadata/instance/compute?api-version=2021-02-01";
    private static final int MAX_ANSWER = 64 * 1024;
    // A metadata answer must look like a Kubernetes label value (use1-az1, us-central1-a,
    // eastus-1): an HTML error page or a JSON blob is a wrong service, not a zone.
    private static final Pattern METADATA_ZONE = Pattern.compile("[A-Za-z0-9]([A-Za-z0-9._-]{0,61}[A-Za-z0-9])?");
    // A zone a person gave (env, file): printable ASCII, no spaces.
    private static final Pattern GIVEN_ZONE = Pattern.compile("[!-~]{1,255}");
    private static final Pattern GCP_ZONE = Pattern.compile("projects/[^/]+/zones/([^/]+)");
    private static final Pattern AZURE_ZONE = Pattern.compile("\"zone\"\\s*:\\s*\"([^\"\\\\]*)\"");
    private static final Pattern AZURE_LOCATION = Pattern.compile("\"location\"\\s*:\\s*\"([^\"\\\\]*)\"");

    private final ZoneSettings settings;

    public ZoneDetector(ZoneSettings settings) {
        this.settings = settings;
    }

    /** Why one source gave no zone (internal). */
    private static final class Failed extends Exception {
        private static final long serialVersionUID = 1L;

        Failed(String reason) {
            super(reason, null, false, false);
        }
    }

    /** The first source's answer; {@code awsName}: the AWS zone name instead of the zone ID. */
    public Result detect(boolean awsName) throws NoZoneException {
        List<String> failures = new ArrayList<>();
        for (String source : ZoneSettings.SOURCES) {
            if (!settings.sources().contains(source)) {
                failures.add(source + ": skipped (not in RACKWISE_ZONE_SOURCES)");
                continue;
            }
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(settings.timeoutMs());
            try {
                return switch (source) {
                    case "env" -> fromEnv();
                    case "file" -> fromFile();
                    case "aws" -> fromAws(awsName, deadline);
                    case "gcp" -> fromGcp(deadline);
                    default -> fromAzure(deadline);
                };
            } catch (Failed e) {
                failures.add(source + ": " + e.getMessage());
            }
        }
        throw new NoZoneException(failures);
    }

    private Result fromEnv() throws Failed {
        if (settings.zone() == null) throw new Failed("RACKWISE_ZONE is not set");
        return new Result(given(settings.zone(), "RACKWISE_ZONE"), "env", "RACKWISE_ZONE");
    }

    private Result fromFile() throws Failed {
        Path path = Path.of(settings.file());
        byte[] raw;
        try {
            raw = Files.readAllBytes(path);
        } catch (NoSuchFileException e) {
            throw new Failed(path + ": no such file");
        } catch (IOException | SecurityException e) {
            throw new Failed(path + ": " + e);
        }
        String text = utf8(raw, path + ": not UTF-8 text");
        for (String line : text.split("\\R")) {
            if (!line.isBlank()) return new Result(given(line.strip(), path.toString()), "file", path.toString());
        }
        throw new Failed(path + ": empty");
    }

    private Result fromAws(boolean name, long deadline) throws Failed {
        URI ep = settings.awsEndpoint();
        Reply tokenReply = send("PUT", ep, "/latest/api/token",
                Map.of("X-aws-ec2-metadata-token-ttl-seconds", Integer.toString(AWS_TOKEN_TTL_S)), deadline);
        String token = ok(tokenReply, "IMDSv2 token");
        if (token.isEmpty() || !token.chars().allMatch(c -> c >= 0x20 && c < 0x7f)) {
            throw new Failed("IMDSv2 token: empty or not printable ASCII");
        }
        String leaf = name ? "availability-zone" : "availability-zone-id";
        String path = "/latest/meta-data/placement/" + leaf;
        Reply reply = send("GET", ep, path, Map.of("X-aws-ec2-metadata-token", token), deadline);
        return new Result(metadata(ok(reply, leaf), leaf), "aws", ep + path);
    }

    private Result fromGcp(long deadline) throws Failed {
        URI ep = settings.gcpEndpoint();
        Reply reply = send("GET", ep, GCP_PATH, Map.of("Metadata-Flavor", "Google"), deadline);
        // Google always answers with this header; another cloud's service on the same address
        // does not, and its answer must not be taken for a GCP zone.
        if (!"Google".equalsIgnoreCase(reply.flavor())) {
            throw new Failed(ep + ": answer without Metadata-Flavor: Google (not the GCE metadata server)");
        }
        String text = ok(reply, "instance/zone");
        Matcher m = GCP_ZONE.matcher(text);
        if (!m.matches()) {
            throw new Failed("instance/zone: '" + shorten(text, 60) + "' is not projects/N/zones/ZONE");
        }
        return new Result(metadata(m.group(1), "instance/zone"), "gcp", ep + GCP_PATH);
    }

    private Result fromAzure(long deadline) throws Failed {
        URI ep = settings.azureEndpoint();
        Reply reply = send("GET", ep, AZURE_PATH, Map.of("Metadata", "true"), deadline);
        String text = ok(reply, "instance/compute");
        // The jar bundles no JSON library (plugins/README.md); compute's zone and location are
        // plain strings at the top level, which a pattern finds without a full parse.
        if (!text.startsWith("{") || !text.endsWith("}")) throw new Failed("instance/compute: answer is not JSON");
        Matcher zone = AZURE_ZONE.matcher(text);
        if (!zone.find() || zone.group(1).isBlank()) {
            throw new Failed("instance/compute: no zone (the VM is not in an availability zone)");
        }
        String answer = zone.group(1).strip();
        if (settings.azureLocationZone()) {
            Matcher location = AZURE_LOCATION.matcher(text);
            if (!location.find() || location.group(1).isBlank()) throw new Failed("instance/compute: no location");
            answer = location.group(1).strip().toLowerCase(Locale.ROOT) + "-" + answer;
        }
        return new Result(metadata(answer, "instance/compute"), "azure", ep + AZURE_PATH);
    }

    // ---- HTTP: straight to the metadata address, no proxy, no redirects, no caches.
    // HttpURLConnection rather than java.net.http.HttpClient: it starts no threads in the
    // application's JVM, and its first use costs no TLS set-up against the 1 s budget.

    /** A status, the Metadata-Flavor header (GCP) and the body. */
    private record Reply(int status, String flavor, byte[] body) {}

    private int remainingMs(long deadline) throws Failed {
        long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
        if (left <= 0) throw new Failed("no answer within " + settings.timeoutMs() + " ms");
        return (int) left;
    }

    private Reply send(String method, URI ep, String path, Map<String, String> headers, long deadline)
            throws Failed {
        HttpURLConnection c = null;
        try {
            int left = remainingMs(deadline);
            c = (HttpURLConnection) ep.resolve(path).toURL().openConnection(Proxy.NO_PROXY);
            c.setInstanceFollowRedirects(false);
            c.setUseCaches(false);
            c.setConnectTimeout(left);
            c.setReadTimeout(left);
            c.setRequestMethod(method);
            for (Map.Entry<String, String> h : new TreeMap<>(headers).entrySet()) {
                c.setRequestProperty(h.getKey(), h.getValue());
            }
            if (method.equals("PUT")) {
                c.setDoOutput(true);
                c.setFixedLengthStreamingMode(0); // streaming mode: never retried silently
                c.getOutputStream().close();
            }
            int status = c.getResponseCode();
            InputStream in = status >= 400 ? c.getErrorStream() : c.getInputStream();
            ByteArrayOutputStream body = new ByteArrayOutputStream();
            if (in != null) {
                try (in) {
                    byte[] buf = new byte[4096];
                    int n;
                    // Each read is bounded by the read time-out; checking the deadline between
                    // reads bounds a server that trickles its answer too.
                    while ((n = in.read(buf)) >= 0) {
                        remainingMs(deadline);
                        body.write(buf, 0, n);
                        if (body.size() > MAX_ANSWER) throw new Failed("answer larger than " + MAX_ANSWER + " bytes");
                    }
                }
            }
            return new Reply(status, c.getHeaderField("Metadata-Flavor"), body.toByteArray());
        } catch (SocketTimeoutException e) {
            throw new Failed("no answer within " + settings.timeoutMs() + " ms");
        } catch (ConnectException e) {
            throw new Failed(ep + ": connection refused");
        } catch (IOException | IllegalArgumentException | SecurityException e) {
            throw new Failed(ep + ": " + e);
        } finally {
            if (c != null) c.disconnect();
        }
    }

    private static String ok(Reply reply, String what) throws Failed {
        if (reply.status() != 200) throw new Failed(what + ": HTTP " + reply.status());
        return utf8(reply.body(), what + ": answer is not UTF-8 text").strip();
    }

    private static String utf8(byte[] raw, String failure) throws Failed {
        try {
            return StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(raw)).toString();
        } catch (CharacterCodingException e) {
            throw new Failed(failure);
        }
    }

    private static String metadata(String text, String what) throws Failed {
        if (!METADATA_ZONE.matcher(text).matches()) {
            throw new Failed(what + ": answer '" + shorten(text, 40) + "' is not a zone");
        }
        return text;
    }

    private static String given(String text, String what) throws Failed {
        if (!GIVEN_ZONE.matcher(text).matches()) {
            throw new Failed(what + ": '" + shorten(text, 40) + "' is not a zone (printable, no spaces, 1..255 characters)");
        }
        return text;
    }

    private static String shorten(String text, int max) {
        return text.length() <= max ? text : text.substring(0, max) + "...";
    }
}
