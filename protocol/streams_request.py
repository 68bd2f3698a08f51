"""RackwiseStreamsRequest: what the KIP-924 task assignor (plugins/) asks the agent to plan.

The request travels on ``rackwise.requests`` (key = the application id, headers
``rackwise-request-id`` and ``rackwise-kind: streams``); the answer is the plan on
``rackwise.plans`` with that id, or a dead letter with the id, ``rackwise-error`` and
``rackwise-error-detail``. Consumer groups send no requests: their plug-ins decide in-process.
Its value is UTF-8 JSON, or the same JSON gzip-compressed (RFC 1952: the value starts with
the bytes ``1f 8b``, which JSON never does; the plug-in compresses above 256 KiB so a large
application stays under the producer's 1 MiB record limit). plugins/README.md is the contract.

Version 1 (keys in this order; absent optional keys take the defaults shown)::

    {"version": 1,
     "application_id": "orders-app",
     "config": {"num_standby_replicas": 1, "acceptable_recovery_lag": 10000,
                "max_warmup_replicas": 2, "probing_rebalance_interval_ms": 600000,
                "rack_aware_assignment_strategy": "min_traffic",
                "rack_aware_assignment_traffic_cost": null,          # null: not configured
                "rack_aware_assignment_non_overlap_cost": null,
                "rack_aware_assignment_tags": []},
     "tasks": [{"id": "0_1", "stateful": true, "default_lag": 1200,
                "partitions": [{"topic": "orders", "partition": 1, "source": true,
                                "changelog": false, "racks": ["az1", "az2"]}]}],
     "processes": [{"process_id": "3f0c...-uuid", "threads": 2, "rack": "az1",
                    "client_tags": {"zone": "a"}, "prev_active": ["0_1"],
                    "prev_standby": [], "lags": {"0_1": -2}}]}

* ``tasks``: every task of ``ApplicationState.allTasks()``. ``stateful`` is
  ``TaskInfo.isStateful()`` (has state stores); Kafka's HA assignor treats a task as stateful
  when it has changelog partitions, and so does the agent. ``racks`` is
  ``TaskTopicPartition.rackIds()``: null when Kafka Streams does not know them.
* Lags: the lag of process P for task T is ``P.lags[T]`` if present, else
  ``T.default_lag`` (the value most processes have, so a process lists only where it
  differs: without this a 1,000-task x 100-process request would carry 100,000 lags). A task
  has a ``default_lag`` exactly when Kafka computed lags for it (``statefulTasksToLagSums``);
  -2 means a running active, -3 unknown.
* ``prev_active`` / ``prev_standby``: ``KafkaStreamsState.previousActiveTasks()`` /
  ``previousStandbyTasks()``.

Example::

    req = decode_streams_request(raw)
    req.processes[0].task_lags(req)     # {TaskId(0, 1): -2, TaskId(0, 2): 1200, ...}
"""

from __future__ import annotations

import gzip
import json
import zlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from protocol.errors import ProtocolError
from protocol.streams import TaskId

# Headers of a request and of its dead-letter answer (agent.routing.KIND_HEADER beside them).
REQUEST_ID_HEADER = "rackwise-request-id"
ERROR_HEADER = "rackwise-error"
ERROR_DETAIL_HEADER = "rackwise-error-detail"

STREAMS_REQUEST_VERSION = 1
GZIP_MAGIC = b"\x1f\x8b"
MAX_INFLATED = 64 * 1024 * 1024  # a request never needs more; a gzip bomb stops here
COMPRESS_ABOVE = 256 * 1024  # what the Java plug-in does (StreamsRequestWriter)

CONFIG_KEYS: tuple[str, ...] = (
    "num_standby_replicas",
    "acceptable_recovery_lag",
    "max_warmup_replicas",
    "probing_rebalance_interval_ms",
    "rack_aware_assignment_strategy",
    "rack_aware_assignment_traffic_cost",
    "rack_aware_assignment_non_overlap_cost",
    "rack_aware_assignment_tags",
)


@dataclass(frozen=True, slots=True)
class TaskPartition:
    """One partition a task reads (source) and/or logs to (changelog), with its replica racks."""

    topic: str
    partition: int
    source: bool
    changelog: bool
    racks: tuple[str, ...] | None  # None: unknown to Kafka Streams


@dataclass(frozen=True, slots=True)
class RequestTask:
    id: TaskId
    stateful: bool
    partitions: tuple[TaskPartition, ...]
    default_lag: int | None = None

    @property
    def source(self) -> tuple[TaskPartition, ...]:
        return tuple(p for p in self.partitions if p.source)

    @property
    def changelog(self) -> tuple[TaskPartition, ...]:
        return tuple(p for p in self.partitions if p.changelog)


