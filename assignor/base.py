"""What every consumer assignor returns, and the registry of assignors by name."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from assignor.cluster import TopicPartition
from assignor.model import Group


@dataclass(frozen=True)
class Withheld:
    """A partition whose new owner must wait until ``owner`` has revoked it (cooperative)."""

    partition: TopicPartition
    owner: str
    target: str


@dataclass
class Result:
    """member -> partitions handed out now; ``withheld`` are handed out in the next round."""

    assignment: dict[str, list[TopicPartition]]
    withheld: list[Withheld] = field(default_factory=list)
    config: dict[str, Any] = field(default_factory=dict)

    def target(self) -> dict[str, list[TopicPartition]]:
        """The assignment once every withheld partition has reached its target."""
        out = {m: list(tps) for m, tps in self.assignment.items()}
        for w in self.withheld:
            out.setdefault(w.target, []).append(w.partition)
        return {m: sorted(tps) for m, tps in out.items()}


Assignor = Callable[[Group], Result]
