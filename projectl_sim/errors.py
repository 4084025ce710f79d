"""Error types with messages meant for users: the CLI prints them as one line and exits."""

from __future__ import annotations


class ProjectLError(Exception):
    """Base of the errors a user can cause; ``exit_code`` is what the CLI exits with."""

    exit_code = 2


class UsageError(ProjectLError):
    """A bad command-line value, file or option (exit 2)."""

    exit_code = 2


class IllegalActionError(ProjectLError):
    """An action is not legal in the current state; the message says why (exit 1 in replay)."""

    exit_code = 1


class RecordError(ProjectLError):
    """A game record is malformed: bad JSON, a missing field or an unknown value (exit 2)."""

    exit_code = 2


class RulesError(ProjectLError):
    """A rules configuration is invalid (exit 2)."""

    exit_code = 2


class RunFailed(ProjectLError):
    """A run stopped on a failure its games cannot absorb (a full disk, workers that cannot play
    it); the message says what was saved and how to go on (exit 1)."""

    exit_code = 1


class NotebookFailed(ProjectLError):
    """A cell of a notebook executed by ``projectl-sim notebook`` raised; the message names the
    cell, its error and the executed copy kept (exit 1)."""

    exit_code = 1


class RunInterrupted(KeyboardInterrupt):
    """A run stopped by Ctrl-C (or SIGTERM); the message says what was saved (exit 130)."""
