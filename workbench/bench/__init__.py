"""The paired bench: plan and run task x model x condition x seed sessions, and report the paper's tables."""

from workbench.bench.plan import BenchPlan, BenchUsageError, ModelSpec, SessionSpec, load_plan, save_plan
from workbench.bench.records import SessionRecord, read_records
from workbench.bench.report import Report, build_report, write_report
from workbench.bench.runner import BenchResult, LocalRunner, pending_sessions

__all__ = [
    "BenchPlan",
    "BenchResult",
    "BenchUsageError",
    "LocalRunner",
    "ModelSpec",
    "Report",
    "SessionRecord",
    "SessionSpec",
    "build_report",
    "load_plan",
    "pending_sessions",
    "read_records",
    "save_plan",
    "write_report",
]
