"""The command line: `workbench` (main.py), the session commands' arguments (session_args.py) and what they do
(sessions.py). Front-end code: the core (session, harness, agent) never imports it."""

from workbench.cli.main import UsageError, main
from workbench.jsonsafe import json_safe

__all__ = ["UsageError", "json_safe", "main"]
