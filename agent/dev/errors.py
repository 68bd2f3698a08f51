"""The testbed's error: it cannot be started or stopped, and the message says what to do."""

from __future__ import annotations

from protocol.errors import RackwiseError


class TestbedError(RackwiseError):
    """The testbed cannot be started or stopped; the message says what to do."""

    __test__ = False  # not a pytest test class
