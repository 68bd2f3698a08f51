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
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

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
    GROUP_ASSIGNOR_CLASS,
    GROUP_ASSIGNOR_NAME,
    GROUP_UNREADABLE,
    INFO,
    RACK_AWARE_SELECTOR,
    RACKWISE_ASSIGNOR_PARTIAL,
    RACKWISE_GROUP_UNSERVED,
    REPLICA_SELECTOR_MISMATCH,
    REPLICA_SELECTOR_MISSING,
    SELECTOR_CONFIG,
    SEVERITIES,
    STREAMS_ASSIGNOR_CLASS,
    STREAMS_ASSIGNOR_NAME_CONFIG,
    STREAMS_ASSIGNOR_UNSERVED,
    STREAMS_ASSIGNORS_CONFIG,
    UNIFORM_DROP_IN_CLASS,
    UNIFORM_DROP_IN_PARTIAL,
    WARNING,
    BrokerState,
    Finding,
    GroupState,
    MemberState,
    Snapshot,
)
from assignor.api import read_cost


def _brokers(ids: Iterable[int]) -> str:
    ids = sorted(ids)
    return ("broker " if len(ids) == 1 else "brokers ") + ", ".join(map(str, ids))


def _verb(items: Sequence[object], one: str, many: str) -> str:
    return one if len(items) == 1 else many


def _apply(setting: str, brokers: Sequence[BrokerState]) -> str:
    """How a broker setting takes effect: a (rolling) restart for read-only ones."""
    if all(setting in b.read_only for b in brokers):
        return ("in server.properties and restart " + ("it" if len(brokers) == 1 else
                "them one at a time") + f" ({setting} is read-only: Kafka cannot change it "
                "at run time)")
    return (f"with kafka-configs --alter --entity-type brokers --entity-name <id> "
            f"--add-config {setting}=<value> (dynamic), and in server.properties")


def _readable(snap: Snapshot) -> list[BrokerState]:
    return [b for b in snap.brokers if b.config_error is None]


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
            f"set broker.rack=<its zone> on broker {b.broker_id} {_apply(BROKER_RACK, [b])}; "
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
    brokers = _readable(snap)
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
            f"{_apply(SELECTOR_CONFIG, [b])}",
            {"broker": b.broker_id, "value": b.selector or None},
        ))
    values = {(b.selector or "").strip() for b in brokers}
    if len(values) > 1:
        by_value: dict[str, list[int]] = {}
        for b in brokers:
            by_value.setdefault((b.selector or "").strip() or "(unset)", []).append(b.broker_id)
        said = "; ".join(f"{_brokers(ids)}: {v}" for v, ids in sorted(by_value.items()))
        odd = [b for b in brokers if not b.rack_aware]
        out.append(Finding(
            REPLICA_SELECTOR_MISMATCH, WARNING, "cluster",
            f"brokers disagree on {SELECTOR_CONFIG} ({said}): a member reads from followers "
            "only where a partition's leader allows it, so rackwise plans as if every read "
            "went to the leader",
            f"set {SELECTOR_CONFIG}={RACK_AWARE_SELECTOR} on {_brokers(b.broker_id for b in odd)} "
            f"{_apply(SELECTOR_CONFIG, odd)}",
            {"values": {v: ids for v, ids in sorted(by_value.items())}},
        ))
    return out


def _assignor_split(snap: Snapshot) -> tuple[list[BrokerState], list[BrokerState]]:
    known = [b for b in _readable(snap) if b.loads_rackwise is not None]
    return ([b for b in known if b.loads_rackwise], [b for b in known if not b.loads_rackwise])


