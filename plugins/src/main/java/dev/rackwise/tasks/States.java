package dev.rackwise.tasks;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Fresh client states in Kafka's client order, with one lag per stateful task
 * (docs/streams-assignor.md § 1): a reported lag (-4 counts as not reported), else -2 for
 * the previous active, 0 for a previous standby and 0 otherwise (an empty changelog).
 */
final class States {
    private States() {
    }

    static ClientState[] of(TaskProblem p) {
        List<String> ids = new ArrayList<>(p.clients().keySet());
        ids.sort(ProcessOrder.INSTANCE);
        SortedSet<TaskId> known = new TreeSet<>(p.tasks().keySet());
        ClientState[] out = new ClientState[ids.size()];
        for (int i = 0; i < ids.size(); i++) {
            ClientSpec c = p.clients().get(ids.get(i));
            SortedSet<TaskId> prevActive = new TreeSet<>(c.previousActive());
            prevActive.retainAll(known);
            SortedSet<TaskId> prevStandby = new TreeSet<>(c.previousStandby());
            prevStandby.retainAll(known);
            // Looked up by task only (never iterated in order): a hash map, sized once.
            Map<TaskId, Long> lags = new HashMap<>(2 * p.tasks().size() + 16);
            for (TaskSpec t : p.tasks().values()) {
                if (!t.stateful()) {
                    continue;
                }
                Long lag = c.lags().get(t.id());
                if (lag == null || lag == ClientSpec.LAG_NOT_REPORTED) {
                    lag = prevActive.contains(t.id()) ? ClientSpec.LAG_RUNNING : 0L;
                }
                lags.put(t.id(), lag);
            }
            SortedMap<String, String> tags = Collections.unmodifiableSortedMap(new TreeMap<>(c.tags()));
            out[i] = new ClientState(c.processId(), c.threads(), c.rack(), tags, lags, i,
                    Collections.unmodifiableSortedSet(prevActive),
                    Collections.unmodifiableSortedSet(prevStandby));
        }
        return out;
    }
}
