"""The ``rackwise`` command line (docs/architecture.md § Command line).

Each subcommand lives in its own module of this package (``agent.cli.<name>``) and exposes
``register(subparsers)``; agent.cli.main only discovers them, parses and dispatches, so parts
of the tool can grow without touching one shared file. A RackwiseError ends the command
with a one-line message on stderr and exit code 2, never a traceback; so does a missing
optional dependency, naming the extra that installs it.
"""

from agent.cli.main import main

__all__ = ["main"]
