"""The high-availability assignor on validated inputs (assignor.streams.model.StreamsInputs).

Example::

    result = run(inputs)            # active, standby and warm-up tasks per client
"""

from __future__ import annotations

from dataclasses import replace

from assignor.errors import AssignorError
from assignor.streams.ha import HAResult, assign
from assignor.streams.model import STRATEGIES, AssignmentConfig, StreamsInputs
from assignor.streams.rack import rack_context
from assignor.streams.state import ClientState

ASSIGNOR_NAME = "high-availability"


def run(inputs: StreamsInputs) -> HAResult:
    """Run the HA assignor (with the configured rack strategy) on validated inputs."""
    if not inputs.clients:
        raise AssignorError("a streams group needs at least one client")
    states = {c.process_id: ClientState.from_input(c, c.lags) for c in inputs.clients}
    if len(states) != len(inputs.clients):
        raise AssignorError(
            "two clients share a process_id; list each process once with its thread count"
        )
    ctx = rack_context(
        inputs.view, inputs.tasks, list(states.values()), inputs.config, inputs.weights
    )
    return assign(states, inputs.tasks, inputs.config, ctx)


def with_strategy(config: AssignmentConfig, assignor: str | None) -> AssignmentConfig:
    """``high-availability`` keeps the configured rack strategy; ``high-availability:<s>``
    (or a bare strategy name) overrides it."""
    if assignor is None or assignor == ASSIGNOR_NAME:
        return config
    strategy = assignor.removeprefix(ASSIGNOR_NAME + ":")
    if strategy not in STRATEGIES:
        raise AssignorError(
            f"streams assignor {assignor!r} unknown: use {ASSIGNOR_NAME} or one of {STRATEGIES}"
        )
    return replace(config, rack_aware_assignment_strategy=strategy)
