package dev.rackwise.plugins.publish;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Map;

/**
 * Writes a {@link PublishedPlan} as the plan contract's JSON (docs/architecture.md § The plan;
 * protocol/plan.py's AssignmentPlan is the authority and reads what this writes): schema 1,
 * kind {@code consumer}, every member with its partitions, nothing withheld (Kafka revokes
 * before it reassigns on the KIP-848 protocol, and a classic leader's cooperative rule lives in
 * the assignment itself), and the summary figures worked out here.
 *
 * <p>Summary: {@code partitions} and {@code cross_rack_partitions} count; {@code traffic_cost}
 * sums the weight of the cross-rack partitions; {@code max_load}/{@code min_load} are members'
 * partition counts (0/0 without members). When every partition has measured bytes/s, each
 * partition also carries {@code bytes_per_s} and, for a member with a rack,
 * {@code cross_rack_bytes_per_s}; the summary carries their sums and
 * {@code rack_unknown_members}.
 *
 * <p>Example: one member c1 (az1) with orders-0 (replicas az1, az2, weight 1) gives
 * {@code "summary":{"partitions":1,"cross_rack_partitions":0,"traffic_cost":0.0,...}}.
 */
public final class PlanJson {
    /** The reason of plans the plug-ins compute (protocol/plan.py PLUGIN_REASON). */
    public static final String REASON = "assigned";

