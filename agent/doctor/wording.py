"""How the doctor words a finding: broker lists, verbs agreeing with them, and how a broker
setting takes effect. Shared by the checks' modules.

Example: ``brokers_text([3, 1])`` is ``"brokers 1, 3"``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from agent.doctor.model import BrokerState, Snapshot


def brokers_text(ids: Iterable[int]) -> str:
    ids = sorted(ids)
    return ("broker " if len(ids) == 1 else "brokers ") + ", ".join(map(str, ids))


def verb(items: Sequence[object], one: str, many: str) -> str:
    return one if len(items) == 1 else many


def apply_hint(setting: str, brokers: Sequence[BrokerState]) -> str:
    """How a broker setting takes effect: a (rolling) restart for read-only ones."""
    if all(setting in b.read_only for b in brokers):
        return ("in server.properties and restart " + ("it" if len(brokers) == 1 else
                "them one at a time") + f" ({setting} is read-only: Kafka cannot change it "
                "at run time)")
    return (f"with kafka-configs --alter --entity-type brokers --entity-name <id> "
            f"--add-config {setting}=<value> (dynamic), and in server.properties")


def readable(snap: Snapshot) -> list[BrokerState]:
    return [b for b in snap.brokers if b.config_error is None]
