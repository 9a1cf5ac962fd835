"""The one map from what went wrong to `workbench`'s exit status, for every command and front end.

0: done (a solution correct, a session that submitted a correct kernel). 1: done, and what was judged failed (a
solution incorrect, a session without a correct submission, a judge's model that failed). 2: bad usage or input,
said in one line on stderr, with nothing already saved lost. 141: the reader of stdout went away (`| head`)."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable

from workbench.bench.plan import BenchUsageError
from workbench.cli.session_args import SessionUsageError
from workbench.harness.runner import EvalUsageError
from workbench.judge.judge import JudgeUsageError
from workbench.session.log import LogError
from workbench.session.store import SessionStoreError
from workbench.session.writer import SessionBusy
from workbench.tasks import TaskFormatError

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
EXIT_BROKEN_PIPE = 141  # what a shell reports for a process killed by SIGPIPE


class UsageError(Exception):
    """Bad input from the user: printed as one line, exit status 2."""


# Every error a user's input causes, whichever layer finds it: one line on stderr and exit status 2.
USAGE_ERRORS: tuple[type[Exception], ...] = (
    UsageError,
    TaskFormatError,
    EvalUsageError,
    SessionUsageError,
    SessionStoreError,
    SessionBusy,  # a session (or bench) another process writes: the line names it
    LogError,
    JudgeUsageError,
    BenchUsageError,
)


def run_command(command: Callable[[], int]) -> int:
    """Run one command and turn what it raises into the exit status above (and its one line)."""
    try:
        return command()
    except USAGE_ERRORS as exc:
        print(f"workbench: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:
        # the reader went away (`workbench tasks | head`): stop quietly, and keep Python's exit-time flush of stdout
        # from raising the same error again
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_BROKEN_PIPE
