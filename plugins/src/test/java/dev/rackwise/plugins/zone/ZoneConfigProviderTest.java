package dev.rackwise.plugins.zone;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * ZoneConfigProvider against stand-ins for each metadata service on 127.0.0.1 that speak the
 * documented paths and headers (IMDSv2 token flow, Metadata-Flavor: Google, Metadata: true) and
 * refuse requests without them. Every test sets every enabled metadata endpoint to 127.0.0.1 (or
 * disables the source) and injects its own environment: nothing reaches a real metadata address.
 */
class ZoneConfigProviderTest {
    static final String TOKEN = "AQAEAFake-token==";
    // the most a source may be given (1..1000 ms): a loaded 2-core CI box once took over 300 ms
    // to answer from a local HTTP server
    static final int SLOW_TIMEOUT_MS = 1000;

    final List<HttpServer> servers = new ArrayList<>();
    final CountDownLatch release = new CountDownLatch(1);
    @TempDir Path tmp;

    /** What one stand-in does. */
    static final class Behaviour {
        String awsZoneId = "use1-az4";
        String awsZoneName = "us-east-1a";
        String gcpZone = "projects/123456789/zones/us-central1-b";
        boolean gcpFlavorReply = true;
        String azureCompute = "{\"location\":\"EastUS2\",\"name\":\"vm-1\",\"zone\":\"3\"}";
        long delayMs;
        boolean trickle; // answer 200, then one byte every 50 ms, never finishing
        Integer status;
        String garbage;
        final List<String> requests = new ArrayList<>();
    }

    @AfterEach
    void stop() {
        release.countDown();
        servers.forEach(s -> s.stop(0));
    }

