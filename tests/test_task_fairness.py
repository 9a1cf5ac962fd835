"""Fairness of the paired comparison: what every session sees of a task must not give away its guidance.

An unguided session reads the task's visible files (task.md, task.toml, inputs.py, reference.py); a guided one also
reads guidance/<task>/guidance.toml. If the visible files state a guidance item, or any advice on how to write the fast
kernel, the unguided condition gets part of the treatment and the comparison is confounded. The visible text may say
WHAT is computed, the data (shapes, dtypes, value ranges, origin), the correctness rules and how results are timed;
never how to tile, split, fuse, order or tune the kernel.

Two checks, both per task:
(a) no run of SHARED_RUN or more consecutive words shared with the text or evidence of any of the task's guidance
    items (runs made only of common words, one-letter names and numbers, as formulas are, are ignored);
(b) none of DESIGN_PHRASES, case-insensitively, at the start of a word, except where ALLOW says the phrase is part of
    what the task computes.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import REPO

from workbench.tasks import task_names

SHARED_RUN = 6

# Words so common that a run made only of them (and of the one-letter names and numbers of formulas) says nothing
# about a design ("the number of rows of the ...", "h t a t h t 1 b t"). The math operators are here too: a formula
# shared with a guidance item (the recurrence itself) states WHAT is computed, not how.
COMMON = frozenset(
    """
    a an the and or nor but not no so if then than that this these those it its is are was were be been being
    has have had do does did can could may might must should would will shall of in on at by for to from with
    without into onto over under per as each every any all both either one two some same other such only also
    there here which what who whom whose when where while how why they them their we our you your he she his her
    i me my up down out off about after before between through during above below again once more most less
    min max sum exp log sqrt rsqrt abs mean
    """.split()
)

# Design advice, curated from what was removed from the visible files: the bottleneck and how to beat it, the
# parallel decomposition, passes and fusion, numerical tricks, tiling and tuning, the hardware units a design
# targets (the environment block states the GPU's facts; naming them in a task is advice). Matched
# case-insensitively at the start of a word, so stems ("coalesc", "vectoriz") cover their inflections.
DESIGN_PHRASES = (
    # what the bottleneck is
    "memory-bound",
    "memory bound",
    "compute-bound",
    "compute bound",
    "bandwidth-bound",
    "latency-bound",
    "launch-bound",
    "ridge",
    "bottleneck",
    "in flight",
    "contention",
    # parallel decomposition
    "one program per",
    "one program each",
    "program per row",
    "programs",
    "per program",
    "split the",
    "split path",
    "split kernel",
    "split-k",
    "key-split",
    "persistent",
    "grid =",
    "grid-stride",
    "grid stride",
    "wave",
    "idle",
    "sms",
    "sm gpu",
    "sm count",
    "per sm",
    "warp",
    "load imbalance",
    "row block",
    "time block",
    "channel block",
    "query block",
    "column block",
    "blocks per",
    "chunks per",
    "per chunk",
    "chunk boundar",
    "spans",
    "halo",
    "carry combine",
    "chained carries",
    "dropped carry",
    "off-by-one carry",
    "look-back",
    "lookback",
    "parallel scan",
    "chunked scan",
    "prefix sum",
    "partial result",
    "partial sum",
    "partials",
    # passes, kernels, fusion
    "single pass",
    "single-pass",
    "one pass",
    "one-pass",
    "two pass",
    "two-pass",
    "second pass",
    "passes over",
    "second kernel",
    "two kernels",
    "separate kernels",
    "launches",
    "fuse",
    "fusing",
    "fusion",
    "unfused",
    "materializ",
    "materialis",
    "recompute",
    "workspace",
    "host sync",
    "synchronis",
    "synchroniz",
    # numerical and algorithmic tricks
    "online",
    "running max",
    "running sum",
    "running state",
    "running pair",
    "rescaling",
    "partial rescale",
    "max-shifted",
    "exp2",
    "log2(e)",
    "log2e",
    "log2 e",
    "reciprocal multiply",
    "multiply by the reciprocal",
    "448 / amax",
    "van herk",
    "gil-werman",
    "full sort",
    "radix",
    "bitonic",
    "triangle",
    "privatiz",
    "privatis",
    "sub-histogram",
    "on chip",
    "on-chip",
    "anti-diagonal",
    "wavefront",
    "unroll",
    "pad to a power",
    "bitcast",
    "dequantise in",
    "dequantize in",
    # tiling and tuning
    "tile",
    "tiling",
    "block_",
    "num_warps",
    "num_stages",
    "autotun",
    "constexpr",
    "static_range",
    "swizzl",
    "group_m",
    "pipelin",
    "prefetch",
    "evict",
    "cache hint",
    "cache policy",
    "coalesc",
    "vectoriz",
    "vectoris",
    "16-byte",
    "128-bit",
    "tma",
    "wgmma",
    "mma",
    "tl.dot",
    "tl.atomic",
    "tl.histogram",
    "tl.associative_scan",
    "tl.cumsum",
    "tl.gather",
    "tl.range",
    "tl.debug_barrier",
    "atomic",
    "input_precision",
    "intended tool",
    # hardware units a design targets
    "tensor core",
    "tensor-core",
    "cuda core",
    "cuda-core",
    "shared memory",
    "register",
    "spill",
    "occupancy",
    "hbm",
    "l2 reuse",
)

# Per task, phrases that are part of WHAT the task computes (its name, its math or its inputs' names), with the reason.
ALLOW: dict[str, dict[str, str]] = {
    "paged_decode_attention": {
        "block_": "block_tables and block_size are inputs of the paged KV cache (vLLM's names for its page table and "
        "page size)",
    },
    "tril_matmul": {"triangle": "the operator is the lower triangle of A: tril(A) is the task's definition"},
}

_WORD = re.compile(r"[a-z0-9]+")


def _words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def _toml_comments(text: str) -> Iterator[str]:
    """The comments of a TOML file (whole-line and trailing), skipping '#' inside basic or literal strings; the
    lines of a block of consecutive comment lines come as one piece, so a phrase wrapped across them is seen."""
    block: list[str] = []
    for line in text.splitlines():
        quote, comment = None, None
        for i, ch in enumerate(line):
            if quote:
                if ch == quote and (quote == "'" or line[i - 1] != "\\"):
                    quote = None
            elif ch in "\"'":
                quote = ch
            elif ch == "#":
                comment = line[i + 1 :]
                break
        if line.lstrip().startswith("#"):
            block.append(line.lstrip()[1:])
            continue
        if block:
            yield " ".join(block)
        block = []
        if comment is not None:
            yield comment
    if block:
        yield " ".join(block)


def _python_prose(path: Path) -> Iterator[tuple[str, str]]:
    """The docstrings and comments of a Python file, each with where it is (comments on consecutive lines as one)."""
    source = path.read_text()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Module | ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            doc = ast.get_docstring(node, clean=False)
            if doc:
                yield f"{path.name} docstring of {getattr(node, 'name', 'the module')}", doc
    block: list[str] = []
    first = last = 0
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type != tokenize.COMMENT:
            continue
        if block and tok.start[0] == last + 1:
            block.append(tok.string.lstrip("#"))
        else:
            if block:
                yield f"{path.name}:{first} comment", " ".join(block)
            block, first = [tok.string.lstrip("#")], tok.start[0]
        last = tok.start[0]
    if block:
        yield f"{path.name}:{first} comment", " ".join(block)


def visible_text(name: str) -> list[tuple[str, str]]:
    """Every piece of prose a session without guidance reads for the task, as (where, text)."""
    task_dir = REPO / "tasks" / name
    pieces = [("task.md", (task_dir / "task.md").read_text())]
    toml_text = (task_dir / "task.toml").read_text()
    data = tomllib.loads(toml_text)
    pieces += [("task.toml title", data["title"]), ("task.toml summary", data["summary"])]
    pieces += [(f"task.toml requirements.text[{i}]", t) for i, t in enumerate(data["requirements"]["text"])]
    pieces += [(f"task.toml workload {w['name']!r} note", w.get("note", "")) for w in data["workload"]]
    pieces += [("task.toml comment", c) for c in _toml_comments(toml_text)]
    for file in ("inputs.py", "reference.py"):
        pieces += list(_python_prose(task_dir / file))
    return pieces


def guidance_text(name: str) -> list[tuple[str, str]]:
    data = tomllib.loads((REPO / "guidance" / name / "guidance.toml").read_text())
    return [(f"{item['id']} {field}", item[field]) for item in data["item"] for field in ("text", "evidence")]


def _filler(word: str) -> bool:
    return word in COMMON or len(word) == 1 or word.isdigit()


def _runs(words: list[str], n: int) -> Iterator[tuple[str, ...]]:
    for i in range(len(words) - n + 1):
        run = tuple(words[i : i + n])
        if not all(_filler(w) for w in run):
            yield run


def shared_runs(name: str, pieces: list[tuple[str, str]] | None = None) -> list[str]:
    guidance: dict[tuple[str, ...], str] = {}
    for where, text in guidance_text(name):
        for run in _runs(_words(text), SHARED_RUN):
            guidance.setdefault(run, where)
    found = []
    for where, text in visible_text(name) if pieces is None else pieces:
        words = _words(text)
        i = 0
        while i <= len(words) - SHARED_RUN:
            run = tuple(words[i : i + SHARED_RUN])
            if run in guidance and not all(_filler(w) for w in run):
                j = i + SHARED_RUN  # extend to the longest shared stretch, reported once
                while j < len(words) and tuple(words[j - SHARED_RUN + 1 : j + 1]) in guidance:
                    j += 1
                found.append(f"{name}: {where} shares with guidance {guidance[run]}: {' '.join(words[i:j])!r}")
                i = j
            else:
                i += 1
    return found


def design_phrases(name: str, pieces: list[tuple[str, str]] | None = None) -> list[str]:
    allowed = ALLOW.get(name, {})
    found = []
    for where, text in visible_text(name) if pieces is None else pieces:
        lower = text.lower()
        for phrase in DESIGN_PHRASES:
            if phrase in allowed:
                continue
            for m in re.finditer(r"(?<![a-z0-9])" + re.escape(phrase), lower):
                context = " ".join(text[max(0, m.start() - 40) : m.end() + 40].split())
                found.append(f"{name}: {where} has design phrase {phrase!r}: ...{context}...")
    return found


NAMES = task_names(REPO)


def test_the_checks_cover_every_task_and_allowlist_only_known_phrases():
    assert len(NAMES) >= 26
    assert set(ALLOW) <= set(NAMES)
    for name, phrases in ALLOW.items():
        assert set(phrases) <= set(DESIGN_PHRASES), name
        assert all(reason.strip() for reason in phrases.values()), name
        visible = " ".join(text for _, text in visible_text(name)).lower()
        unused = [phrase for phrase in phrases if phrase not in visible]
        assert not unused, f"{name}: allowlisted but no longer in the visible text: {unused}"


def test_the_checks_catch_a_stated_guidance_item():
    name = "cross_entropy"
    item = guidance_text(name)[0][1]
    assert shared_runs(name, [("task.md", "Hint: " + item)])
    found = design_phrases(name, [("task.toml workload 'x' note", "16 rows: one program per row, so split the rows")])
    assert found and "cross_entropy: task.toml workload 'x' note" in found[0] and "one program per" in found[0]


@pytest.mark.parametrize("name", NAMES)
def test_visible_text_shares_no_run_of_words_with_the_guidance(name):
    found = shared_runs(name)
    assert not found, "\n".join(found)


@pytest.mark.parametrize("name", NAMES)
def test_visible_text_gives_no_design_advice(name):
    found = design_phrases(name)
    assert not found, "\n".join(found)
