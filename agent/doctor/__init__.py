"""``rackwise doctor``: a read-only preflight of a cluster and its groups.

Two steps: :func:`gather` reads a :class:`Snapshot` (agent.doctor.gather, the only IO), and
:func:`run_checks` turns it into :class:`Finding` s (agent.doctor.checks, pure), each with a
stable id, a severity, its subject, what is wrong and the exact setting to change.
:func:`render_table` / :func:`render_json` print them (agent.doctor.render).

Finding ids (*contract*): ``broker-rack-missing``, ``broker-config-unreadable``,
``replica-selector-missing``, ``replica-selector-mismatch``, ``rackwise-assignor-partial``,
``rackwise-group-unserved``, ``client-rack-missing``, ``client-rack-unknown``,
``group-unreadable``, ``agent-topics-missing``, ``agent-not-running``, ``advice-stale``,
``advice-empty``, ``follower-fetching-off``. docs/operating.md § Preflight says what each
checks.
"""

from __future__ import annotations

from agent.doctor.checks import (
    CHECKS,
    ReadCost,
    follower_fetching_saving,
    rack_mapping,
    run_checks,
)
from agent.doctor.gather import Unreachable, gather
from agent.doctor.model import (
    ERROR,
    FINDING_IDS,
    INFO,
    WARNING,
    AgentState,
    BrokerState,
    Finding,
    GroupReads,
    GroupState,
    MemberState,
    Snapshot,
)
from agent.doctor.render import (
    FINDINGS,
    OK,
    UNREACHABLE,
    render_json,
    render_table,
    render_unreachable_json,
    status_of,
)

__all__ = [
    "CHECKS",
    "ERROR",
    "FINDINGS",
    "FINDING_IDS",
    "INFO",
    "OK",
    "UNREACHABLE",
    "WARNING",
    "AgentState",
    "BrokerState",
    "Finding",
    "GroupReads",
    "GroupState",
    "MemberState",
    "ReadCost",
    "Snapshot",
    "Unreachable",
    "follower_fetching_saving",
    "gather",
    "rack_mapping",
    "render_json",
    "render_table",
    "render_unreachable_json",
    "run_checks",
    "status_of",
]
