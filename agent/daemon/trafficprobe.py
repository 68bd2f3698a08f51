"""Traffic-triggered re-plans in the daemon: probing groups after each traffic sample.

:class:`TrafficProber` is a thread beside the plan worker (so probes never delay a plan):
for each probe job it plans the group as its assignor would now, at the latest sample's
rates, without publishing, and reports :class:`~agent.daemon.events.Probed` to the poll
loop. :class:`TrafficReplans` is the poll loop's bookkeeping, called from ``_schedule`` (the
one place re-plans are decided, agent.daemon.loop): it folds probe results into decisions
(agent.daemon.retraffic) and, on a new sample, submits probes for the groups that qualify:

* consumer groups whose assignor uses weights (assignor.api.uses_weights: rack-optimal).
  Streams groups never: the HA assignor's KIP-925 cost counts partitions, so a re-plan at
  new rates would give the same tasks to the same clients;
* settled: a last plan with nothing withheld, no probing follow-up due, no change pending and
  no plan in flight. On the cooperative protocol the re-plan's moves then go through the
  normal withholding: the ``traffic-changed`` plan withholds what moves, the ``followup``
  plan hands it over once released.

Groups served by Kafka's plug-ins are planned in-process when Kafka asks (they take the
measured traffic as advice) and are not probed.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Iterable, Mapping

import structlog

from agent.brokers.traffic import TrafficEstimator
from agent.config.settings import AgentSettings
from agent.daemon.events import LoopEvent, Probed, TrafficSampled
from agent.daemon.planning import PlanJob, assignor_for, compute_plan, job_for, planned_topics
from agent.daemon.rackwatch import RackWatch
from agent.daemon.retraffic import (
    ReplanState,
    TrafficFigures,
    cross_rack_bytes,
    decide,
    moved,
    worth_solving,
)
from agent.daemon.state import GroupState
from assignor.api import uses_weights
from assignor.errors import AssignorError
from protocol.errors import RackwiseError

log = structlog.get_logger("rackwise.traffic")

REASON = "traffic-changed"


class TrafficProber:
    """Samples traffic for the metadata thread and probes groups on its own thread."""

    def __init__(self, settings: AgentSettings, watch: RackWatch, traffic: TrafficEstimator,
                 results: Callable[[LoopEvent], None]) -> None:
        self.settings, self.watch, self.traffic, self.results = settings, watch, traffic, results
        self._jobs: queue.Queue[PlanJob] = queue.Queue()
        self._thread: threading.Thread | None = None

    def sample(self, topics: Iterable[str]) -> None:
        """One traffic sample (the metadata thread, once per round), announced to the loop."""
        self.traffic.sample(topics)
        self.results(TrafficSampled(self.traffic.samples))

    def start(self, stop: threading.Event) -> None:
        self._thread = threading.Thread(target=self._run, args=(stop,), name="rackwise-probe",
                                        daemon=True)
        self._thread.start()

    def submit(self, job: PlanJob) -> None:
        self._jobs.put(job)

    def join(self, timeout: float) -> None:
        """After the stop event is set: until the probe in hand (if any) is done."""
        if self._thread is not None:
            self._thread.join(timeout)

    def running(self) -> bool:
        """Whether its thread still runs."""
        return self._thread is not None and self._thread.is_alive()

    def _run(self, stop: threading.Event) -> None:
        while not stop.is_set():
            try:
                job = self._jobs.get(timeout=0.5)
            except queue.Empty:
                continue
            try:
                self.results(Probed(job, self.probe(job)))
            except (AssignorError, RackwiseError, ValueError) as exc:
                log.warning("traffic probe failed", group=job.group_id, error=str(exc))
                self.results(Probed(job, None, str(exc)))
            except Exception as exc:  # noqa: BLE001 - a probe never ends probing
                log.exception("traffic probe failed", group=job.group_id)
                self.results(Probed(job, None, repr(exc)))

    def probe(self, job: PlanJob) -> TrafficFigures | None:
        """What re-planning ``job``'s group now would save (None: its traffic is unmeasured)."""
        assert job.previous is not None
        sample, view = self.traffic.enriched(self.watch.view(job.topics))
        current = cross_rack_bytes(view, job.previous)
        if current is None:
            return None
        if not worth_solving(current, self.settings.traffic, self.settings.cost.price()):
            return TrafficFigures(sample, current, None)
        candidate = compute_plan(job, view)
        return TrafficFigures(sample, current, cross_rack_bytes(view, candidate) or 0.0,
                              moved(job.previous, candidate))