def check_rackwise_assignor(snap: Snapshot) -> list[Finding]:
    """The broker assignor is listed on every broker or on none."""
    loading, missing = _assignor_split(snap)
    if not loading or not missing:
        return []
    return [Finding(
        RACKWISE_ASSIGNOR_PARTIAL, ERROR, "cluster",
        f"{_brokers(b.broker_id for b in loading)} "
        f"{_verb(loading, 'loads', 'load')} rackwise's KIP-848 assignor but "
        f"{_brokers(b.broker_id for b in missing)} {_verb(missing, 'does', 'do')} not: a group with "
        f"group.remote.assignor={GROUP_ASSIGNOR_NAME} fails (UNSUPPORTED_ASSIGNOR) whenever "
        "its coordinator is on one of those",
        f"on {_brokers(b.broker_id for b in missing)}: list {GROUP_ASSIGNOR_CLASS} in "
        f"{ASSIGNORS_CONFIG} as the others do (e.g. uniform,range,{GROUP_ASSIGNOR_CLASS}) "
        f"{_apply(ASSIGNORS_CONFIG, missing)}, with the rackwise-plugins jar on the classpath; "
        f"or remove it from {_brokers(b.broker_id for b in loading)}",
        {"loading": sorted(b.broker_id for b in loading),
         "missing": sorted(b.broker_id for b in missing)},
    )]


def check_rackwise_groups(snap: Snapshot) -> list[Finding]:
    """KIP-848 groups that chose ``rackwise`` while some brokers cannot serve it."""
    loading, missing = _assignor_split(snap)
    if not missing:
        return []
    out = []
    for g in snap.groups:
        if g.group_type != "consumer" or g.assignor != GROUP_ASSIGNOR_NAME:
            continue
        where = ("no broker loads it" if not loading else
                 f"{_brokers(b.broker_id for b in missing)} cannot serve it")
        out.append(Finding(
            RACKWISE_GROUP_UNSERVED, ERROR, f"group {g.group_id}",
            f"group {g.group_id} uses group.remote.assignor={GROUP_ASSIGNOR_NAME} but {where}: "
            "its members fail with UNSUPPORTED_ASSIGNOR when its coordinator is there",
            f"load {GROUP_ASSIGNOR_CLASS} on {_brokers(b.broker_id for b in missing)} "
            f"({ASSIGNORS_CONFIG}, see {RACKWISE_ASSIGNOR_PARTIAL}), or set "
            "group.remote.assignor=uniform on the group's consumers until then"
            + (" (rackwise's own drop-in where a broker lists "
               f"{UNIFORM_DROP_IN_CLASS.rsplit('.', 1)[-1]})"
               if any(b.serves_uniform_drop_in for b in snap.brokers) else ""),
            {"group": g.group_id, "missing": sorted(b.broker_id for b in missing)},
        ))
    return out


def check_uniform_drop_in(snap: Snapshot) -> list[Finding]:
    """rackwise's drop-in for ``uniform`` is listed on every broker or on none: otherwise a
    KIP-848 group naming no assignor (or ``uniform``) is rack-optimal only while its
    coordinator sits on a broker that lists it, and changes assignor when the coordinator moves."""
    known = [b for b in snap.brokers if b.serves_uniform_drop_in is not None]
    serving = [b for b in known if b.serves_uniform_drop_in]
    others = [b for b in known if not b.serves_uniform_drop_in]
    if not serving or not others:
        return []
    return [Finding(
        UNIFORM_DROP_IN_PARTIAL, WARNING, "cluster",
        f"{_brokers(b.broker_id for b in serving)} {_verb(serving, 'lists', 'list')} "
        f"{UNIFORM_DROP_IN_CLASS} as uniform but {_brokers(b.broker_id for b in others)} "
        f"{_verb(others, 'does', 'do')} not: a KIP-848 group naming no assignor or uniform is "
        "rack-optimal only while its coordinator is on the first, and rack-blind on the others",
        f"list {UNIFORM_DROP_IN_CLASS} instead of uniform in {ASSIGNORS_CONFIG} on "
        f"{_brokers(b.broker_id for b in others)} {_apply(ASSIGNORS_CONFIG, others)}, "
        f"or take it off {_brokers(b.broker_id for b in serving)}",
        {"serving": sorted(b.broker_id for b in serving),
         "missing": sorted(b.broker_id for b in others)},
    )]
