"""Re-planning when traffic moves: is a group's plan stale because its bytes moved?

A plan made when every partition carried the same bytes keeps reading a partition that later
turns hot from another rack. After each traffic sample the prober (agent.daemon.trafficprobe)
works out, for a settled group whose assignor uses weights, what its current plan reads
across racks at the sample's rates and what the plan the same assignor would make now for
the same members would read (:func:`figures`). The scheduler (agent.daemon.loop
``_schedule``) folds each result into the group's :class:`ReplanState` with :func:`decide`:
a ``traffic-changed`` re-plan when the saving is material (both thresholds, docs/traffic.md)
in ``replan_hold_samples`` consecutive samples and ``replan_min_interval_s`` has passed
since the group's last traffic re-plan (or since this agent started watching it).

Pure: no IO and no clock (``now`` is passed in), so the same samples give the same decision.

Example (defaults: 20 %, $5/month, 2 samples, 900 s)::

    f = TrafficFigures(sample=7, current=400_000.0, candidate=10_000.0, moved=2)
    material(f, TrafficSettings(), Price())          # (True, "saves 97.5 % ($19.09/month)")
    decide(ReplanState(streak=1, not_before=0.0), f, TrafficSettings(), Price(), now=1000.0)
    # (Decision(replan=True, ...), ReplanState(streak=0, not_before=1900.0, ...))
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from agent.brokers.traffic import TrafficSettings
from assignor.api import read_cost
from assignor.inputs import ClusterView, TopicPartition
from protocol.plan import AssignmentPlan
from protocol.pricing import Price


@dataclass(frozen=True)
class TrafficFigures:
    """One probe: cross-rack bytes/s of the group's current plan and of the plan its assignor
    would make now, both at the rates of traffic sample ``sample``.

    ``candidate`` None: not computed, because even a plan reading nothing across racks would
    not save enough (the saving can never exceed ``current``)."""

    sample: int
    current: float
    candidate: float | None
    moved: int = 0  # partitions whose owner the candidate changes

    @property
    def saving(self) -> float:
        return 0.0 if self.candidate is None else max(0.0, self.current - self.candidate)

    @property
    def saving_pct(self) -> float:
        return 0.0 if self.current <= 0 else 100.0 * self.saving / self.current


@dataclass(frozen=True)
class ReplanState:
    """Per group: material samples in a row for the plan of ``generation``, and the time
    (monotonic seconds) before which no traffic re-plan is made."""

    streak: int = 0
    not_before: float = 0.0
    generation: int | None = None


@dataclass(frozen=True)
class Decision:
    replan: bool
    material: bool
    why: str
    detail: Mapping[str, object] = field(default_factory=dict)


def target_assignment(plan: AssignmentPlan) -> dict[str, list[TopicPartition]]:
    """Where ``plan`` converges: each member's partitions plus those withheld for it."""
    out = {m.member_id: [TopicPartition(p.topic, p.partition) for p in m.partitions]
           for m in plan.members}
    for w in plan.withheld:
        out.setdefault(w.target, []).append(TopicPartition(w.topic, w.partition))
    return out


def cross_rack_bytes(view: ClusterView, plan: AssignmentPlan) -> float | None:
    """Cross-rack bytes/s of ``plan``'s target assignment at ``view``'s measured rates (the
    cost model of assignor.api.read_cost); None when none of its partitions is measured."""
    racks = {m.member_id: m.rack for m in plan.members}
    locations = {m.member_id: m.location for m in plan.members if m.rack_source == "host-map"}
    return read_cost(view, target_assignment(plan), racks, locations).cross_rack_bytes_per_s


def moved(before: AssignmentPlan, after: AssignmentPlan) -> int:
    owner = {tp: m for m, tps in target_assignment(before).items() for tp in tps}
    return sum(1 for m, tps in target_assignment(after).items() for tp in tps
               if owner.get(tp, m) != m)


def worth_solving(current: float, settings: TrafficSettings, price: Price) -> bool:
    """Whether any plan could save enough: the saving is at most everything read across
    racks now, so below the absolute threshold the assignor need not run."""
    return current > 0 and (price.per_month(current) or 0.0) >= settings.replan_min_saving_usd_month


def material(figures: TrafficFigures, settings: TrafficSettings, price: Price) -> tuple[bool, str]:
    """Both thresholds: the saving in % of the group's cross-rack bytes and in $/month."""
    saving, pct = figures.saving, figures.saving_pct
    usd = price.per_month(saving) or 0.0
    text = f"saves {pct:.1f} % (${usd:,.2f}/month)"
    if saving <= 0:
        return False, "saves nothing"
    if pct < settings.replan_min_saving_pct:
        return False, f"{text}: below {settings.replan_min_saving_pct:g} %"
    if usd < settings.replan_min_saving_usd_month:
        return False, f"{text}: below ${settings.replan_min_saving_usd_month:,.2f}/month"
    return True, text


def decide(state: ReplanState, figures: TrafficFigures, settings: TrafficSettings, price: Price,
           now: float) -> tuple[Decision, ReplanState]:
    """Fold one probe of the group's current plan into its state: re-plan or not, and why."""
    ok, why = material(figures, settings, price)
    if not ok:
        return Decision(False, False, why), replace(state, streak=0)
    streak = state.streak + 1
    if streak < settings.replan_hold_samples:
        return (Decision(False, True, f"{why}; sample {streak} of {settings.replan_hold_samples}"),
                replace(state, streak=streak))
    if now < state.not_before:
        return (Decision(False, True, f"{why}; next traffic re-plan in "
                                      f"{state.not_before - now:.0f} s"),
                replace(state, streak=streak))
    detail = {
        "sample": figures.sample,
        "cross_rack_bytes_per_s": round(figures.current, 3),
        "expected_cross_rack_bytes_per_s": round(figures.candidate or 0.0, 3),
        "saving_pct": round(figures.saving_pct, 1),
        "saving_usd_per_month": price.per_month(figures.saving),
        "moved_partitions": figures.moved,
        "samples_held": streak,
    }
    return (Decision(True, True, why, detail),
            ReplanState(0, now + settings.replan_min_interval_s, state.generation))


__all__ = [
    "Decision",
    "ReplanState",
    "TrafficFigures",
    "cross_rack_bytes",
    "decide",
    "material",
    "moved",
    "target_assignment",
    "worth_solving",
]
