"""The compatibility matrix: which Kafka releases each cell runs, as data.

A cell is one kind of client on one broker release, each on a 3-rack testbed of that
release (agent/dev/testbed.py with ``kafka_version=``). Cells marked ``smoke`` also run in
``make test``: the oldest and the newest broker and the oldest Java client.
"""

from __future__ import annotations

from dataclasses import dataclass

# The newest patch of each supported release line on Maven Central (checked Nov 2026).
BROKERS = ("4.1.2", "4.2.2", "4.3.1", "4.4.0")
OLDEST_BROKER, NEWEST_BROKER = BROKERS[0], BROKERS[-1]
# Java classic clients: KIP-881 rack ids in the subscription from 3.5.
CLASSIC_CLIENTS = ("3.5.2", "3.9.1", "4.0.2", "4.4.0")
# Kafka Streams: the KIP-924 TaskAssignor from 3.8.
STREAMS = ("3.8.1", "3.9.1", "4.4.0")
# confluent-kafka for Python members: 2.12 is the oldest line with KIP-848 GA (its newest
# patch; it bundles librdkafka 2.12.1), 2.16.1 the project venv's (checked Nov 2026). Each
# runs in its own Python (clientvenv.py), the venv's own where it matches.
RDKAFKA_CLIENTS = ("2.12.2", "2.16.1")
OLDEST_RDKAFKA = RDKAFKA_CLIENTS[0]
# A broker the group assignor refuses (no replica racks reach assignors before 4.1).
REFUSED_BROKER = "4.0.2"


@dataclass(frozen=True)
class Cell:
    # "kip848-java" | "kip848-rdkafka" | "follower-rdkafka" | "classic-java" | "streams" |
    # "audit" | "agent" | "refused" | "uniform-drop-in" | "uniform-drop-in-beside-kafkas"
    kind: str
    broker: str          # the testbed's Kafka release
    client: str = ""     # the client's release ("" = none, or kip848-rdkafka in this process)
    smoke: bool = False

    @property
    def id(self) -> str:
        client = f"-client{self.client}" if self.client else ""
        return f"{self.kind}-broker{self.broker}{client}"


def cells() -> list[Cell]:
    """Every cell, grouped by broker release so each testbed starts once."""
    out: list[Cell] = []
    for broker in BROKERS:
        edge = broker in (OLDEST_BROKER, NEWEST_BROKER)
        out.append(Cell("kip848-java", broker, broker, smoke=broker == NEWEST_BROKER))
        out.append(Cell("kip848-rdkafka", broker))
        if edge:
            out.append(Cell("kip848-rdkafka", broker, OLDEST_RDKAFKA))
            out += [Cell("follower-rdkafka", broker, client) for client in RDKAFKA_CLIENTS]
            for client in CLASSIC_CLIENTS:
                out.append(Cell("classic-java", broker, client,
                                smoke=client == CLASSIC_CLIENTS[0] and broker == NEWEST_BROKER))
        out.append(Cell("audit", broker))
        out.append(Cell("agent", broker))
        if broker == NEWEST_BROKER:
            out += [Cell("streams", broker, streams) for streams in STREAMS]
        # last of its release: its brokers list the drop-in for uniform, a testbed of its own
        out.append(Cell("uniform-drop-in", broker))
    # 4.4 refuses two assignors named uniform itself; the oldest only by the drop-in's check
    out.append(Cell("uniform-drop-in-beside-kafkas", OLDEST_BROKER))
    out.append(Cell("refused", REFUSED_BROKER))
    return out
