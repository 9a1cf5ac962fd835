"""The runtime-blind judge: scores how much of an expert design a design note and a solution realise."""

from workbench.judge.judge import JudgeInputs, JudgeUsageError, judge, judge_files, judge_session, read_judgements
from workbench.judge.result import Citation, Judgement, LevelScore

__all__ = [
    "Citation",
    "JudgeInputs",
    "JudgeUsageError",
    "Judgement",
    "LevelScore",
    "judge",
    "judge_files",
    "judge_session",
    "read_judgements",
]
