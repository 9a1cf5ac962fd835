"""The static rules over a solution's source, split by concern; `workbench.harness.static_checks` is the entry."""
