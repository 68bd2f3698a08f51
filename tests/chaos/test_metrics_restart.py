"""RELIABILITY.md part 5: the Spark metrics job killed (SIGKILL) mid-stream and restarted.

Plans keep arriving (a producer writes distinct valid plans, group x generation, a few per
second) while ``rackwise metrics run`` streams them; at a random moment after its first
batches it gets SIGKILL and a new run starts from the same output and checkpoint. In the
end every plan is in ``plan_metrics`` exactly once, and the newest value of every 1-minute
window counts each plan once: nothing lost, nothing counted twice.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest
from confluent_kafka import Consumer, Producer

from assignor.scenario import plan_from_scenario
from tests.chaos.harness import FULL, ROOT, Figures, wait_until
from tests.support.kafkautil import create_topic

KILLS = 2
# Two Spark start-ups per kill take minutes on a shared 2-core machine: `make chaos` only.
pytestmark = [pytest.mark.chaos, pytest.mark.spark, pytest.mark.timeout(400 + 240 * KILLS),
              pytest.mark.skipif(not FULL, reason="heavy (Spark): runs under make chaos")]

SCENARIO = {
    "cluster": {"brokers": {"1": "az1", "2": "az2", "3": "az3"},
                "topics": {"orders": [[1, 2], [2, 3], [3, 1], [1, 3]]}},
    "group": {"id": "g", "members": [{"id": "c1", "rack": "az1", "topics": ["orders"]},
                                     {"id": "c2", "rack": "az2", "topics": ["orders"]}]},
}


def _table(out: Path, name: str):  # type: ignore[no-untyped-def]
    """All batches of one Parquet table (pyarrow ignores _temporary and dot files)."""
    import pyarrow.dataset as ds

    folder = out / name
    if not any(folder.glob("batch_id=*/_SUCCESS")):
        return None
    try:
        return ds.dataset(str(folder), format="parquet",
                          partitioning="hive").to_table().to_pandas()
    except (OSError, ValueError):  # a batch being (re)written right now: read it next time
        return None


def _window_count(out: Path) -> int:
    """Plans counted by the newest value of every 1-minute window (0 before any window)."""
    windows = _table(out, "windows")
    if windows is None or "window" not in windows:
        return 0
    minute = windows[windows["window"] == "1 minute"]
    newest = minute.sort_values("batch_id").groupby(
        ["window_start", "group_id"], as_index=False).last()
    return int(newest["plans"].sum())


def _job(bootstrap: str, out: Path, plans: str, metrics: str, log: Path) -> subprocess.Popen[bytes]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("RACKWISE_") or k == "RACKWISE_CACHE_DIR"}
    with open(log, "ab") as sink:
        return subprocess.Popen(
            [sys.executable, "-m", "agent", "metrics", "run", "--bootstrap", bootstrap,
             "--output", str(out), "--plans-topic", plans, "--metrics-topic", metrics],
            stdout=sink, stderr=sink, stdin=subprocess.DEVNULL, cwd=ROOT, env=env,
            start_new_session=True)


def test_metrics_job_killed_and_restarted(bootstrap: str, admin, unique_name: str, rng,
                                          seed: int, workdir: Path) -> None:  # type: ignore[no-untyped-def]
    plans_topic, metrics_topic = f"{unique_name}.plans", f"{unique_name}.crt-metrics"
    create_topic(admin, plans_topic, partitions=3)
    out = workdir / "crt"
    log = workdir / "job.log"
    figures = Figures("metrics-restart", seed)
    template = plan_from_scenario(SCENARIO, assignor="rack-optimal")
    produced: list[tuple[str, int]] = []
    stop = threading.Event()

    def feed() -> None:
        producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 5,
                             "enable.idempotence": True})
        generation: dict[str, int] = {}
        while not stop.wait(0.2):
            group = f"m-{rng.randrange(8)}"
            generation[group] = generation.get(group, 0) + 1
            plan = template.model_copy(update={
                "group_id": group, "generation": generation[group],
                "created_at": datetime.now(UTC)})
            producer.produce(plans_topic, key=group.encode(), value=plan.to_json().encode())
            producer.poll(0)
            produced.append((group, generation[group]))
        producer.flush(30)

    feeder = threading.Thread(target=feed, daemon=True)
    job = None
    kills: list[dict[str, float]] = []
    try:
        feeder.start()
        job = _job(bootstrap, out, plans_topic, metrics_topic, log)
        started = time.monotonic()

        def batches() -> int:
            """Committed batches of the plans query (Spark writes _SUCCESS last)."""
            return len(list((out / "batches").glob("batch_id=*/_SUCCESS")))

        wait_until(lambda: batches() >= 2, 240, f"the job never wrote a batch: see {log}", 1.0)
        first_batch_s = time.monotonic() - started
        for _ in range(KILLS):
            time.sleep(rng.uniform(0.5, 6.0))
            had = batches()
            os.killpg(job.pid, signal.SIGKILL)
            job.wait(30)
            killed = time.monotonic()
            time.sleep(rng.uniform(0, 3))
            job = _job(bootstrap, out, plans_topic, metrics_topic, log)
            wait_until(lambda had=had: batches() > had + 1, 240, "no batch after the restart", 1.0)
            kills.append({"batches_before": had, "restart_to_new_batch_s":
                          round(time.monotonic() - killed, 1)})
        time.sleep(2)
        stop.set()
        feeder.join(30)
        want = set(produced)

        def caught_up() -> bool:
            table = _table(out, "plan_metrics")
            return table is not None and set(zip(table["group_id"], table["generation"],
                                                 strict=True)) >= want

        wait_until(caught_up, 180, "the job never caught up with every plan", 2.0)
        # The windows query reads the metrics topic, a few batches behind: wait for it too
        # (more than produced would be double counting: that fails at once below).
        wait_until(lambda: _window_count(out) >= len(want), 180,
                   "the windows never counted every plan", 2.0)
    finally:
        stop.set()
        if job is not None and job.poll() is None:
            os.killpg(job.pid, signal.SIGTERM)
            try:
                job.wait(60)
            except subprocess.TimeoutExpired:
                os.killpg(job.pid, signal.SIGKILL)

    table = _table(out, "plan_metrics")
    rows = list(zip(table["group_id"], table["generation"], strict=True))
    twice = {k for k in rows if rows.count(k) > 1}
    counted = _window_count(out)
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": f"{unique_name}-m",
                         "auto.offset.reset": "earliest", "enable.partition.eof": True})
    consumer.subscribe([metrics_topic])
    topic_rows: list[bytes] = []
    deadline = time.monotonic() + 30
    quiet = 0
    while time.monotonic() < deadline and quiet < 3:
        batch = consumer.consume(500, 1.0)
        quiet = quiet + 1 if not batch else 0
        topic_rows += [m.key() or b"" for m in batch if not m.error()]
    consumer.close()
    plan_keys = [k for k in topic_rows if k.startswith(b"plan/")]

    figures["kills"] = kills
    figures["first_batch_after_start_s"] = round(first_batch_s, 1)
    figures["plans_produced"] = len(want)
    figures["plan_metrics_rows"] = len(rows)
    figures["plans_counted_twice"] = len(twice)
    figures["plans_missing"] = len(want - set(rows))
    figures["window_plans_counted"] = counted
    figures["metrics_topic_records"] = len(topic_rows)
    figures["metrics_topic_distinct_keys"] = len(set(topic_rows))
    figures["metrics_topic_plan_records"] = len(plan_keys)
    figures["metrics_topic_distinct_plan_keys"] = len(set(plan_keys))
    figures.write()
    print(json.dumps({"job_log_tail": log.read_text(errors="replace")[-1500:]})[:1600])

    assert not twice, sorted(twice)[:5]
    assert want <= set(rows)
    assert counted == len(want), (counted, len(want))