class TrafficReplans:
    """The poll loop's side: which groups to probe, and which probes call for a re-plan."""

    def __init__(self, settings: AgentSettings, prober: TrafficProber,
                 count: Callable[[str], None] = lambda _outcome: None) -> None:
        self.settings, self.prober, self.count = settings, prober, count
        self.states: dict[str, ReplanState] = {}
        self._sample = self._probed_sample = 0
        self._probing: set[str] = set()
        self._results: dict[str, Probed] = {}

    def sampled(self, event: TrafficSampled) -> None:
        self._sample = max(self._sample, event.sample)

    def probed(self, event: Probed) -> None:
        self._probing.discard(event.job.group_id)
        self._results[event.job.group_id] = event

    @staticmethod
    def settled(group: GroupState, ready: frozenset[int], followups: Mapping[str, float]) -> bool:
        plan = group.last_plan
        return (group.partition in ready and plan is not None and not plan.withheld
                and group.group_id not in followups and not group.dirty
                and group.in_flight is None and group.kind == "consumer")

    def schedule(self, now: float, groups: Mapping[str, GroupState], ready: Iterable[int],
                 followups: Mapping[str, float]) -> list[tuple[str, dict[str, object]]]:
        """The groups to re-plan now with reason ``traffic-changed`` (and their detail), from
        the probe results that arrived; on a new sample, probes for the groups that qualify."""
        if not self.settings.traffic.replan or (
                not self._results and self._sample <= self._probed_sample):
            return []  # the loop calls this every poll: nothing new, nothing to do
        ready_set = frozenset(ready)
        due: list[tuple[str, dict[str, object]]] = []
        for gid in sorted(self._results):
            event = self._results.pop(gid)
            group = groups.get(gid)
            state = self.states.get(gid, ReplanState())
            previous = event.job.previous
            if (group is None or previous is None or group.last_plan is None
                    or group.last_plan.generation != previous.generation
                    or not self.settled(group, ready_set, followups)):
                self.count("stale")  # the group changed while it was probed
                continue
            if event.figures is None:
                self.count("failed" if event.error else "unmeasured")
                self.states[gid] = ReplanState(0, state.not_before, previous.generation)
                continue
            decision, self.states[gid] = decide(state, event.figures, self.settings.traffic,
                                                self.settings.cost.price(), now)
            self.count("replan" if decision.replan else
                       "material" if decision.material else "not-material")
            if decision.material:
                log.info("traffic re-plan" if decision.replan else "traffic re-plan pending",
                         group=gid, why=decision.why, sample=event.figures.sample,
                         cross_rack_bytes_per_s=round(event.figures.current, 1),
                         expected=event.figures.candidate)
            if decision.replan:
                due.append((gid, {"traffic": dict(decision.detail)}))
        if self._sample > self._probed_sample:
            self._probed_sample = self._sample
            for gid in [g for g in self.states if g not in groups]:
                del self.states[gid]
            self._probe(now, groups, ready_set, followups)
        return due

    def _probe(self, now: float, groups: Mapping[str, GroupState], ready: frozenset[int],
               followups: Mapping[str, float]) -> None:
        planner = self.settings.planner
        for gid in sorted(groups):
            group = groups[gid]
            if gid in self._probing or not self.settled(group, ready, followups):
                continue
            if not uses_weights(assignor_for(gid, group.kind, planner)):
                continue
            assert group.last_plan is not None
            state = self.states.get(gid)
            if state is None:  # first seen: as if just re-planned (this agent took it over)
                state = ReplanState(0, now + self.settings.traffic.replan_min_interval_s)
            if state.generation != group.last_plan.generation:  # a new plan: count afresh
                state = ReplanState(0, state.not_before, group.last_plan.generation)
            self.states[gid] = state
            if now < state.not_before:
                continue  # too soon after the last traffic re-plan: nothing to probe for
            topics = planned_topics(gid, group.kind, group.topics(), planner)
            self._probing.add(gid)
            self.prober.submit(job_for(group, planner, topics, (REASON,)))
