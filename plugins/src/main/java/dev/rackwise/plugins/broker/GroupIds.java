package dev.rackwise.plugins.broker;

import java.util.Collection;
import java.util.Optional;

/**
 * The group a set of KIP-848 member ids belongs to. A broker-side assignor is not told its group
 * id (GroupSpec has none in 4.3.1), and the request is keyed and routed by it.
 */
public interface GroupIds {
    Optional<String> groupOf(Collection<String> memberIds);
}