    String serve(Behaviour b) throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.setExecutor(java.util.concurrent.Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "stand-in");
            t.setDaemon(true);
            return t;
        }));
        server.createContext("/", ex -> handle(b, ex));
        server.start();
        servers.add(server);
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    void handle(Behaviour b, HttpExchange ex) throws IOException {
        String path = ex.getRequestURI().toString();
        var h = ex.getRequestHeaders();
        synchronized (b.requests) {
            b.requests.add(ex.getRequestMethod() + " " + path + " token=" + h.getFirst("X-aws-ec2-metadata-token")
                    + " ttl=" + h.getFirst("X-aws-ec2-metadata-token-ttl-seconds"));
        }
        try {
            if (b.delayMs > 0) release.await(b.delayMs, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (b.trickle) {
            ex.getResponseHeaders().add("Metadata-Flavor", "Google");
            ex.sendResponseHeaders(200, 100_000);
            try (OutputStream out = ex.getResponseBody()) {
                while (!release.await(50, TimeUnit.MILLISECONDS)) {
                    out.write('a');
                    out.flush();
                }
            } catch (InterruptedException | IOException e) {
                // the client hung up, or the test is over
            }
            return;
        }
        if (b.status != null) { send(ex, b.status, "nope", Map.of()); return; }
        if (b.garbage != null) { send(ex, 200, b.garbage, Map.of("Metadata-Flavor", "Google")); return; }
        if (path.equals("/latest/api/token")) {
            String ttl = h.getFirst("X-aws-ec2-metadata-token-ttl-seconds");
            if (!ex.getRequestMethod().equals("PUT")) send(ex, 405, "", Map.of());
            else if (ttl == null || !ttl.matches("\\d+") || Integer.parseInt(ttl) < 1 || Integer.parseInt(ttl) > 21600)
                send(ex, 400, "missing or bad X-aws-ec2-metadata-token-ttl-seconds", Map.of());
            else send(ex, 200, TOKEN, Map.of());
        } else if (path.startsWith("/latest/")) {
            if (!TOKEN.equals(h.getFirst("X-aws-ec2-metadata-token"))) send(ex, 401, "", Map.of());
            else if (path.equals("/latest/meta-data/placement/availability-zone-id")) send(ex, 200, b.awsZoneId, Map.of());
            else if (path.equals("/latest/meta-data/placement/availability-zone")) send(ex, 200, b.awsZoneName, Map.of());
            else send(ex, 404, "", Map.of());
        } else if (path.startsWith("/computeMetadata/v1/")) {
            if (!"Google".equals(h.getFirst("Metadata-Flavor"))) { send(ex, 403, "Missing Metadata-Flavor:Google header.", Map.of()); return; }
            Map<String, String> reply = b.gcpFlavorReply ? Map.of("Metadata-Flavor", "Google") : Map.of();
            if (path.equals(ZoneDetector.GCP_PATH)) send(ex, 200, b.gcpZone, reply);
            else send(ex, 404, "", reply);
        } else if (path.startsWith("/metadata/")) {
            if (!"true".equals(h.getFirst("Metadata"))) send(ex, 400, "{\"error\":\"Required metadata header not specified\"}", Map.of());
            else if (path.equals(ZoneDetector.AZURE_PATH)) send(ex, 200, b.azureCompute, Map.of("Content-Type", "application/json"));
            else send(ex, 400, "{\"error\":\"api-version was not specified\"}", Map.of());
        } else {
            send(ex, 404, "", Map.of());
        }
    }

    static void send(HttpExchange ex, int status, String body, Map<String, String> headers) throws IOException {
        headers.forEach((k, v) -> ex.getResponseHeaders().add(k, v));
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        ex.sendResponseHeaders(status, bytes.length == 0 ? -1 : bytes.length);
        try (OutputStream out = ex.getResponseBody()) {
            out.write(bytes);
        }
    }

    static String closedUrl() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getByName("127.0.0.1"))) {
            return "http://127.0.0.1:" + s.getLocalPort();
        }
    }

    /** Params with every metadata endpoint refused and the file absent, then {@code kv}. */
    Map<String, Object> params(String... kv) throws IOException {
        String closed = closedUrl();
        Map<String, Object> p = new HashMap<>(Map.of(
                "aws.endpoint", closed, "gcp.endpoint", closed, "azure.endpoint", closed,
                "file", tmp.resolve("no-such-zone-file").toString()));
        for (int i = 0; i < kv.length; i += 2) p.put(kv[i], kv[i + 1]);
        return p;
    }

    static ZoneConfigProvider provider(Map<String, Object> params, Map<String, String> env) {
        ZoneConfigProvider p = new ZoneConfigProvider(env);
        p.configure(params);
        return p;
    }

    static String id(ZoneConfigProvider p) {
        return p.get("", Set.of("id")).data().get("id");
    }

    static String failure(Map<String, Object> params) {
        ZoneConfigProvider p = provider(params, Map.of());
        return assertThrows(ConfigException.class, () -> id(p)).getMessage();
    }

    @Test
    void envVariableWinsAndNothingIsAsked() throws IOException {
        Behaviour b = new Behaviour();
        String url = serve(b);
        ZoneConfigProvider p = provider(params("aws.endpoint", url), Map.of("RACKWISE_ZONE", " az-env "));
        assertEquals("az-env", id(p));
        assertEquals(List.of(), b.requests);
        // A param wins over the variable.
        assertEquals("az-param", id(provider(params("zone", "az-param"), Map.of("RACKWISE_ZONE", "az-env"))));
    }

    @Test
    void fileFirstNonEmptyLineStripped() throws IOException {
        Path file = tmp.resolve("zone");
        Files.writeString(file, "\n  \n  europe-west1-c \nsecond\n");
        assertEquals("europe-west1-c", id(provider(params("file", file.toString()), Map.of())));
        Map<String, Object> fromEnv = params();
        fromEnv.remove("file"); // the variable when no param is given
        assertEquals("europe-west1-c", id(provider(fromEnv, Map.of("RACKWISE_ZONE_FILE", file.toString()))));
        Files.writeString(file, " \n");
        assertTrue(failure(params("file", file.toString(), "sources", "file")).contains(file + ": empty"));
    }

    @Test
    void awsTokenFlowGivesZoneIdAndNameOnlyWhenAsked() throws IOException {
        Behaviour b = new Behaviour();
        ZoneConfigProvider p = provider(params("aws.endpoint", serve(b)), Map.of());
        Map<String, String> data;
        try {
            data = p.get("", Set.of("id", "name")).data();
        } catch (ConfigException e) {
            throw new AssertionError(b.requests + " " + e.getMessage(), e);
        }
        assertEquals(Map.of("id", "use1-az4", "name", "us-east-1a"), data);
        assertEquals(List.of(
                "PUT /latest/api/token token=null ttl=60",
                "GET /latest/meta-data/placement/availability-zone-id token=" + TOKEN + " ttl=null",
                "PUT /latest/api/token token=null ttl=60",
                "GET /latest/meta-data/placement/availability-zone token=" + TOKEN + " ttl=null"), b.requests);
        assertEquals("use1-az4", id(p)); // answered from this provider's cache
        assertEquals(4, b.requests.size());
    }

    @Test
    void standInRefusesGetWithoutToken() throws Exception {
        String url = serve(new Behaviour());
        var conn = (java.net.HttpURLConnection) java.net.URI.create(url + "/latest/meta-data/placement/availability-zone-id")
                .toURL().openConnection(java.net.Proxy.NO_PROXY);
        assertEquals(401, conn.getResponseCode());
        conn.disconnect();
    }

    @Test
    void gcpZoneNeedsTheFlavorHeaderBothWays() throws IOException {
        assertEquals("us-central1-b", id(provider(params("gcp.endpoint", serve(new Behaviour())), Map.of())));
        Behaviour noFlavor = new Behaviour();
        noFlavor.gcpFlavorReply = false;
        assertTrue(failure(params("gcp.endpoint", serve(noFlavor), "sources", "gcp"))
                .contains("without Metadata-Flavor: Google"));
    }

    @Test
    void azureLocationZoneByDefaultBareWhenConfigured() throws IOException {
        String url = serve(new Behaviour());
        assertEquals("eastus2-3", id(provider(params("azure.endpoint", url), Map.of())));
        assertEquals("3", id(provider(params("azure.endpoint", url), Map.of("RACKWISE_ZONE_AZURE", "zone"))));
        Behaviour noZone = new Behaviour();
        noZone.azureCompute = "{\"location\":\"eastus\",\"zone\":\"\"}";
        assertTrue(failure(params("azure.endpoint", serve(noZone), "sources", "azure"))
                .contains("not in an availability zone"));
    }

    @Test
    void slowSourceGivesUpAndTheNextAnswers() throws IOException {
        Behaviour slow = new Behaviour();
        slow.delayMs = 10_000;
        String slowUrl = serve(slow);
        String good = serve(new Behaviour());
        for (String source : List.of("aws", "gcp")) {
            Map<String, Object> p = params("aws.endpoint", good, "gcp.endpoint", good, "azure.endpoint", good,
                    "timeout.ms", Integer.toString(SLOW_TIMEOUT_MS), source + ".endpoint", slowUrl,
                    "sources", source.equals("aws") ? "aws,gcp,azure" : "gcp,azure");
            String expected = source.equals("aws") ? "us-central1-b" : "eastus2-3";
            assertEquals(expected, id(provider(p, Map.of())));
        }
        String message = failure(params("azure.endpoint", slowUrl, "sources", "azure", "timeout.ms", "300"));
        assertTrue(message.contains("azure: no answer within 300 ms"), message);
    }

    @Test
    void tricklingAnswerIsCutAtTheBudget() throws IOException {
        Behaviour trickle = new Behaviour();
        trickle.trickle = true;
        String message = failure(params("gcp.endpoint", serve(trickle), "sources", "gcp", "timeout.ms", "300"));
        assertTrue(message.contains("gcp: no answer within 300 ms"), message);
    }

    @Test
    void refusedGarbageAnd404AreFailures() throws IOException {
        Behaviour notFound = new Behaviour();
        notFound.status = 404;
        String url = serve(notFound);
        String message = failure(params("aws.endpoint", url, "gcp.endpoint", url, "azure.endpoint", url));
        assertTrue(message.contains("aws: IMDSv2 token: HTTP 404"), message);
        assertTrue(message.contains("gcp: " + url + ": answer without Metadata-Flavor: Google"), message);
        assertTrue(message.contains("azure: instance/compute: HTTP 404"), message);

        Behaviour garbage = new Behaviour();
        garbage.garbage = "<html><body>hello</body></html>";
        url = serve(garbage);
        message = failure(params("aws.endpoint", url, "gcp.endpoint", url, "azure.endpoint", url));
        assertTrue(message.contains("aws: availability-zone-id: answer '<html><body>hello</body></html>' is not a zone"), message);
        assertTrue(message.contains("gcp: instance/zone: '<html><body>hello</body></html>' is not projects/N/zones/ZONE"), message);
        assertTrue(message.contains("azure: instance/compute: answer is not JSON"), message);

        String closed = closedUrl();
        message = failure(params("aws.endpoint", closed, "sources", "aws"));
        assertTrue(message.contains("aws: " + closed + ": connection refused"), message);
    }

    @Test
    void sourcesAreAskedInTheDocumentedOrder() throws IOException {
        Behaviour aws = new Behaviour();
        aws.awsZoneId = "z-aws";
        Behaviour gcp = new Behaviour();
        gcp.gcpZone = "projects/1/zones/z-gcp";
        Behaviour azure = new Behaviour();
        azure.azureCompute = "{\"location\":\"z\",\"zone\":\"azure\"}";
        Path file = tmp.resolve("zone");
        Files.writeString(file, "z-file\n");
        Map<String, Object> base = params("aws.endpoint", serve(aws), "gcp.endpoint", serve(gcp),
                "azure.endpoint", serve(azure), "file", file.toString(), "zone", "z-env");
        List<String> all = ZoneSettings.SOURCES;
        for (int i = 0; i < all.size(); i++) {
            List<String> enabled = new ArrayList<>(all.subList(i, all.size()));
            java.util.Collections.reverse(enabled); // listed backwards: the order stays the documented one
            Map<String, Object> p = new HashMap<>(base);
            p.put("sources", String.join(",", enabled));
            assertEquals("z-" + all.get(i), id(provider(p, Map.of())));
        }
    }

    @Test
    void errorListsEverySourceInOrder() throws IOException {
        String closed = closedUrl();
        String message = failure(params("sources", "env,file,aws,azure", "aws.endpoint", closed, "azure.endpoint", closed));
        List<String> expected = List.of(
                "env: RACKWISE_ZONE is not set",
                "file: " + tmp.resolve("no-such-zone-file") + ": no such file",
                "aws: " + closed + ": connection refused",
                "gcp: skipped (not in RACKWISE_ZONE_SOURCES)",
                "azure: " + closed + ": connection refused");
        int at = -1;
        for (String part : expected) {
            int next = message.indexOf(part);
            assertTrue(next > at, part + " missing or out of order in: " + message);
            at = next;
        }
        assertTrue(message.contains("Set RACKWISE_ZONE to the broker.rack"), message);
    }

    @Test
    void badSettingsAreConfigExceptions() {
        for (String[] kv : List.of(
                new String[] {"sources", "env,k8s", "unknown zone source k8s"},
                new String[] {"sources", ",", "no zone source enabled"},
                new String[] {"timeout.ms", "1001", "expected 1..1000 ms"},
                new String[] {"timeout.ms", "0", "expected 1..1000 ms"},
                new String[] {"timeout.ms", "1.5", "expected whole milliseconds"},
                new String[] {"azure.format", "region", "expected location-zone or zone"},
                new String[] {"aws.endpoint", "https://127.0.0.1", "expected http://HOST[:PORT]"},
                new String[] {"gcp.endpoint", "http://127.0.0.1/computeMetadata", "the paths are fixed"})) {
            ZoneConfigProvider p = new ZoneConfigProvider(Map.of());
            ConfigException e = assertThrows(ConfigException.class, () -> p.configure(Map.of(kv[0], kv[1])));
            assertTrue(e.getMessage().contains(kv[2]), e.getMessage());
        }
        ZoneConfigProvider p = provider(Map.of("zone", "az1"), Map.of());
        assertTrue(assertThrows(ConfigException.class, () -> p.get("", Set.of("rack"))).getMessage().contains("unknown key"));
        assertTrue(assertThrows(ConfigException.class, () -> p.get("some/path", Set.of("id"))).getMessage().contains("no path"));
    }

    Map<String, Object> consumerProps(String url) {
        Map<String, Object> props = new HashMap<>();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:9");
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        props.put(AbstractConfig.CONFIG_PROVIDERS_CONFIG, "zone");
        props.put("config.providers.zone.class", ZoneConfigProvider.class.getName());
        // Kafka builds the provider itself (System.getenv()), so the params pin the source.
        props.put("config.providers.zone.param.sources", "aws");
        props.put("config.providers.zone.param.aws.endpoint", url);
        props.put(ConsumerConfig.CLIENT_RACK_CONFIG, "${zone:id}");
        return props;
    }

    @Test
    void consumerConfigResolvesClientRack() throws IOException {
        String url = serve(new Behaviour());
        ConsumerConfig config = new ConsumerConfig(consumerProps(url));
        assertEquals("use1-az4", config.getString(ConsumerConfig.CLIENT_RACK_CONFIG));

        Map<String, Object> none = consumerProps(closedUrl());
        ConfigException e = assertThrows(ConfigException.class, () -> new ConsumerConfig(none));
        assertTrue(e.getMessage().contains("cannot tell which zone"), e.getMessage());
    }

    @Test
    void automaticConfigProvidersAllowListMustNameTheProvider() throws IOException {
        // Kafka (AbstractConfig.AUTOMATIC_CONFIG_PROVIDERS_PROPERTY): when this system property is
        // set, only the classes it lists may be config providers.
        String property = AbstractConfig.AUTOMATIC_CONFIG_PROVIDERS_PROPERTY;
        String before = System.getProperty(property);
        String url = serve(new Behaviour());
        try {
            System.setProperty(property, "org.apache.kafka.common.config.provider.FileConfigProvider");
            Map<String, Object> props = consumerProps(url);
            assertThrows(ConfigException.class, () -> new ConsumerConfig(props));
            System.setProperty(property, "org.apache.kafka.common.config.provider.FileConfigProvider,"
                    + ZoneConfigProvider.class.getName());
            assertEquals("use1-az4", new ConsumerConfig(props).getString(ConsumerConfig.CLIENT_RACK_CONFIG));
        } finally {
            if (before == null) System.clearProperty(property);
            else System.setProperty(property, before);
        }
    }
}
