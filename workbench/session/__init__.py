"""Agent sessions: the loop, its tools, the log, resume and branch."""
