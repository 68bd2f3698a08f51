"""One local SparkSession for the whole spark tier (JVM start costs seconds on 2 cores)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest


@pytest.fixture(scope="session")
def spark() -> Iterator[Any]:
    from metrics.session import build_session

    session = build_session("local[2]", app_name="rackwise-tests", conf={
        "spark.sql.shuffle.partitions": "2",
        "spark.ui.enabled": "false",
        "spark.driver.host": "127.0.0.1",
        "spark.driver.bindAddress": "127.0.0.1",
    })
    yield session
    for query in session.streams.active:
        query.stop()
    session.stop()