    private static final DateTimeFormatter ISO_MS =
        DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);

    private PlanJson() {
    }

    public static String write(PublishedPlan plan) {
        boolean measured = !plan.members().isEmpty() && plan.members().stream()
            .flatMap(m -> m.partitions().stream()).allMatch(p -> p.bytesPerS() != null);
        int partitions = 0;
        int crossRack = 0;
        double cost = 0;
        int maxLoad = 0;
        int minLoad = Integer.MAX_VALUE;
        double bytes = 0;
        double crossBytes = 0;
        int rackUnknown = 0;
        Out out = new Out();
        out.raw("{\"schema_version\":1,\"group_id\":").string(plan.groupId())
            .raw(",\"kind\":").string(plan.kind()).raw(",\"generation\":").raw(Long.toString(plan.generation()))
            .raw(",\"reason\":").string(plan.reason())
            .raw(",\"assignor\":").string(plan.assignor())
            .raw(",\"config\":").value(plan.config())
            .raw(",\"created_at\":").string(ISO_MS.format(Instant.ofEpochMilli(plan.createdAtMs())))
            .raw(",\"members\":[");
        for (int i = 0; i < plan.members().size(); i++) {
            PublishedPlan.Member m = plan.members().get(i);
            out.raw(i == 0 ? "{" : ",{").raw("\"member_id\":").string(m.memberId())
                .raw(",\"rack\":").string(m.rack()).raw(",\"partitions\":[");
            rackUnknown += m.rack() == null ? 1 : 0;
            for (int j = 0; j < m.partitions().size(); j++) {
                PublishedPlan.Partition p = m.partitions().get(j);
                out.raw(j == 0 ? "{" : ",{").raw("\"topic\":").string(p.topic())
                    .raw(",\"partition\":").raw(Integer.toString(p.partition()))
                    .raw(",\"replica_racks\":").value(p.replicaRacks())
                    .raw(",\"cross_rack\":").raw(Boolean.toString(p.crossRack()))
                    .raw(",\"weight\":").number(p.weight());
                if (measured) {
                    out.raw(",\"bytes_per_s\":").number(p.bytesPerS());
                    if (m.rack() != null) {
                        double c = p.crossRack() ? p.bytesPerS() : 0.0;
                        out.raw(",\"cross_rack_bytes_per_s\":").number(c);
                        crossBytes += c;
                    }
                    bytes += p.bytesPerS();
                }
                out.raw("}");
                partitions++;
                if (p.crossRack()) {
                    crossRack++;
                    cost += p.weight();
                }
            }
            PublishedPlan.Streams st = m.streams();
            if (st == null) {
                out.raw("],\"process_id\":null,\"active_tasks\":[],\"standby_tasks\":[],\"warmup_tasks\":[]}");
            } else {
                out.raw("],\"process_id\":").string(st.processId())
                    .raw(",\"active_tasks\":").value(st.activeTasks())
                    .raw(",\"standby_tasks\":").value(st.standbyTasks())
                    .raw(",\"warmup_tasks\":").value(st.warmupTasks()).raw("}");
            }
            maxLoad = Math.max(maxLoad, m.partitions().size());
            minLoad = Math.min(minLoad, m.partitions().size());
        }
        if (plan.members().isEmpty()) {
            minLoad = 0;
        }
        out.raw("],\"withheld\":[");
        boolean firstHeld = true;
        for (PublishedPlan.Withheld w : plan.withheld()) {
            out.raw(firstHeld ? "{\"topic\":" : ",{\"topic\":").string(w.topic())
                .raw(",\"partition\":").raw(Integer.toString(w.partition()))
                .raw(",\"owner\":").string(w.owner())
                .raw(",\"target\":").string(w.target()).raw("}");
            firstHeld = false;
        }
        out.raw("],\"followup_ms\":null,\"summary\":{\"partitions\":").raw(Integer.toString(partitions))
            .raw(",\"cross_rack_partitions\":").raw(Integer.toString(crossRack))
            .raw(",\"traffic_cost\":").number(cost)
            .raw(",\"lower_bound\":").number(plan.lowerBound())
            .raw(",\"max_load\":").raw(Integer.toString(maxLoad))
            .raw(",\"min_load\":").raw(Integer.toString(minLoad))
            .raw(",\"moved_partitions\":").raw(Integer.toString(plan.movedPartitions()))
            .raw(",\"standby_rack_diversity\":null");
        if (measured) {
            out.raw(",\"bytes_per_s\":").number(bytes)
                .raw(",\"cross_rack_bytes_per_s\":").number(crossBytes)
                .raw(",\"rack_unknown_members\":").raw(Integer.toString(rackUnknown));
        }
        return out.raw("}}").toString();
    }

    /** Just enough of a JSON writer: strings escaped per RFC 8259, finite numbers, nested config values. */
    private static final class Out {
        private final StringBuilder sb = new StringBuilder(1024);

        Out raw(String s) {
            sb.append(s);
            return this;
        }

        Out string(String s) {
            if (s == null) {
                sb.append("null");
                return this;
            }
            sb.append('"');
            for (int i = 0; i < s.length(); i++) {
                char c = s.charAt(i);
                if (c == '"' || c == '\\') {
                    sb.append('\\').append(c);
                } else if (c < 0x20) {
                    sb.append(String.format("\\u%04x", (int) c));
                } else {
                    sb.append(c);
                }
            }
            sb.append('"');
            return this;
        }

        Out number(Double d) {
            if (d == null) {
                sb.append("null");
            } else if (!Double.isFinite(d)) {
                throw new IllegalArgumentException("not a JSON number: " + d);
            } else {
                sb.append(d);  // Double.toString: "1.0", "1.0E7": both valid JSON
            }
            return this;
        }

        Out value(Object v) {
            if (v == null) {
                sb.append("null");
            } else if (v instanceof String s) {
                string(s);
            } else if (v instanceof Boolean b) {
                sb.append(b);
            } else if (v instanceof Double || v instanceof Float) {
                number(((Number) v).doubleValue());
            } else if (v instanceof Number n) {
                sb.append(n.longValue());
            } else if (v instanceof Map<?, ?> map) {
                sb.append('{');
                boolean first = true;
                // sorted keys: the same config gives the same bytes
                for (Map.Entry<?, ?> e : new java.util.TreeMap<>(map).entrySet()) {
                    sb.append(first ? "" : ",");
                    first = false;
                    string(String.valueOf(e.getKey())).raw(":").value(e.getValue());
                }
                sb.append('}');
            } else if (v instanceof List<?> list) {
                sb.append('[');
                for (int i = 0; i < list.size(); i++) {
                    sb.append(i == 0 ? "" : ",");
                    value(list.get(i));
                }
                sb.append(']');
            } else {
                string(v.toString());
            }
            return this;
        }

        @Override
        public String toString() {
            return sb.toString();
        }
    }
}
