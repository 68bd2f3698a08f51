package dev.rackwise.plugins.broker;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.DescribeConsumerGroupsOptions;
import org.apache.kafka.clients.admin.GroupListing;
import org.apache.kafka.clients.admin.ListGroupsOptions;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.common.GroupType;
import org.apache.kafka.common.KafkaFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Member id to group id, learnt in the background from Admin listGroups(consumer) +
 * describeConsumerGroups. Never called inline from assign(): the coordinator thread that runs
 * assign() also serves those describes, so waiting for one there could only time out. A miss
 * schedules a refresh {@link #REFRESH_DELAY_MS} later, once the joining member's records are
 * written; a group is then recognised by any member that was there before, so only the
 * assignments of a new group's first second or so fall back.
 * Groups whose assignor is not one this JVM's rackwise assignors answer to ({@code rackwise},
 * and {@code uniform} where RackwiseUniformAssignor is listed) are skipped for
 * {@link #OTHER_GROUPS_RECHECK_MS}.
 */
public final class AdminGroupIds implements GroupIds {
    static final long OTHER_GROUPS_RECHECK_MS = 300_000;
    static final long REFRESH_DELAY_MS = 500;
    private static final Logger log = LoggerFactory.getLogger(AdminGroupIds.class);
    private static final int MAX_CACHED = 200_000;

    private final Admin admin;
    private final Set<String> assignorNames;
    private final long minIntervalMs;
    private final long timeoutMs;
    private final LongSupplier clock = System::currentTimeMillis;
    private final Map<String, String> groupOfMember = new ConcurrentHashMap<>();
    private final Map<String, Long> otherGroups = new ConcurrentHashMap<>();
    private final AtomicBoolean scheduled = new AtomicBoolean();
    private final ScheduledExecutorService worker;
    private volatile long lastRefreshMs;

    /** {@code assignorNames}: the names whose groups are learnt, read at each refresh (a live set). */
    public AdminGroupIds(Admin admin, Set<String> assignorNames, long minIntervalMs, long timeoutMs,
                         String threadName) {
        this.admin = admin;
        this.assignorNames = assignorNames;
        this.minIntervalMs = minIntervalMs;
        this.timeoutMs = timeoutMs;
        this.worker = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, threadName);
            t.setDaemon(true);
            return t;
        });
    }

    @Override
    public Optional<String> groupOf(Collection<String> memberIds) {
        Map<String, Integer> votes = new HashMap<>();
        boolean someUnknown = false;
        for (String m : memberIds) {
            String g = groupOfMember.get(m);
            if (g == null) {
                someUnknown = true;
            } else {
                votes.merge(g, 1, Integer::sum);
            }
        }
        if (someUnknown) {
            refreshSoon();
        }
        return votes.entrySet().stream().max(Map.Entry.comparingByValue()).map(Map.Entry::getKey);
    }

    /**
     * Schedules a background refresh {@link #REFRESH_DELAY_MS} from now (or minIntervalMs after the
     * last one began, if later), unless one is already scheduled.
     */
    public void refreshSoon() {
        if (!scheduled.compareAndSet(false, true)) {
            return;
        }
        long now = clock.getAsLong();
        long delay = Math.max(REFRESH_DELAY_MS, lastRefreshMs + minIntervalMs - now);
        try {
            worker.schedule(() -> {
                scheduled.set(false);
                lastRefreshMs = clock.getAsLong();
                try {
                    refresh();
                } catch (Exception e) {
                    log.warn("rackwise: cannot list KIP-848 groups to learn member ids: {}", e.toString());
                }
            }, delay, TimeUnit.MILLISECONDS);
        } catch (RuntimeException e) {
            scheduled.set(false);
        }
    }

    private void refresh() throws Exception {
        long now = clock.getAsLong();
        List<String> candidates = new ArrayList<>();
        for (GroupListing g : admin.listGroups(ListGroupsOptions.forConsumerGroups()).all()
                .get(timeoutMs, TimeUnit.MILLISECONDS)) {
            if (g.type().isPresent() && g.type().get() != GroupType.CONSUMER) {
                continue;
            }
            Long skippedAt = otherGroups.get(g.groupId());
            if (skippedAt == null || now - skippedAt > OTHER_GROUPS_RECHECK_MS) {
                candidates.add(g.groupId());
            }
        }
        if (candidates.isEmpty()) {
            return;
        }
        Map<String, KafkaFuture<ConsumerGroupDescription>> described = admin.describeConsumerGroups(candidates,
            new DescribeConsumerGroupsOptions().timeoutMs((int) timeoutMs)).describedGroups();
        if (groupOfMember.size() > MAX_CACHED) {
            groupOfMember.clear();
        }
        for (KafkaFuture<ConsumerGroupDescription> f : described.values()) {
            ConsumerGroupDescription d;
            try {
                d = f.get(timeoutMs, TimeUnit.MILLISECONDS);
            } catch (ExecutionException | TimeoutException e) {
                continue; // deleted since the listing, or its coordinator is busy: next refresh
            }
            if (!assignorNames.contains(d.partitionAssignor())) {
                otherGroups.put(d.groupId(), now);
                continue;
            }
            otherGroups.remove(d.groupId());
            for (MemberDescription m : d.members()) {
                groupOfMember.put(m.consumerId(), d.groupId());
            }
        }
    }
}
