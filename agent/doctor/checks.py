"""The doctor's checks: pure functions of a :class:`~agent.doctor.model.Snapshot`.

Each check returns the findings it makes (none when all is well); :func:`run_checks` runs
them all and orders the result (severity, then id, then subject), so the same snapshot gives
the same report. Every finding names the exact setting to change and where.

Example: three brokers where broker 3 sets no ``broker.rack``::

    run_checks(Snapshot("b:9092", (BrokerState(1, "az1"), BrokerState(2, "az2"),
                                   BrokerState(3, None))))
    # [Finding("broker-rack-missing", "error", "broker 3", ...)]
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from agent.doctor.assignor_checks import (
    assignor_split,
    check_rackwise_assignor,
    check_rackwise_groups,
    check_streams_assignor_unserved,
    check_uniform_drop_in,
)
from agent.doctor.model import (
    ADVICE_EMPTY,
    ADVICE_STALE,
    AGENT_NOT_RUNNING,
    AGENT_TOPICS_MISSING,
    ASSIGNORS_CONFIG,
    BROKER_CONFIG_UNREADABLE,
    BROKER_RACK,
    BROKER_RACK_MISSING,
    CLIENT_RACK_MISSING,
    CLIENT_RACK_UNKNOWN,
    ERROR,
    FOLLOWER_FETCHING_OFF,
    GROUP_UNREADABLE,
    INFO,
    RACK_AWARE_SELECTOR,
    REPLICA_SELECTOR_MISMATCH,
    REPLICA_SELECTOR_MISSING,
    SELECTOR_CONFIG,
    SEVERITIES,
    WARNING,
    Finding,
    GroupState,
    MemberState,
    Snapshot,
)
from agent.doctor.wording import apply_hint, brokers_text, readable, verb
from assignor.api import read_cost

# ---- brokers -----------------------------------------------------------------------------

def check_broker_racks(snap: Snapshot) -> list[Finding]:
    """Every broker sets ``broker.rack``: without it its replicas have no rack, so no member
    reads them locally and rack-aware assignors treat them as unknown."""
    racks = snap.broker_racks
    out = []
    for b in snap.brokers:
        if b.rack:
            continue
        naming = (f"use the racks' naming of the other brokers ({', '.join(racks)})"
                  if racks else "use the zone IDs of your cloud (e.g. use1-az1)")
        out.append(Finding(
            BROKER_RACK_MISSING, ERROR, f"broker {b.broker_id}",
            f"broker {b.broker_id}{f' ({b.address})' if b.address else ''} sets no broker.rack: "
            "its replicas have no rack, so no member reads them from its own rack and "
            "rack-aware assignors count them as unknown",
            f"set broker.rack=<its zone> on broker {b.broker_id} {apply_hint(BROKER_RACK, [b])}; "
            f"{naming}",
            {"broker": b.broker_id, "address": b.address, "broker_racks": list(racks)},
        ))
    return out


def check_broker_configs_readable(snap: Snapshot) -> list[Finding]:
    return [
        Finding(BROKER_CONFIG_UNREADABLE, WARNING, f"broker {b.broker_id}",
                f"cannot read broker {b.broker_id}'s configs ({b.config_error}): "
                f"{SELECTOR_CONFIG} and {ASSIGNORS_CONFIG} are not checked there",
                "allow this client DescribeConfigs on the cluster resource (ACL "
                "--operation DescribeConfigs --cluster), or run doctor as a principal that has it",
                {"broker": b.broker_id, "error": b.config_error})
        for b in snap.brokers if b.config_error is not None
    ]


def check_replica_selector(snap: Snapshot) -> list[Finding]:
    """``replica.selector.class`` is RackAwareReplicaSelector, the same on every broker."""
    brokers = readable(snap)
    out = []
    for b in brokers:
        if b.rack_aware:
            continue
        now = f"is {b.selector}" if b.selector else "is not set (Kafka's default: leader only)"
        out.append(Finding(
            REPLICA_SELECTOR_MISSING, WARNING, f"broker {b.broker_id}",
            f"{SELECTOR_CONFIG} on broker {b.broker_id} {now}: members with client.rack "
            "cannot read its partitions from a follower in their rack (KIP-392)",
            f"set {SELECTOR_CONFIG}={RACK_AWARE_SELECTOR} on broker {b.broker_id} "
            f"{apply_hint(SELECTOR_CONFIG, [b])}",
            {"broker": b.broker_id, "value": b.selector or None},
        ))
    values = {(b.selector or "").strip() for b in brokers}
    if len(values) > 1:
        by_value: dict[str, list[int]] = {}
        for b in brokers:
            by_value.setdefault((b.selector or "").strip() or "(unset)", []).append(b.broker_id)
        said = "; ".join(f"{brokers_text(ids)}: {v}" for v, ids in sorted(by_value.items()))
        odd = [b for b in brokers if not b.rack_aware]
        out.append(Finding(
            REPLICA_SELECTOR_MISMATCH, WARNING, "cluster",
            f"brokers disagree on {SELECTOR_CONFIG} ({said}): a member reads from followers "
            "only where a partition's leader allows it, so rackwise plans as if every read "
            "went to the leader",
            f"set {SELECTOR_CONFIG}={RACK_AWARE_SELECTOR} on {brokers_text(b.broker_id for b in odd)} "
            f"{apply_hint(SELECTOR_CONFIG, odd)}",
            {"values": {v: ids for v, ids in sorted(by_value.items())}},
        ))
    return out


# ---- members -----------------------------------------------------------------------------

def _member_label(m: MemberState) -> str:
    who = m.client_id or m.member_id
    return f"{who}@{m.host.lstrip('/')}" if m.host else who


def check_groups_readable(snap: Snapshot) -> list[Finding]:
    return [
        Finding(GROUP_UNREADABLE, INFO, f"group {g.group_id}",
                f"group {g.group_id} ({g.group_type}) could not be described: {g.error}; its "
                "members' racks are not checked",
                "run doctor again once the group is stable; if it persists, allow this client "
                "Describe on the group (ACL --operation Describe --group)",
                {"group": g.group_id, "error": g.error})
        for g in snap.groups if g.error
    ]


def check_client_rack_missing(snap: Snapshot) -> list[Finding]:
    """Live members that send no ``client.rack``."""
    racks = snap.broker_racks
    out = []
    for g in snap.groups:
        missing = [m for m in g.members if not m.rack]
        if not missing:
            continue
        first = _member_label(sorted(missing, key=lambda m: m.member_id)[0])
        out.append(Finding(
            CLIENT_RACK_MISSING, WARNING, f"group {g.group_id}",
            f"{len(missing)} of {len(g.members)} members of group {g.group_id} set no "
            f"client.rack (first: {first}): they read from leaders wherever those are, and no "
            "assignor can keep them in their rack",
            "set client.rack on those consumers to the broker.rack of their zone "
            f"({', '.join(racks) if racks else 'the brokers set none'}); "
            "`rackwise zone` prints it on each host",
            {"group": g.group_id, "members": sorted(m.member_id for m in missing)},
        ))
    return out


def rack_mapping(groups: Sequence[GroupState], broker_racks: Sequence[str]) -> dict[str, str | None]:
    """Client racks that name no broker rack -> the broker rack they most likely mean.

    Only one case is unambiguous enough to suggest: exactly one unmatched client rack and
    exactly one broker rack that no live member names (e.g. ``us-east-1c`` where brokers use
    ``use1-az1..3`` and members already sit in az1 and az2). Anything else maps to None.
    """
    known = set(broker_racks)
    used = {m.rack for g in groups for m in g.members if m.rack}
    unmatched = sorted(used - known)
    free = sorted(known - used)
    if len(unmatched) == 1 and len(free) == 1:
        return {unmatched[0]: free[0]}
    return dict.fromkeys(unmatched)


def check_client_rack_unknown(snap: Snapshot) -> list[Finding]:
    """Live members whose ``client.rack`` names no broker rack (zone name vs zone ID...)."""
    racks = snap.broker_racks
    if not racks:
        return []  # broker-rack-missing says what to fix first
    mapping = rack_mapping(snap.groups, racks)
    out = []
    for g in snap.groups:
        wrong = sorted((m for m in g.members if m.rack and m.rack not in racks),
                       key=lambda m: m.member_id)
        if not wrong:
            continue
        names = sorted({m.rack for m in wrong if m.rack})
        fixes = []
        for name in names:
            guess = mapping.get(name)
            if guess is not None:
                fixes.append(f"client.rack={guess} instead of {name} (likely: {name} is the only "
                             f"unmatched client rack and {guess} the only broker rack without "
                             "members; check the zone)")
            else:
                fixes.append(f"replace client.rack={name}: ambiguous, it could be any of "
                             f"{', '.join(racks)}")
        out.append(Finding(
            CLIENT_RACK_UNKNOWN, WARNING, f"group {g.group_id}",
            f"{len(wrong)} of {len(g.members)} members of group {g.group_id} set a client.rack "
            f"no broker has ({', '.join(names)}; brokers: {', '.join(racks)}): they never read "
            "from a follower and every assignor treats them as remote from every replica",
            "; ".join(fixes) + ". Zone names (us-east-1a) and zone IDs (use1-az1) differ per "
            "account: `rackwise zone --aws id` prints the ID",
            {"group": g.group_id, "members": [m.member_id for m in wrong],
             "racks": names, "suggested": {n: mapping.get(n) for n in names}},
        ))
    return out


# ---- the agent ---------------------------------------------------------------------------

def check_agent(snap: Snapshot) -> list[Finding]:
    """The agent's topics exist, an agent runs, and its advice is fresh."""
    agent = snap.agent
    if agent is None:
        return []
    out = []
    missing = {role: name for role, name in sorted(agent.topics.items())
               if name not in agent.existing}
    loading, _ = assignor_split(snap)
    if missing:
        consequence = ""
        if "plans" in missing:
            who = ("the brokers' RackwiseGroupAssignor and any RackwiseAssignor consumer"
                   if loading else "Kafka's rackwise plug-ins")
            consequence = (f"; {who} cannot publish plan reports ({missing['plans']} does not "
                           "exist), so the metrics job, the report and the audit miss them")
        out.append(Finding(
            AGENT_TOPICS_MISSING, WARNING, "agent",
            f"the agent's topics {', '.join(sorted(missing.values()))} do not exist{consequence}",
            "start the agent once (`rackwise agent run --bootstrap B`, topics.create=true creates "
            "them), or create them with the names in the agent settings (topics.*)",
            {"missing": missing},
        ))
    if agent.members == 0:
        out.append(Finding(
            AGENT_NOT_RUNNING, WARNING, "agent",
            f"no agent is running: the agents' group {agent.group_id} has no members, so no "
            "advice (bytes/s, leaders) reaches the plug-ins and no group is planned or observed",
            f"run `rackwise agent run --bootstrap B` (settings input.group_id={agent.group_id}) "
            "on at least one host",
            {"group": agent.group_id},
        ))
    advice = agent.topics.get("advice")
    if advice and advice in agent.existing and agent.advice_error is None:
        if agent.advice_newest_ms is None:
            out.append(Finding(
                ADVICE_EMPTY, INFO, f"topic {advice}",
                f"{advice} holds no advice yet: the plug-ins weigh partitions by count only",
                "nothing to do while an agent runs with advice.enabled=true (it writes within "
                "metadata.interval_s); otherwise start one",
                {"topic": advice},
            ))
        else:
            age = max(0.0, (snap.now_ms - agent.advice_newest_ms) / 1000)
            if age > agent.advice_max_age_s:
                out.append(Finding(
                    ADVICE_STALE, WARNING, f"topic {advice}",
                    f"the newest advice on {advice} is {age:,.0f} s old (more than "
                    f"{agent.advice_max_age_s:,.0f} s): the plug-ins stop using stale weights "
                    "(rackwise.advice.max.age.ms) and fall back to partition counts",
                    "check that an agent runs and can write to the topic (advice.enabled=true); "
                    "a live agent re-publishes every advice.refresh_s",
                    {"topic": advice, "age_s": round(age, 1),
                     "max_age_s": agent.advice_max_age_s},
                ))
    return out