@dataclass(frozen=True, slots=True)
class RequestProcess:
    process_id: str
    threads: int
    rack: str | None
    client_tags: Mapping[str, str]
    prev_active: tuple[TaskId, ...]
    prev_standby: tuple[TaskId, ...]
    lags: Mapping[TaskId, int]  # only where they differ from the task's default_lag

    def task_lags(self, request: StreamsRequest) -> dict[TaskId, int]:
        """Every lag Kafka Streams computed for this process (defaults filled in)."""
        out = {t.id: t.default_lag for t in request.tasks if t.default_lag is not None}
        out.update(self.lags)
        return out


@dataclass(frozen=True, slots=True)
class StreamsRequest:
    version: int
    application_id: str
    config: Mapping[str, Any]
    tasks: tuple[RequestTask, ...]
    processes: tuple[RequestProcess, ...]


# ---- decoding ---------------------------------------------------------------------------------

def _obj(v: Any, where: str) -> dict[str, Any]:
    if not isinstance(v, dict):
        raise ProtocolError(f"{where}: expected an object, got {type(v).__name__}")
    return v


def _list(v: Any, where: str) -> list[Any]:
    if not isinstance(v, list):
        raise ProtocolError(f"{where}: expected an array, got {type(v).__name__}")
    return v


def _str(v: Any, where: str) -> str:
    if not isinstance(v, str):
        raise ProtocolError(f"{where}: expected a string, got {type(v).__name__}")
    return v


def _opt_str(v: Any, where: str) -> str | None:
    return None if v is None else _str(v, where)


def _int(v: Any, where: str, minimum: int | None = None) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise ProtocolError(f"{where}: expected an integer, got {type(v).__name__}")
    if minimum is not None and v < minimum:
        raise ProtocolError(f"{where}: {v} is below {minimum}")
    return v


def _bool(v: Any, where: str) -> bool:
    if not isinstance(v, bool):
        raise ProtocolError(f"{where}: expected true or false, got {type(v).__name__}")
    return v


def _task_id(v: Any, where: str) -> TaskId:
    task = TaskId.parse(_str(v, where))
    if task.topology is not None:
        raise ProtocolError(f"{where}: named topologies are not supported ({v!r})")
    if task.subtopology < 0 or task.partition < 0:
        raise ProtocolError(f"{where}: task id {v!r} is negative")
    return task


def _lag(v: Any, where: str) -> int:
    value = _int(v, where)
    if value < 0 and value not in (-2, -3):
        raise ProtocolError(f"{where}: lag {value}: only -2 (running) and -3 (unknown) are sentinels")
    return value


def inflate(raw: bytes) -> bytes:
    """The JSON bytes of a request value (gunzipped when it is gzip), bounded."""
    if not raw.startswith(GZIP_MAGIC):
        return raw
    try:
        d = zlib.decompressobj(wbits=31)
        out = d.decompress(raw, MAX_INFLATED)
        if d.unconsumed_tail:
            raise ProtocolError(f"gzip request inflates beyond {MAX_INFLATED} bytes")
        if not d.eof:
            raise ProtocolError("gzip request is truncated")
    except zlib.error as exc:
        raise ProtocolError(f"gzip request is corrupt: {exc}") from None
    return out