def check_streams_assignor_unserved(snap: Snapshot) -> list[Finding]:
    """Streams groups whose streams.assignor.name some 4.4+ broker does not serve: while the
    group's coordinator is there, Kafka runs that broker's default (the first listed) instead,
    with only a broker WARN (KIP-1357, 4.4.0). Where the coordinator names the assignor it
    uses (StreamsGroupDescription.assignorName) and that is not the one the group asks for,
    the group is named from that answer, whatever the brokers' configs say or hide."""
    out = []
    running = {g.group_id: g.assignor for g in snap.groups
               if g.group_type == "streams" and g.assignor not in ("", "streams")}
    for group_id, name in sorted(snap.streams_assignors.items()):
        judged = [b for b in _readable(snap) if b.streams_assignor_names is not None]
        missing = [b for b in judged if name not in (b.streams_assignor_names or frozenset())]
        runs = running.get(group_id)
        if runs is not None and runs != name:
            fix = (f"list {STREAMS_ASSIGNOR_CLASS} in {STREAMS_ASSIGNORS_CONFIG} on every broker "
                   "(e.g. sticky," + STREAMS_ASSIGNOR_CLASS + "), with the rackwise-plugins jar on "
                   "the classpath" if name == "rackwise" else
                   f"list the assignor named {name} in {STREAMS_ASSIGNORS_CONFIG} on every broker")
            where = (f"; {_brokers(b.broker_id for b in missing)} {_verb(missing, 'does', 'do')} "
                     "not serve it" if missing else "")
            out.append(Finding(
                STREAMS_ASSIGNOR_UNSERVED, ERROR, f"group {group_id}",
                f"streams group {group_id} sets {STREAMS_ASSIGNOR_NAME_CONFIG}={name} but its "
                f"coordinator runs {runs} (StreamsGroupDescription.assignorName){where}: the "
                "broker serving the group lacks the assignor the group asks for, and only the "
                "broker logs a warning",
                f"{fix}; or set {STREAMS_ASSIGNOR_NAME_CONFIG} to an assignor every broker serves",
                {"group": group_id, "assignor": name, "coordinator_runs": runs,
                 "missing": sorted(b.broker_id for b in missing)},
            ))
            continue
        if not missing:
            continue
        default = ",".join(missing[0].streams_assignors or ()) or "(none)"
        fix = (f"list {STREAMS_ASSIGNOR_CLASS} in {STREAMS_ASSIGNORS_CONFIG} on "
               f"{_brokers(b.broker_id for b in missing)} (e.g. sticky,{STREAMS_ASSIGNOR_CLASS}) "
               f"{_apply(STREAMS_ASSIGNORS_CONFIG, missing)}, with the rackwise-plugins jar on the classpath"
               if name == "rackwise" else
               f"list the assignor named {name} in {STREAMS_ASSIGNORS_CONFIG} on "
               f"{_brokers(b.broker_id for b in missing)}")
        out.append(Finding(
            STREAMS_ASSIGNOR_UNSERVED, ERROR, f"group {group_id}",
            f"streams group {group_id} sets {STREAMS_ASSIGNOR_NAME_CONFIG}={name} but "
            f"{_brokers(b.broker_id for b in missing)} {_verb(missing, 'does', 'do')} not serve it "
            f"({STREAMS_ASSIGNORS_CONFIG}={default}): while its coordinator is there the group runs "
            "that broker's first listed assignor instead, and only the broker logs a warning",
            f"{fix}; or set {STREAMS_ASSIGNOR_NAME_CONFIG} to an assignor every broker serves",
            {"group": group_id, "assignor": name, "missing": sorted(b.broker_id for b in missing)},
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
    loading, _ = _assignor_split(snap)
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
    brokers = _readable(snap)
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
        figures += (f"; {_brokers(rackless)} set no broker.rack, so reads they serve count as "
                    "local in these figures: fix broker-rack-missing first")
    odd = [b for b in brokers if not b.rack_aware]
    return [Finding(
        FOLLOWER_FETCHING_OFF, WARNING, "cluster",
        f"{with_rack} live member(s) set client.rack but {_brokers(b.broker_id for b in odd)} "
        f"{_verb(odd, 'does', 'do')} not use {RACK_AWARE_SELECTOR.rsplit('.', 1)[-1]}, so "
        + ("every read goes to the partition's leader" if len(odd) == len(brokers) else
           "the partitions they lead are read from the leader, and rackwise counts every read "
           "as a leader read until all brokers agree")
        + f" ({figures})",
        f"set {SELECTOR_CONFIG}={RACK_AWARE_SELECTOR} on {_brokers(b.broker_id for b in odd)} "
        f"{_apply(SELECTOR_CONFIG, odd)}: rackwise's first advice here is a broker setting",
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