# ---- what follower fetching would save ----------------------------------------------------

@dataclass(frozen=True)
class ReadCost:
    """One group's assignment priced two ways by assignor.cost: read from leaders (now) and
    from the nearest replica (with RackAwareReplicaSelector). Bytes None: not measured."""

    group: str
    cross_rack_partitions_leader: int
    cross_rack_partitions_nearest: int
    cross_rack_bytes_per_s_leader: float | None
    cross_rack_bytes_per_s_nearest: float | None
    usd_per_month_leader: float | None
    usd_per_month_nearest: float | None

    def to_json(self) -> dict[str, object]:
        return dataclasses.asdict(self)


def follower_fetching_saving(snap: Snapshot) -> list[ReadCost]:
    """Per group: what the assignment it runs reads across racks from leaders and from the
    nearest replica, by the cost model every rackwise figure uses (assignor.api.read_cost)."""
    rows = []
    for r in snap.reads:
        now = dataclasses.replace(r.view, follower_fetching=False)
        then = dataclasses.replace(r.view, follower_fetching=True)
        lists = {m: list(tps) for m, tps in r.assignment.items()}
        leader = read_cost(now, lists, r.racks, r.locations)
        nearest = read_cost(then, lists, r.racks, r.locations)
        rows.append(ReadCost(
            r.group_id, leader.cross_rack_partitions, nearest.cross_rack_partitions,
            leader.cross_rack_bytes_per_s, nearest.cross_rack_bytes_per_s,
            snap.price.per_month(leader.cross_rack_bytes_per_s),
            snap.price.per_month(nearest.cross_rack_bytes_per_s)))
    return rows


