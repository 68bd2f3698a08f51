"""The project's error tree. Every error rackwise raises on purpose derives from RackwiseError."""

from __future__ import annotations

import functools
import struct
from collections.abc import Callable
from typing import ParamSpec, TypeVar


class RackwiseError(Exception):
    """Root of every error rackwise raises on purpose.

    The message says what was wrong and what to do.
    """


class ProtocolError(RackwiseError):
    """Bytes that are not a valid Kafka consumer-protocol or Kafka Streams message.

    The only exception a decoder lets escape: truncated buffers, negative or oversized
    lengths, counts larger than the bytes left, invalid UTF-8, unknown versions.
    """


class PlanError(RackwiseError):
    """A plan document that does not follow the AssignmentPlan schema."""


# What a bug in a reader could raise on hostile input; the guard reports it as ProtocolError.
_UNEXPECTED = (struct.error, UnicodeError, ValueError, IndexError, KeyError, TypeError,
               OverflowError, MemoryError, RecursionError)
_P = ParamSpec("_P")
_R = TypeVar("_R")


def decode_guard(what: str) -> Callable[[Callable[_P, _R]], Callable[_P, _R]]:
    """The one decode guard: a decoder so wrapped lets only ProtocolError escape, and names
    ``what`` it was reading when anything else goes wrong.

    Example::

        @decode_guard("ConsumerProtocolSubscription")
        def decode_subscription(data: bytes) -> Subscription: ...
        # a truncated buffer -> ProtocolError("ConsumerProtocolSubscription: malformed input (...)")
    """

    def wrap(decoder: Callable[_P, _R]) -> Callable[_P, _R]:
        @functools.wraps(decoder)
        def guarded(*args: _P.args, **kwargs: _P.kwargs) -> _R:
            try:
                return decoder(*args, **kwargs)
            except ProtocolError:
                raise
            except _UNEXPECTED as exc:
                raise ProtocolError(f"{what}: malformed input ({exc})") from None

        return guarded

    return wrap
