"""The cooperative hand-over rule, once: a partition never goes to a new owner while another
member still owns it; it is withheld (owner, target) until that member has given it up.

The seam applies it to every plan on the ``cooperative`` protocol (assignor.api), and
rack-optimal to its own result when configured cooperative (assignor.optimal).

Example: c1 owns t-0 and the target gives t-0 to c2 ->
``withhold_owned({"c2": [t0]}, {"c1": [t0]}) == ({"c2": []}, [Withheld(t0, "c1", "c2")])``.
When several other members report it, the lowest member id is named as its owner.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from assignor.base import Withheld
from assignor.cluster import TopicPartition


def withhold_owned(
    target: Mapping[str, Iterable[TopicPartition]], owned: Mapping[str, Iterable[TopicPartition]]
) -> tuple[dict[str, list[TopicPartition]], list[Withheld]]:
    """(what each member may take now, in the target's order; what waits for its owner)."""
    owners: dict[TopicPartition, list[str]] = {}
    for member_id, parts in owned.items():
        for tp in parts:
            owners.setdefault(tp, []).append(member_id)
    now: dict[str, list[TopicPartition]] = {member: [] for member in target}
    withheld: list[Withheld] = []
    for member in sorted(target):
        keep = now[member]
        for tp in target[member]:
            others = sorted(o for o in owners.get(tp, ()) if o != member)
            if others:
                withheld.append(Withheld(partition=tp, owner=others[0], target=member))
            else:
                keep.append(tp)
    return now, withheld
