package dev.rackwise.plugins.broker;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

import dev.rackwise.plugins.config.Settings;

/**
 * The broker's own inter-broker listener, read from the broker config a broker-side assignor
 * is configured with (GroupCoordinatorConfig passes the whole KafkaConfig originals): the
 * default {@code rackwise.bootstrap.servers} and its {@code security.protocol}.
 *
 * <pre>inter.broker.listener.name (or security.inter.broker.protocol, default PLAINTEXT) picked
 * from advertised.listeners (or listeners); an empty or 0.0.0.0 host becomes localhost.</pre>
 */
public record BrokerListener(String name, String host, int port, String securityProtocol) {

    public String bootstrap() {
        return host + ":" + port;
    }

    public static Optional<BrokerListener> of(Map<String, ?> brokerConfig) {
        String name = Settings.string(brokerConfig.get("inter.broker.listener.name"));
        if (name == null || name.isEmpty()) {
            name = Settings.string(brokerConfig.get("security.inter.broker.protocol"));
        }
        if (name == null || name.isEmpty()) {
            name = "PLAINTEXT";
        }
        String listeners = Settings.string(brokerConfig.get("advertised.listeners"));
        if (listeners == null || listeners.isEmpty()) {
            listeners = Settings.string(brokerConfig.get("listeners"));
        }
        if (listeners == null) {
            return Optional.empty();
        }
        for (String entry : listeners.split(",")) {
            String e = entry.trim();
            int sep = e.indexOf("://");
            if (sep < 0 || !e.substring(0, sep).equalsIgnoreCase(name)) {
                continue;
            }
            String hostPort = e.substring(sep + 3);
            int colon = hostPort.lastIndexOf(':');
            if (colon < 0) {
                return Optional.empty();
            }
            String host = hostPort.substring(0, colon);
            if (host.isEmpty() || host.equals("0.0.0.0") || host.equals("[::]")) {
                host = "localhost";
            }
            int port;
            try {
                port = Integer.parseInt(hostPort.substring(colon + 1));
            } catch (NumberFormatException ex) {
                return Optional.empty();
            }
            return Optional.of(new BrokerListener(name, host, port, securityProtocol(brokerConfig, name)));
        }
        return Optional.empty();
    }

    private static String securityProtocol(Map<String, ?> brokerConfig, String name) {
        Map<String, String> map = new HashMap<>();
        String spec = Settings.string(brokerConfig.get("listener.security.protocol.map"));
        if (spec != null) {
            for (String pair : spec.split(",")) {
                int colon = pair.indexOf(':');
                if (colon > 0) {
                    map.put(pair.substring(0, colon).trim().toUpperCase(Locale.ROOT), pair.substring(colon + 1).trim());
                }
            }
        }
        String upper = name.toUpperCase(Locale.ROOT);
        if (map.containsKey(upper)) {
            return map.get(upper);
        }
        // Kafka's default map names each listener after its protocol.
        return switch (upper) {
            case "SSL", "SASL_PLAINTEXT", "SASL_SSL" -> upper;
            default -> "PLAINTEXT";
        };
    }
}
