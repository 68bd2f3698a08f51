"""Follow rackwise plans from an existing confluent-kafka poll loop.

:class:`PlanFollower` publishes the member's ``ConsumerProtocolSubscription`` v3 (topics,
rack, owned partitions, generation) to ``rackwise.subscriptions`` and re-publishes it as a
heartbeat; it reads its group's plans (read_committed, one partition of ``rackwise.plans``)
and applies the newest with ``incremental_unassign`` / ``incremental_assign``. Before it
gives a partition up it commits the consumer's position for it, then re-publishes without
it, which is what lets the agent hand it to the next owner (docs/architecture.md § Agent behaviour): no
record is read by
two members at once. The consumer must have a ``group.id`` (for offsets) and must *not*
``subscribe()``: the plan is the assignment.

What a plan calls local must be local on the wire: a consumer without ``client.rack``
fetches from each partition's leader, wherever the plan put it. So the data consumer's
config must set ``client.rack`` to the member's rack, and the follower refuses a config that
does not (:meth:`PlanFollower.consumer_config` builds one, :meth:`PlanFollower.create` the
consumer and its follower together; ``create(rack="auto")`` detects the zone, agent.member.zone).

Usage (see docs/member.md)::

    follower = PlanFollower.create({"bootstrap.servers": B}, group_id="orders-app",
                                   topics=["orders"], rack="az1")
    consumer = follower.consumer
    follower.start()
    while running:
        msg = consumer.poll(0.5)
        if msg is not None and not msg.error():
            handle(msg)
        follower.poll()          # heartbeat, follow plans, commit before giving partitions up
    follower.close()
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import structlog
from confluent_kafka import Consumer, KafkaError, KafkaException, Producer
from confluent_kafka import TopicPartition as KTopicPartition

from agent.member.zone import AUTO, ZoneConfig, detect_zone
from protocol.consumer import encode_subscription, java_subscription
from protocol.errors import RackwiseError
from protocol.plan import OBSERVE_REASONS, AssignmentPlan
from protocol.routing import KIND_HEADER, group_partition, member_key

log = structlog.get_logger("rackwise.member")

Partition = tuple[str, int]
Callback = Callable[[list[Partition]], None]


class PlanFollower:
    """One member of a rackwise-planned group, wrapped around the user's Consumer."""

    kind = "consumer"  # the rackwise-kind header; a Streams-style subclass says "streams"

    def __init__(
        self,
        consumer: Consumer,
        client_config: Mapping[str, Any],
        *,
        group_id: str,
        topics: Iterable[str],
        rack: str | None = None,
        member_id: str | None = None,
        subscriptions_topic: str = "rackwise.subscriptions",
        plans_topic: str = "rackwise.plans",
        heartbeat_s: float = 3.0,
        plan_lookback: int = 5000,
        on_assign: Callback | None = None,
        on_revoke: Callback | None = None,
    ) -> None:
        if "/" in group_id:
            raise RackwiseError("a rackwise group id may not contain '/'")
        declared = client_config.get("client.rack") or None
        if declared != (rack or None):
            raise RackwiseError(
                f"member rack {rack!r} but client.rack={declared!r} in the consumer's config: a "
                "consumer fetches from its own rack only when client.rack names it, otherwise "
                "from the leader whatever the plan says. Build the consumer from "
                "PlanFollower.consumer_config(conf, group_id, rack) and pass that config here"
            )
        self.consumer = consumer
        self.group_id = group_id
        self.member_id = member_id or uuid.uuid4().hex[:12]
        self.topics = sorted(set(topics))
        self.rack = rack or None
        self.subscriptions_topic = subscriptions_topic
        self.plans_topic = plans_topic
        self.heartbeat_s = heartbeat_s
        self.plan_lookback = plan_lookback
        self.on_assign = on_assign
        self.on_revoke = on_revoke
        self.owned: set[Partition] = set()
        self.generation = -1
        self.plan: AssignmentPlan | None = None
        self._conf = dict(client_config)
        self._producer = Producer({**self._conf, "enable.idempotence": True, "linger.ms": 0})
        self._plans = Consumer(
            {
                **self._conf,
                "group.id": f"rackwise-member-{group_id}",
                "enable.auto.commit": False,
                "isolation.level": "read_committed",
                "auto.offset.reset": "latest",
                "enable.partition.eof": False,
            }
        )
        self._last_publish = 0.0
        self._key = member_key(group_id, self.member_id)
        self._subs_partition = 0
        self._started = False
        self.reconcile_s = 5.0
        self._last_reconcile = time.monotonic()
        self.reconciled = 0  # times the consumer's assignment had drifted from the plan

    @staticmethod
    def consumer_config(
        client_config: Mapping[str, Any], group_id: str, rack: str | None
    ) -> dict[str, Any]:
        """The data consumer's config: offsets in ``group_id``, no auto-commit (the follower
        commits before each hand-over) and ``client.rack`` = the member's rack, so partitions
        the plan calls local are fetched from a replica in that rack (KIP-392)."""
        declared = client_config.get("client.rack") or None
        if declared is not None and declared != rack:
            raise RackwiseError(f"client.rack={declared!r} in the config but the member's rack is {rack!r}")
        conf = {**client_config, "group.id": group_id, "enable.auto.commit": False}
        conf.pop("client.rack", None)
        if rack:
            conf["client.rack"] = rack
        return conf

    @classmethod
    def create(
        cls,
        client_config: Mapping[str, Any],
        *,
        group_id: str,
        topics: Iterable[str],
        rack: str | None = None,
        consumer_config: Mapping[str, Any] | None = None,
        zone_config: ZoneConfig | None = None,
        **kwargs: Any,
    ) -> PlanFollower:
        """A data consumer built from :meth:`consumer_config` and its follower.

        ``rack="auto"`` uses the zone this process runs in (:func:`agent.member.zone.detect_zone`,
        settings from ``zone_config`` or the ``RACKWISE_ZONE*`` variables); when no source
        answers it raises :class:`agent.member.zone.ZoneDetectionError` before any client is built.
        """
        if rack is not None and rack.strip().lower() == AUTO:
            found = detect_zone(zone_config)
            log.info("member rack detected", rack=found.zone, source=found.source, detail=found.detail)
            rack = found.zone
        conf = cls.consumer_config(
            {"auto.offset.reset": "earliest", **client_config, **(consumer_config or {})},
            group_id,
            rack,
        )
        own = {**client_config, **({"client.rack": rack} if rack else {})}
        return cls(Consumer(conf), own, group_id=group_id, topics=topics, rack=rack, **kwargs)

    # ---- lifecycle ---------------------------------------------------------------------------
    def start(self, timeout: float = 30.0) -> None:
        """Catch up on the group's latest plan, apply it, then publish the subscription."""
        md = self._producer.list_topics(timeout=timeout)
        for name in (self.subscriptions_topic, self.plans_topic):
            if name not in md.topics or md.topics[name].error is not None:
                raise RackwiseError(f"topic {name} does not exist: start the rackwise agent first")
        self._subs_partition = group_partition(
            self.group_id, len(md.topics[self.subscriptions_topic].partitions)
        )
        tp = KTopicPartition(
            self.plans_topic,
            group_partition(self.group_id, len(md.topics[self.plans_topic].partitions)),
        )
        low, high = self._plans.get_watermark_offsets(tp, timeout=timeout, cached=False)
        tp.offset = max(low, high - self.plan_lookback)
        self._plans.assign([tp])
        latest = None
        deadline = time.monotonic() + timeout
        while high > low and time.monotonic() < deadline:
            batch = self._plans.consume(500, 0.5)
            latest = self._newest(batch, latest)
            pos = self._plans.position([KTopicPartition(tp.topic, tp.partition)])[0].offset
            if pos >= high:
                break
        if latest is not None:
            self._apply(latest)
        self._started = True
        self.publish()

    def close(self, leave: bool = True) -> None:
        """Commit, give every partition up and (``leave``) tell the agent this member is gone."""
        if self.owned:
            self._revoke(sorted(self.owned))
            self.owned.clear()
        if leave and self._started:
            self._producer.produce(
                self.subscriptions_topic, key=self._key, value=None, partition=self._subs_partition
            )
        self._producer.flush(10)
        self._plans.close()

    # ---- the per-iteration call -------------------------------------------------------------
    def poll(self) -> bool:
        """Heartbeat if due and apply a newer plan if one arrived; True if the assignment changed."""
        changed = False
        latest = self._newest(self._plans.consume(100, 0), None)
        if latest is not None:
            changed = self._apply(latest)
        if time.monotonic() - self._last_publish >= self.heartbeat_s:
            self.publish()
        if time.monotonic() - self._last_reconcile >= self.reconcile_s:
            self._reconcile()
        self._producer.poll(0)
        return changed

    def _reconcile(self) -> None:
        """The consumer's own assignment must be the plan's: a partition it still holds after
        the plan took it away is read twice, by this member and by its new owner. Checked
        every ``reconcile_s`` (a local call, no network) and put right with a warning."""
        self._last_reconcile = time.monotonic()
        try:
            held = {(tp.topic, tp.partition) for tp in self.consumer.assignment()
                    if tp.topic in self.topics}  # other topics are the user's own business
        except KafkaException as exc:
            log.warning("cannot read the consumer's assignment", error=str(exc))
            return
        extra, missing = sorted(held - self.owned), sorted(self.owned - held)
        if not extra and not missing:
            return
        self.reconciled += 1
        log.warning("the consumer's assignment drifted from the plan; putting it right",
                    group=self.group_id, member=self.member_id, generation=self.generation,
                    held_not_planned=extra, planned_not_held=missing)
        if extra:  # no commit: those partitions' offsets are their new owners' to commit
            self.consumer.incremental_unassign([KTopicPartition(t, p) for t, p in extra])
        if missing:
            self.consumer.incremental_assign([KTopicPartition(t, p) for t, p in missing])

    def subscription_bytes(self) -> bytes:
        sub = java_subscription(
            self.topics, self.owned, generation_id=self.generation, rack_id=self.rack
        )
        return encode_subscription(sub, 3)

    def publish(self) -> None:
        self._producer.produce(
            self.subscriptions_topic,
            key=self._key,
            value=self.subscription_bytes(),
            partition=self._subs_partition,
            headers=[(KIND_HEADER, self.kind.encode())],
        )
        self._producer.poll(0)
        self._last_publish = time.monotonic()

    # ---- plans --------------------------------------------------------------------------------
    def _newest(self, messages: list[Any], best: AssignmentPlan | None) -> AssignmentPlan | None:
        return newest_plan(messages, self.group_id, self.generation, best)

    def _apply(self, plan: AssignmentPlan) -> bool:
        if plan.generation <= self.generation:
            return False
        mine: set[Partition] = set()
        for m in plan.members:
            if m.member_id == self.member_id:
                mine = {(p.topic, p.partition) for p in m.partitions}
        revoke = sorted(self.owned - mine)
        add = sorted(mine - self.owned)
        if revoke:
            self._revoke(revoke)
        if add:
            tps = [KTopicPartition(t, p) for t, p in add]
            self.consumer.incremental_assign(tps)
            self._resume(tps)  # a partition this member paused when it last gave it up
            if self.on_assign:
                self.on_assign(add)
        self.owned = mine
        self.generation = plan.generation
        self.plan = plan
        log.info(
            "plan applied",
            group=self.group_id,
            member=self.member_id,
            generation=plan.generation,
            assigned=len(add),
            revoked=len(revoke),
        )
        if self._started:
            self.publish()  # tell the agent at once: it may be waiting to hand these over
        return bool(revoke or add)

    def _revoke(self, partitions: list[Partition]) -> None:
        tps = [KTopicPartition(t, p) for t, p in partitions]
        if self.on_revoke:
            self.on_revoke(partitions)
        positions = [tp for tp in self.consumer.position(tps) if tp.offset >= 0]
        for attempt in range(5):
            try:
                if positions:
                    self.consumer.commit(offsets=positions, asynchronous=False)
                break
            except KafkaException as exc:
                err = exc.args[0] if exc.args else None
                if err is not None and err.code() == KafkaError._NO_OFFSET:
                    break
                log.warning("commit before revoke failed", error=str(exc), attempt=attempt)
                time.sleep(0.2 * (attempt + 1))
        # Paused first: a partition given up moments after it was assigned (a first member
        # holds everything until the others join) could go on being fetched by librdkafka
        # 2.16 after incremental_unassign, its records then read twice (the demo's wire check
        # caught it); a paused partition is never fetched.
        self._pause(tps)
        self.consumer.incremental_unassign(tps)

    def _pause(self, tps: list[KTopicPartition]) -> None:
        try:
            self.consumer.pause(tps)
        except KafkaException as exc:
            log.warning("cannot pause partitions being given up", error=str(exc))

    def _resume(self, tps: list[KTopicPartition]) -> None:
        try:
            self.consumer.resume(tps)
        except KafkaException as exc:
            log.warning("cannot resume partitions being taken", error=str(exc))


def newest_plan(
    messages: list[Any], group_id: str, generation: int, best: AssignmentPlan | None = None
) -> AssignmentPlan | None:
    """The newest plan for ``group_id`` among ``messages`` above ``generation`` (and ``best``).

    A plan whose reason this version does not know (a newer agent's, or a plug-in's) is
    followed like any other: only observe mode's reasons are skipped.
    """
    key = group_id.encode()
    for msg in messages:
        if msg.error() or msg.key() != key:
            continue
        try:
            plan = AssignmentPlan.from_json(msg.value() or b"")
        except RackwiseError:
            continue
        if plan.reason in OBSERVE_REASONS:
            continue  # observe mode measures a group; it never assigns
        floor = best.generation if best is not None else generation
        if plan.generation > floor:
            best = plan
    return best
