"""Written by `python benchmarks/context_bench.py --write-profile` (do not edit by hand): the token profile of its
simulated session, from which `workbench bench --dry-run` estimates what a bench will cost."""

from workbench.bench.token_model import TokenProfile

PROFILE = TokenProfile(
    first_prompt=1508,
    growth=940.4668587896253,
    output=296.2,
    uncached=391.48285714285714,
    compaction_read=1187,
    kept_share=0.37438614982135954,
    source="benchmarks/context_bench.py: 350 turns at a 200,000-token window, strict fake, real SDK",
)
MEASURED_TURNS = 350
MEASURED_WINDOW = 200000
MEASURED_USAGE = {
    "input_tokens": 137019,
    "output_tokens": 103670,
    "cache_read_tokens": 30935775,
    "cache_write_tokens": 441073,
}  # the measured session's tokens, which the profile played back approximates
