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
        Map<TaskId, Integer> index = new HashMap<>(2 * p.tasks().size() + 16);
        for (TaskSpec t : p.tasks().values()) {
            if (t.stateful()) {
                index.put(t.id(), index.size());
            }
        }
        ClientState[] out = new ClientState[ids.size()];
        for (int i = 0; i < ids.size(); i++) {
            ClientSpec c = p.clients().get(ids.get(i));
            SortedSet<TaskId> prevActive = new TreeSet<>(c.previousActive());
            prevActive.retainAll(known);
            SortedSet<TaskId> prevStandby = new TreeSet<>(c.previousStandby());
            prevStandby.retainAll(known);
            // One lag per stateful task, by index (no boxed map per client): the default
            // first (-2 for a previous active, else 0), then every reported lag but -4.
            long[] lags = new long[index.size()];
            for (TaskId t : prevActive) {
                Integer k = index.get(t);
                if (k != null) {
                    lags[k] = ClientSpec.LAG_RUNNING;
                }
            }
            for (Map.Entry<TaskId, Long> e : c.lags().entrySet()) {
                Integer k = index.get(e.getKey());
                Long lag = e.getValue();
                if (k != null && lag != null && lag != ClientSpec.LAG_NOT_REPORTED) {
                    lags[k] = lag;
                }
            }
            SortedMap<String, String> tags = Collections.unmodifiableSortedMap(new TreeMap<>(c.tags()));
            out[i] = new ClientState(c.processId(), c.threads(), c.rack(), tags, lags, index, i,
                    Collections.unmodifiableSortedSet(prevActive),
                    Collections.unmodifiableSortedSet(prevStandby));
        }
        return out;
    }
}
