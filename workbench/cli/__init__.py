"""The command line: `workbench` (main.py: the parser), one module a command (tasks, evaluate, suite, score; sessions.py
for run, resume, branch and replay with their arguments in session_args.py), and the one map from errors to exit
codes (errors.py). Front-end code: the core (session, harness, agent) never imports it."""

from workbench.cli.main import UsageError, main

__all__ = ["UsageError", "main"]
