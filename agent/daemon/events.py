"""Typed values the daemon's threads exchange (never string-tagged tuples or bare dicts).

Poll loop -> plan worker: :class:`OpenPartition`, :class:`ClosePartition`, :class:`PlanJobCommand`,
:class:`StopWorker`. Plan worker -> poll loop: :class:`Opened`, :class:`Published`,
:class:`Failed`. Metadata thread -> poll loop: :class:`RackChange`, :class:`TrafficSampled`.
Traffic prober -> poll loop: :class:`Probed`.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from protocol.plan import AssignmentPlan

if TYPE_CHECKING:
    from agent.daemon.planning import PlanJob
    from agent.daemon.retraffic import TrafficFigures


@dataclass(frozen=True)
class OpenPartition:
    """Take over a subscriptions partition: fence the previous owner, recover its plans."""

    partition: int


@dataclass(frozen=True)
class ClosePartition:
    """Give a partition up; ``done`` is set once its producer is flushed and closed."""

    partition: int
    done: threading.Event = field(default_factory=threading.Event, compare=False)


@dataclass(frozen=True)
class PlanJobCommand:
    job: PlanJob


@dataclass(frozen=True)
class StopWorker:
    pass


WorkerCommand = OpenPartition | ClosePartition | PlanJobCommand | StopWorker


@dataclass(frozen=True)
class Opened:
    partition: int
    plans: dict[str, AssignmentPlan]


@dataclass(frozen=True)
class Published:
    job: PlanJob
    plan: AssignmentPlan


@dataclass(frozen=True)
class Failed:
    job: PlanJob
    error: str
    fenced: bool = False
    retry: bool = False


@dataclass(frozen=True)
class RackChange:
    """A debounced change of one topic's partition count or replica racks.

    ``kind`` is the plan reason it triggers (``partitions-changed`` or
    ``replica-racks-changed``); ``detail`` says what changed, for the control event.
    """

    topic: str
    kind: str
    detail: Mapping[str, object] = field(default_factory=dict)

    def as_detail(self) -> dict[str, object]:
        return {"topic": self.topic, "kind": self.kind, **self.detail}


@dataclass(frozen=True)
class TrafficSampled:
    """The traffic estimator took sample number ``sample`` (rates end with it)."""

    sample: int


@dataclass(frozen=True)
class Probed:
    """What re-planning ``job``'s group would save at one sample's rates (agent.daemon.retraffic);
    ``figures`` None: the probe failed with ``error``."""

    job: PlanJob
    figures: TrafficFigures | None
    error: str | None = None


LoopEvent = Opened | Published | Failed | RackChange | TrafficSampled | Probed
