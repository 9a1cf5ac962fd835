"""A realistic long session against the strict fake Messages API, through the real Anthropic SDK: how big each request
is over the turns, where the loop compacts, how much of the input the prompt cache carries, and what the session
would cost at the price table's Sonnet and Opus prices. The fake model grows the context as a real one does (large
writes, long bash outputs, several calls in a turn, a turn without a tool, blank text, a call cut at max_tokens,
malformed JSON, a misspelt workload, non-final submits: tests/session/test_long_session.py's plan).

The session's token profile (workbench/bench/token_model.py) is measured from its log, and played back through the
same model that `workbench bench --dry-run` estimates with, to show how far that model is from the measured session;
`--write-profile` records the profile as the one the dry run uses (workbench/bench/measured_profile.py).

    python benchmarks/context_bench.py [--turns 350] [--window 200000] [--every 25] [--write-profile]
"""

from __future__ import annotations

import argparse
import json
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
from workbench.bench.token_model import TokenProfile, profile_from_events, simulate  # noqa: E402

PROFILE_MODULE = ROOT / "workbench" / "bench" / "measured_profile.py"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--turns", type=int, default=350)
    parser.add_argument("--window", type=int, default=200_000)
    parser.add_argument("--every", type=int, default=25, help="print a request's size every this many turns")
    parser.add_argument("--write-profile", action="store_true", help=f"record the profile in {PROFILE_MODULE.name}")
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
    source = f"benchmarks/context_bench.py: {args.turns} turns at a {args.window:,}-token window, strict fake, real SDK"
    profile = profile_from_events(events, source)
    model_run = simulate(profile, args.turns, args.window)
    played = model_run.usage_at(args.turns)
    print(f"\ntoken profile: first prompt {profile.first_prompt:,}, +{profile.growth:,.0f} a turn, "
          f"{profile.output:,.0f} output a turn, {profile.uncached:,.0f} uncached a request, "
          f"{profile.kept_share:.0%} kept by a compaction, {profile.compaction_read:,.0f} read after one")  # fmt: skip
    print("played back through the dry run's model (workbench/bench/token_model.py), against the measured session:")
    for name in vars(total):
        measured, modelled = getattr(total, name), getattr(played, name)
        print(f"  {name:20} {measured:12,d} measured {modelled:12,d} modelled ({modelled / max(measured, 1) - 1:+.1%})")
    print(f"  compactions {len(compactions)} measured, {model_run.compactions} modelled")
    for model in ("claude-sonnet-4-5", "claude-opus-4-5"):
        print(f"  {model:20} ${cost(model, total):8.2f} measured ${cost(model, played):8.2f} modelled")
    if args.write_profile:
        write_profile(profile, total, args.turns, args.window)
        print(f"\nwrote {PROFILE_MODULE.relative_to(ROOT)}")
    return 0 if reason == "budget" and not rejected else 1


def write_profile(profile: TokenProfile, measured: Usage, turns: int, window: int) -> None:
    fields = "".join(f"    {name}={json.dumps(value)},\n" for name, value in profile.to_dict().items())
    usage = "".join(f'    "{name}": {value},\n' for name, value in vars(measured).items())
    PROFILE_MODULE.write_text(
        '"""Written by `python benchmarks/context_bench.py --write-profile` (do not edit by hand): the token profile '
        'of its\nsimulated session, from which `workbench bench --dry-run` estimates what a bench will cost."""\n\n'
        "from workbench.bench.token_model import TokenProfile\n\n"
        f"PROFILE = TokenProfile(\n{fields})\n"
        f"MEASURED_TURNS = {turns}\nMEASURED_WINDOW = {window}\n"
        f"MEASURED_USAGE = {{\n{usage}}}  # the measured session's tokens, which the profile played back approximates\n"
    )


if __name__ == "__main__":
    sys.exit(main())
