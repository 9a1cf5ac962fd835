"""A realistic long session against the strict fake Messages API, through the real Anthropic SDK: how big each request
is over the turns, where the loop compacts, how much of the input the prompt cache carries, and what the session
would cost at the price table's Sonnet and Opus prices. The fake model grows the context as a real one does (large
writes, long bash outputs, several calls in a turn, a turn without a tool, blank text, a call cut at max_tokens,
malformed JSON, a misspelt workload, non-final submits: tests/session/test_long_session.py's plan).

    python benchmarks/context_bench.py [--turns 350] [--window 200000] [--every 25]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from agent.fake_anthropic import FakeAnthropic, Limits  # noqa: E402
from session import test_long_session as scenario  # noqa: E402

from workbench.agent.anthropic_provider import AnthropicProvider  # noqa: E402
from workbench.agent.conversation import Usage  # noqa: E402
from workbench.agent.pricing import cost  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--turns", type=int, default=350)
    parser.add_argument("--window", type=int, default=200_000)
    parser.add_argument("--every", type=int, default=25, help="print a request's size every this many turns")
    args = parser.parse_args()
    import os

    os.environ["WORKBENCH_ROOT"] = str(ROOT / "tests" / "fixtures" / "root")
    scenario.TURNS, scenario.WINDOW = args.turns, args.window
    with FakeAnthropic(limits=Limits(context_window=args.window), measure_usage=True) as fake, \
            tempfile.TemporaryDirectory() as tmp:  # fmt: skip
        fake.push(*[scenario.anthropic_reply] * (args.turns + 20))
        provider = AnthropicProvider("claude-sonnet-4-5", api_key="k", base_url=fake.url, backoff_base_s=0.01)
        reason, _, events = scenario.run_session(Path(tmp), provider)
        sizes, rejected = list(fake.input_tokens), list(fake.rejected)
    responses = [e for e in events if e.kind == "model_response"]
    compactions = [e for e in events if e.kind == "compaction"]
    total = Usage()
    for r in responses:
        total.add(Usage(**r.usage))
    prompt = total.input_tokens + total.cache_read_tokens + total.cache_write_tokens
    print(f"{args.turns} turns at a {args.window:,}-token window: ended {reason}, {len(sizes)} requests, "
          f"{len(rejected)} refused by the API's rules")  # fmt: skip
    print("\nrequest size (tokens, the fake's count) by turn")
    print(f"{'turn':>5} {'prompt':>8} {'% of window':>12}")
    for turn in range(0, len(sizes), args.every):
        print(f"{turn + 1:5d} {sizes[turn]:8,d} {100 * sizes[turn] / args.window:11.0f}%")
    print(f"largest {max(sizes):,} ({100 * max(sizes) / args.window:.0f}% of the window)")
    print(f"\ncompactions: {len(compactions)}")
    for c in compactions:
        print(f"  before turn {c.turn + 1}: turns {c.removed_turns[0]}-{c.removed_turns[1]} summarised, "
              f"~{c.tokens_before:,} -> ~{c.tokens_after:,} tokens ({c.reason})")  # fmt: skip
    print(f"\ninput tokens {prompt:,}: {total.cache_read_tokens / prompt:.1%} read from the cache, "
          f"{total.cache_write_tokens / prompt:.1%} written to it, {total.input_tokens / prompt:.1%} uncached; "
          f"output {total.output_tokens:,}")  # fmt: skip
    print("\ncost of the session (the price table's figures)")
    for model in ("claude-sonnet-4-5", "claude-opus-4-5"):
        print(f"  {model:20} ${cost(model, total):8.2f}")
    return 0 if reason == "budget" and not rejected else 1


if __name__ == "__main__":
    sys.exit(main())
