"""A KIP-924 task assignor's request as the seam's StreamsApp (docs/architecture.md § Kafka's seams).

The request (protocol.streams_request) carries what Kafka Streams' leader knows at the
rebalance: every task with its source and changelog partitions and their replica racks, every
process with its threads, rack, client tags, previous active and standby tasks and the lags
Kafka Streams computed, and the assignment configs. The agent plans it through
``assignor.api.plan`` like any other Streams group, with three differences from a group
planned from ``rackwise.subscriptions``:

* the topology is derived from the request's tasks (source and changelog topics per
  subtopology), not configured; a request whose tasks do not follow Kafka's partition
  grouping (one task per partition of the widest source topic) is refused;
* previous tasks and lags are the request's (``task_lags``, taken at Kafka's word), not the
  previous plan's nor the agent's own end offsets;
* replica racks are the request's (what the leader saw when it decided to rebalance, so a
  replica move that triggered the rebalance is planned with the new racks); a partition
  whose racks the request does not know falls back to the agent's own placement.

Pure: no IO. Example::

    service = StreamsServiceRequest("rid", decode_streams_request(raw))
    app = service.app("orders-app", service.view(placement), "high-availability")
"""

from __future__ import annotations

from dataclasses import dataclass

from assignor.api import StreamsApp, StreamsClient
from assignor.cluster import ClusterView, TopicPartition
from assignor.errors import AssignorError
from assignor.streams.model import AssignmentConfig, Subtopology, Topology, build_tasks
from protocol.streams import TaskId
from protocol.streams_request import StreamsRequest


@dataclass(frozen=True)
class StreamsServiceRequest:
    """One decoded Streams request and the id its answer must carry."""

    request_id: str
    request: StreamsRequest
    protocol: str = "streams"  # logged beside the consumer requests' hand-over protocol

    def placement_topics(self) -> tuple[str, ...]:
        """Topics with a partition whose racks the request does not know: the agent describes
        them (an empty tuple, the usual case, costs no metadata call)."""
        return tuple(sorted({
            p.topic for t in self.request.tasks for p in t.partitions if not p.racks
        }))

    def topology(self) -> Topology:
        """Source and changelog topics per subtopology, as Kafka's tasks name them."""
        subs: dict[int, tuple[set[str], set[str]]] = {}
        for task in self.request.tasks:
            sources, changelogs = subs.setdefault(task.id.subtopology, (set(), set()))
            sources.update(p.topic for p in task.source)
            changelogs.update(p.topic for p in task.changelog)
        out = []
        for sid in sorted(subs):
            sources, changelogs = subs[sid]
            if not sources:
                raise AssignorError(f"subtopology {sid}: the request names no source partition")
            out.append(Subtopology(sid, tuple(sorted(sources)), tuple(sorted(changelogs)),
                                   bool(changelogs)))
        return Topology(tuple(out))

    def view(self, placement: ClusterView) -> ClusterView:
        """Replica racks of every partition the request names, as a ClusterView.

        A view needs brokers; the request has racks, so each rack becomes one stand-in broker
        (ids 1.. in rack order) and a partition's replicas are the stand-ins of its racks. A
        partition the request has no racks for takes them from ``placement`` (unknown when a
        replica there has no rack: Kafka then turns rack awareness off, and so do we)."""
        racks: dict[TopicPartition, tuple[str, ...]] = {}
        counts: dict[str, int] = {}
        for task in self.request.tasks:
            for p in task.partitions:
                counts[p.topic] = max(counts.get(p.topic, 0), p.partition + 1)
                tp = TopicPartition(p.topic, p.partition)
                if p.racks:
                    racks[tp] = p.racks
                elif tp not in racks:
                    racks[tp] = _placement_racks(placement, tp)
        names = sorted({r for rs in racks.values() for r in rs})
        broker = {rack: i + 1 for i, rack in enumerate(names)}
        topics = {
            topic: tuple(
                tuple(broker[r] for r in racks.get(TopicPartition(topic, p), ()))
                for p in range(count)
            )
            for topic, count in sorted(counts.items())
        }
        return ClusterView({i: rack for rack, i in broker.items()}, topics)

    def app(self, group_id: str, view: ClusterView, assignor: str) -> StreamsApp:
        """The seam's input; raises AssignorError when the request cannot be planned."""
        req = self.request
        if not req.processes:
            raise AssignorError("the request lists no Kafka Streams process")
        topology = self.topology()
        self._check_grouping(topology, view)
        config = AssignmentConfig.from_dict(dict(req.config))
        clients = tuple(
            StreamsClient(
                process_id=p.process_id,
                rack=p.rack,
                threads=p.threads,
                client_tags=dict(p.client_tags),
                task_lags=p.task_lags(req),
                prev_active=frozenset(p.prev_active),
                prev_standby=frozenset(p.prev_standby),
            )
            for p in req.processes
        )
        return StreamsApp(group_id, clients, topology, view, config, {}, assignor)

    def _check_grouping(self, topology: Topology, view: ClusterView) -> None:
        """The plan names tasks by Kafka's grouping of partitions: it must give back exactly
        the request's tasks, each reading exactly the request's partitions."""
        derived = build_tasks(topology, view)
        asked = {t.id: t for t in self.request.tasks}
        if set(derived.all) != set(asked):
            extra = sorted(str(t) for t in set(derived.all) - set(asked))
            missing = sorted(str(t) for t in set(asked) - set(derived.all))
            raise AssignorError(
                "the request's tasks do not follow Kafka's partition grouping (one task per "
                f"partition of the widest source topic): not in the request {extra[:10]}, "
                f"not derivable {missing[:10]}"
            )
        for task_id in sorted(asked, key=TaskId.sort_key):
            task = asked[task_id]
            source = {TopicPartition(p.topic, p.partition) for p in task.source}
            changelog = {TopicPartition(p.topic, p.partition) for p in task.changelog}
            if source != set(derived.source[task_id]) or changelog != set(derived.changelog[task_id]):
                raise AssignorError(
                    f"task {task_id}: partitions {sorted(map(str, source | changelog))} differ "
                    "from its subtopology's topics at that partition"
                )


def _placement_racks(placement: ClusterView, tp: TopicPartition) -> tuple[str, ...]:
    if tp.partition >= placement.partition_count(tp.topic):
        return ()
    replicas = placement.replicas(tp.topic, tp.partition)
    racks = [placement.brokers.get(b) for b in replicas]
    if not replicas or any(r is None for r in racks):
        return ()
    return tuple(sorted({r for r in racks if r is not None}))