def decode_streams_request(raw: bytes) -> StreamsRequest:
    """Decode (and validate) one request value; every malformed input raises ProtocolError."""
    try:
        doc = json.loads(inflate(raw).decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ProtocolError(f"streams request is not UTF-8 JSON: {exc}") from None
    except RecursionError:
        raise ProtocolError("streams request is nested too deeply") from None
    root = _obj(doc, "request")
    version = _int(root.get("version"), "version")
    if version != STREAMS_REQUEST_VERSION:
        raise ProtocolError(
            f"streams request version {version} is not supported (this agent reads "
            f"{STREAMS_REQUEST_VERSION})"
        )
    app_id = _str(root.get("application_id"), "application_id")
    config = _config(_obj(root.get("config", {}), "config"))

    tasks: list[RequestTask] = []
    seen: set[TaskId] = set()
    for i, raw_task in enumerate(_list(root.get("tasks"), "tasks")):
        where = f"tasks[{i}]"
        t = _obj(raw_task, where)
        task_id = _task_id(t.get("id"), f"{where}.id")
        if task_id in seen:
            raise ProtocolError(f"{where}: task {task_id} appears twice")
        seen.add(task_id)
        parts = []
        for j, raw_part in enumerate(_list(t.get("partitions", []), f"{where}.partitions")):
            pw = f"{where}.partitions[{j}]"
            p = _obj(raw_part, pw)
            racks_raw = p.get("racks")
            racks = (
                None if racks_raw is None
                else tuple(sorted({_str(r, f"{pw}.racks") for r in _list(racks_raw, f"{pw}.racks")}))
            )
            part = TaskPartition(
                _str(p.get("topic"), f"{pw}.topic"),
                _int(p.get("partition"), f"{pw}.partition", 0),
                _bool(p.get("source", False), f"{pw}.source"),
                _bool(p.get("changelog", False), f"{pw}.changelog"),
                racks,
            )
            if not (part.source or part.changelog):
                raise ProtocolError(f"{pw}: neither source nor changelog")
            parts.append(part)
        default = t.get("default_lag")
        tasks.append(
            RequestTask(
                task_id,
                _bool(t.get("stateful", False), f"{where}.stateful"),
                tuple(sorted(parts, key=lambda p: (p.topic, p.partition))),
                None if default is None else _lag(default, f"{where}.default_lag"),
            )
        )
    with_lags = {t.id for t in tasks if t.default_lag is not None}

    processes: list[RequestProcess] = []
    pids: set[str] = set()
    for i, raw_proc in enumerate(_list(root.get("processes"), "processes")):
        where = f"processes[{i}]"
        p = _obj(raw_proc, where)
        pid = _str(p.get("process_id"), f"{where}.process_id")
        if pid in pids:
            raise ProtocolError(f"{where}: process {pid} appears twice")
        pids.add(pid)
        tags = {
            _str(k, f"{where}.client_tags"): _str(v, f"{where}.client_tags.{k}")
            for k, v in _obj(p.get("client_tags", {}), f"{where}.client_tags").items()
        }
        prev = {}
        for key in ("prev_active", "prev_standby"):
            ids = [_task_id(x, f"{where}.{key}") for x in _list(p.get(key, []), f"{where}.{key}")]
            unknown = sorted(str(x) for x in ids if x not in seen)
            if unknown:
                raise ProtocolError(f"{where}.{key}: unknown tasks {unknown}")
            prev[key] = tuple(sorted(set(ids)))
        lags: dict[TaskId, int] = {}
        for key, value in _obj(p.get("lags", {}), f"{where}.lags").items():
            task = _task_id(key, f"{where}.lags")
            if task not in with_lags:
                raise ProtocolError(f"{where}.lags: task {task} has no default_lag in tasks[]")
            lags[task] = _lag(value, f"{where}.lags.{key}")
        processes.append(
            RequestProcess(
                pid,
                _int(p.get("threads"), f"{where}.threads", 1),
                _opt_str(p.get("rack"), f"{where}.rack"),
                tags,
                prev["prev_active"],
                prev["prev_standby"],
                lags,
            )
        )
    return StreamsRequest(version, app_id, config, tuple(tasks), tuple(processes))


def _config(doc: dict[str, Any]) -> dict[str, Any]:
    unknown = sorted(set(doc) - set(CONFIG_KEYS))
    if unknown:
        raise ProtocolError(f"config: unknown keys {unknown}")
    out: dict[str, Any] = {}
    for key in CONFIG_KEYS:
        if key not in doc:
            continue
        value = doc[key]
        if key == "rack_aware_assignment_strategy":
            out[key] = _str(value, f"config.{key}")
        elif key == "rack_aware_assignment_tags":
            out[key] = [_str(x, f"config.{key}") for x in _list(value, f"config.{key}")]
        elif key.endswith("_cost"):
            out[key] = None if value is None else _int(value, f"config.{key}")
        else:
            out[key] = _int(value, f"config.{key}")
    return out


# ---- encoding (tests, benchmarks, the Java peer's golden file) -------------------------------

def streams_request_doc(req: StreamsRequest) -> dict[str, Any]:
    """The JSON document of a request, keys in the documented order."""
    return {
        "version": req.version,
        "application_id": req.application_id,
        "config": {k: req.config[k] for k in CONFIG_KEYS if k in req.config},
        "tasks": [
            {
                "id": str(t.id),
                "stateful": t.stateful,
                **({"default_lag": t.default_lag} if t.default_lag is not None else {}),
                "partitions": [
                    {
                        "topic": p.topic,
                        "partition": p.partition,
                        "source": p.source,
                        "changelog": p.changelog,
                        "racks": None if p.racks is None else list(p.racks),
                    }
                    for p in t.partitions
                ],
            }
            for t in req.tasks
        ],
        "processes": [
            {
                "process_id": p.process_id,
                "threads": p.threads,
                "rack": p.rack,
                "client_tags": dict(sorted(p.client_tags.items())),
                "prev_active": [str(t) for t in p.prev_active],
                "prev_standby": [str(t) for t in p.prev_standby],
                "lags": {str(t): p.lags[t] for t in sorted(p.lags)},
            }
            for p in req.processes
        ],
    }


def encode_streams_request(req: StreamsRequest, compress: bool | None = None) -> bytes:
    """JSON bytes (gzip when ``compress``, or by default when above COMPRESS_ABOVE)."""
    raw = json.dumps(streams_request_doc(req), separators=(",", ":")).encode()
    if compress is None:
        compress = len(raw) > COMPRESS_ABOVE
    return gzip.compress(raw, mtime=0) if compress else raw
