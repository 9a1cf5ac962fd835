"""The Textual app of the workbench: watch, step, interrupt and take over a session; replay saved ones.

The only package that imports textual. The core (workbench.session, workbench.agent, ...) never
imports it; the app drives an AgentLoop through its thread-safe controls and callbacks.
"""