def _rate(value: float) -> str:
    from agent.audit.render import human_rate

    return human_rate(value)


def check_follower_fetching(snap: Snapshot) -> list[Finding]:
    """Members set racks but the brokers do not serve reads from followers: say what turning
    it on would save, priced by the audit's own cost model and price."""
    brokers = readable(snap)
    if not brokers or all(b.rack_aware for b in brokers):
        return []
    with_rack = sum(1 for g in snap.groups for m in g.members if m.rack)
    if not with_rack:
        return []
    rows = follower_fetching_saving(snap)
    parts_now = sum(r.cross_rack_partitions_leader for r in rows)
    parts_then = sum(r.cross_rack_partitions_nearest for r in rows)
    measured = [r for r in rows if r.cross_rack_bytes_per_s_leader is not None]
    figures = (f"{parts_now} cross-rack partitions now, {parts_then} with follower fetching"
               if rows else "no group's assignment could be measured to price it")
    details: dict[str, object] = {"groups": [r.to_json() for r in rows], "members_with_rack": with_rack,
                                  "cross_rack_partitions_leader": parts_now,
                                  "cross_rack_partitions_nearest": parts_then,
                                  "window_s": snap.window_s}
    if measured:
        now = sum(r.cross_rack_bytes_per_s_leader or 0.0 for r in measured)
        then = sum(r.cross_rack_bytes_per_s_nearest or 0.0 for r in measured)
        saving = max(0.0, now - then)
        usd = snap.price.per_month(saving) or 0.0
        figures += (f"; {_rate(now)} read across racks now, {_rate(then)} with it: saves "
                    f"{_rate(saving)}, ${usd:,.2f}/month at ${snap.price.per_gb:g}/GB x "
                    f"{snap.price.directions} (measured over {snap.window_s:g} s)")
        details.update(cross_rack_bytes_per_s_leader=round(now, 3),
                       cross_rack_bytes_per_s_nearest=round(then, 3),
                       saving_bytes_per_s=round(saving, 3), saving_usd_per_month=usd)
    elif rows:
        figures += "; bytes not measured (--window 0 or no traffic sample)"
    priced = {r.group for r in rows}
    unpriced = sorted(g.group_id for g in snap.groups
                      if g.group_id not in priced and any(m.rack for m in g.members))
    if unpriced:  # a partial figure says so: these groups' reads are in no sum above
        details["groups_not_priced"] = unpriced
        named = ", ".join(unpriced[:5]) + (f" and {len(unpriced) - 5} more" if len(unpriced) > 5
                                           else "")
        figures += (f"; not priced: {named}, whose assignment could not be measured now "
                    "(rebalancing, or not a consumer group): run doctor again once they settle")
    rackless = sorted(b.broker_id for b in snap.brokers if not b.rack)
    if rackless:
        figures += (f"; {brokers_text(rackless)} set no broker.rack, so reads they serve count as "
                    "local in these figures: fix broker-rack-missing first")
    odd = [b for b in brokers if not b.rack_aware]
    return [Finding(
        FOLLOWER_FETCHING_OFF, WARNING, "cluster",
        f"{with_rack} live member(s) set client.rack but {brokers_text(b.broker_id for b in odd)} "
        f"{verb(odd, 'does', 'do')} not use {RACK_AWARE_SELECTOR.rsplit('.', 1)[-1]}, so "
        + ("every read goes to the partition's leader" if len(odd) == len(brokers) else
           "the partitions they lead are read from the leader, and rackwise counts every read "
           "as a leader read until all brokers agree")
        + f" ({figures})",
        f"set {SELECTOR_CONFIG}={RACK_AWARE_SELECTOR} on {brokers_text(b.broker_id for b in odd)} "
        f"{apply_hint(SELECTOR_CONFIG, odd)}: rackwise's first advice here is a broker setting",
        details,
    )]


CHECKS: tuple[Callable[[Snapshot], list[Finding]], ...] = (
    check_broker_racks,
    check_broker_configs_readable,
    check_replica_selector,
    check_rackwise_assignor,
    check_rackwise_groups,
    check_uniform_drop_in,
    check_groups_readable,
    check_client_rack_missing,
    check_client_rack_unknown,
    check_agent,
    check_follower_fetching,
    check_streams_assignor_unserved,
)


def run_checks(snap: Snapshot) -> list[Finding]:
    """Every check's findings: errors first, then warnings, then info; by id and subject."""
    found = [f for check in CHECKS for f in check(snap)]
    return sorted(found, key=lambda f: (SEVERITIES.index(f.severity), f.id, f.subject))
