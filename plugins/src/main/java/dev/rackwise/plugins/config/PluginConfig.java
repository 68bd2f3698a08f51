package dev.rackwise.plugins.config;

import java.util.Map;


/**
 * A consumer-group plug-in's parsed settings: where its background clients connect (the
 * cluster the agent advises, security settings) and how it reads advice. Equal configs share
 * one set of background clients in a JVM.
 */
public record PluginConfig(Settings settings, AdviceConfig advice) {
    /** rackwise.* from a plug-in's configure() map; a bad value throws ConfigException. */
    public static PluginConfig parse(Map<String, ?> configs, String defaultBootstrap, Map<String, Object> inherited,
                                     String clientId) {
        return new PluginConfig(Settings.parse(configs, defaultBootstrap, inherited, clientId),
            AdviceConfig.parse(configs));
    }
}
