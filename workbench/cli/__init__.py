"""The command line: `workbench` (main.py), the session commands' arguments (session_args.py) and what they do
(sessions.py). Front-end code: the core (session, harness, agent) never imports it."""

from workbench.cli.main import UsageError, main

__all__ = ["UsageError", "main"]
