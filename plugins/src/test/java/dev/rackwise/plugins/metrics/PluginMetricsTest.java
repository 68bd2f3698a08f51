package dev.rackwise.plugins.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.concurrent.TimeUnit;

import javax.management.MBeanServer;
import javax.management.ObjectName;

import org.junit.jupiter.api.Test;

class PluginMetricsTest {
    @Test
    void recordsAndReadsFigures() {
        PluginMetrics m = new PluginMetrics(List.of("internal-error", "no-members"));
        m.recordAssign(TimeUnit.MILLISECONDS.toNanos(2));
        m.recordAssign(TimeUnit.MILLISECONDS.toNanos(4));
        m.recordFallback("internal-error");
        m.recordFallback("something-new");
        m.adviceAge(() -> 1234);
        m.plans(() -> 7, () -> 2, () -> 1);
        m.racks(() -> 40, () -> 3);
        m.targets(() -> 900, () -> 100);
        assertEquals(2, m.assignments());
        assertEquals(3.0, m.assignTimeAvgMs(), 1e-9);
        assertEquals(4.0, m.assignTimeMaxMs(), 1e-9);
        assertEquals(1, m.fallbacks("internal-error"));
        assertEquals(1, m.fallbacks(PluginMetrics.OTHER));
        assertEquals(List.of("AssignmentsComputed", "AssignTimeAvgMs", "AssignTimeMaxMs", "Fallbacks_internal_error",
            "Fallbacks_no_members", "Fallbacks_other", "FallbacksTotal", "AdviceAgeMs", "PlansPublished",
            "PlansDropped", "PlansFailed", "RackTopicsKept", "RackTopicsRead",
            "TargetsKept", "TargetsRead"), List.copyOf(m.values().keySet()));
        assertEquals(2L, m.values().get("FallbacksTotal"));
        assertEquals(40L, m.values().get("RackTopicsKept"));
        assertEquals(3L, m.values().get("RackTopicsRead"));
        assertEquals(900L, m.values().get("TargetsKept"));
        assertEquals(100L, m.values().get("TargetsRead"));
        assertEquals(1234L, m.values().get("AdviceAgeMs"));
    }

    @Test
    void registersOncePerInstanceAndReadsOverJmx() throws Exception {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        try (PluginMetrics a = new PluginMetrics(List.of()); PluginMetrics b = new PluginMetrics(List.of())) {
            ObjectName na = a.register("RackwiseGroupAssignor", "broker 1");
            assertEquals(na, a.register("RackwiseGroupAssignor", "broker 1"), "registered once");
            ObjectName nb = b.register("RackwiseGroupAssignor", "broker 1");
            assertEquals("kafka.rackwise:type=RackwiseGroupAssignor,name=broker_1", na.toString());
            assertNotEquals(na, nb);
            a.recordAssign(5_000_000);
            assertEquals(1L, server.getAttribute(na, "AssignmentsComputed"));
            assertEquals(5.0, (Double) server.getAttribute(na, "AssignTimeMaxMs"), 1e-9);
            assertEquals(0L, server.getAttribute(nb, "AssignmentsComputed"));
            a.close();
            assertFalse(server.isRegistered(na));
            assertTrue(server.isRegistered(nb));
        }
    }
}
