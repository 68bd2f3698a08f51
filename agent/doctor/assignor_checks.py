"""The doctor's checks of Kafka's assignor plug-in points: the rackwise broker assignors
(``group.consumer.assignors``, the ``uniform`` drop-in, ``group.streams.assignors``) listed on
every broker or none, and groups that name an assignor the brokers do not serve. Pure functions
of a :class:`~agent.doctor.model.Snapshot`, run by :func:`agent.doctor.checks.run_checks`.
"""

from __future__ import annotations

from agent.doctor.model import (
    ASSIGNORS_CONFIG,
    ERROR,
    GROUP_ASSIGNOR_CLASS,
    GROUP_ASSIGNOR_NAME,
    RACKWISE_ASSIGNOR_PARTIAL,
    RACKWISE_GROUP_UNSERVED,
    STREAMS_ASSIGNOR_CLASS,
    STREAMS_ASSIGNOR_NAME_CONFIG,
    STREAMS_ASSIGNOR_UNSERVED,
    STREAMS_ASSIGNORS_CONFIG,
    UNIFORM_DROP_IN_CLASS,
    UNIFORM_DROP_IN_PARTIAL,
    WARNING,
    BrokerState,
    Finding,
    Snapshot,
)
from agent.doctor.wording import apply_hint, brokers_text, readable, verb


def assignor_split(snap: Snapshot) -> tuple[list[BrokerState], list[BrokerState]]:
    known = [b for b in readable(snap) if b.loads_rackwise is not None]
    return ([b for b in known if b.loads_rackwise], [b for b in known if not b.loads_rackwise])


def check_rackwise_assignor(snap: Snapshot) -> list[Finding]:
    """The broker assignor is listed on every broker or on none."""
    loading, missing = assignor_split(snap)
    if not loading or not missing:
        return []
    return [Finding(
        RACKWISE_ASSIGNOR_PARTIAL, ERROR, "cluster",
        f"{brokers_text(b.broker_id for b in loading)} "
        f"{verb(loading, 'loads', 'load')} rackwise's KIP-848 assignor but "
        f"{brokers_text(b.broker_id for b in missing)} {verb(missing, 'does', 'do')} not: a group with "
        f"group.remote.assignor={GROUP_ASSIGNOR_NAME} fails (UNSUPPORTED_ASSIGNOR) whenever "
        "its coordinator is on one of those",
        f"on {brokers_text(b.broker_id for b in missing)}: list {GROUP_ASSIGNOR_CLASS} in "
        f"{ASSIGNORS_CONFIG} as the others do (e.g. uniform,range,{GROUP_ASSIGNOR_CLASS}) "
        f"{apply_hint(ASSIGNORS_CONFIG, missing)}, with the rackwise-plugins jar on the classpath; "
        f"or remove it from {brokers_text(b.broker_id for b in loading)}",
        {"loading": sorted(b.broker_id for b in loading),
         "missing": sorted(b.broker_id for b in missing)},
    )]


def check_rackwise_groups(snap: Snapshot) -> list[Finding]:
    """KIP-848 groups that chose ``rackwise`` while some brokers cannot serve it."""
    loading, missing = assignor_split(snap)
    if not missing:
        return []
    out = []
    for g in snap.groups:
        if g.group_type != "consumer" or g.assignor != GROUP_ASSIGNOR_NAME:
            continue
        where = ("no broker loads it" if not loading else
                 f"{brokers_text(b.broker_id for b in missing)} cannot serve it")
        out.append(Finding(
            RACKWISE_GROUP_UNSERVED, ERROR, f"group {g.group_id}",
            f"group {g.group_id} uses group.remote.assignor={GROUP_ASSIGNOR_NAME} but {where}: "
            "its members fail with UNSUPPORTED_ASSIGNOR when its coordinator is there",
            f"load {GROUP_ASSIGNOR_CLASS} on {brokers_text(b.broker_id for b in missing)} "
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
        f"{brokers_text(b.broker_id for b in serving)} {verb(serving, 'lists', 'list')} "
        f"{UNIFORM_DROP_IN_CLASS} as uniform but {brokers_text(b.broker_id for b in others)} "
        f"{verb(others, 'does', 'do')} not: a KIP-848 group naming no assignor or uniform is "
        "rack-optimal only while its coordinator is on the first, and rack-blind on the others",
        f"list {UNIFORM_DROP_IN_CLASS} instead of uniform in {ASSIGNORS_CONFIG} on "
        f"{brokers_text(b.broker_id for b in others)} {apply_hint(ASSIGNORS_CONFIG, others)}, "
        f"or take it off {brokers_text(b.broker_id for b in serving)}",
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
        judged = [b for b in readable(snap) if b.streams_assignor_names is not None]
        missing = [b for b in judged if name not in (b.streams_assignor_names or frozenset())]
        runs = running.get(group_id)
        if runs is not None and runs != name:
            fix = (f"list {STREAMS_ASSIGNOR_CLASS} in {STREAMS_ASSIGNORS_CONFIG} on every broker "
                   "(e.g. sticky," + STREAMS_ASSIGNOR_CLASS + "), with the rackwise-plugins jar on "
                   "the classpath" if name == "rackwise" else
                   f"list the assignor named {name} in {STREAMS_ASSIGNORS_CONFIG} on every broker")
            where = (f"; {brokers_text(b.broker_id for b in missing)} {verb(missing, 'does', 'do')} "
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
               f"{brokers_text(b.broker_id for b in missing)} (e.g. sticky,{STREAMS_ASSIGNOR_CLASS}) "
               f"{apply_hint(STREAMS_ASSIGNORS_CONFIG, missing)}, "
               "with the rackwise-plugins jar on the classpath"
               if name == "rackwise" else
               f"list the assignor named {name} in {STREAMS_ASSIGNORS_CONFIG} on "
               f"{brokers_text(b.broker_id for b in missing)}")
        out.append(Finding(
            STREAMS_ASSIGNOR_UNSERVED, ERROR, f"group {group_id}",
            f"streams group {group_id} sets {STREAMS_ASSIGNOR_NAME_CONFIG}={name} but "
            f"{brokers_text(b.broker_id for b in missing)} {verb(missing, 'does', 'do')} not serve it "
            f"({STREAMS_ASSIGNORS_CONFIG}={default}): while its coordinator is there the group runs "
            "that broker's first listed assignor instead, and only the broker logs a warning",
            f"{fix}; or set {STREAMS_ASSIGNOR_NAME_CONFIG} to an assignor every broker serves",
            {"group": group_id, "assignor": name, "missing": sorted(b.broker_id for b in missing)},
        ))
    return out
