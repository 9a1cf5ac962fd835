"""The checker's independent checks of a latency the solution's worker reports (docs/security.md, "Timing").

The worker's CUDA events are in the untrusted process, so the checker accepts its samples only when its own wall
clock agrees: a batch of n calls, each an L2 flush then one call, answered after a device-wide synchronise, cannot
take less wall time than its samples and flushes add up to, nor much more than they plus the round trip and the
worker's per-call host work explain. Samples that leave wall time unaccounted for (patched events, work on a stream
the events do not cover, a skipped flush) are rejected, and so is a latency under the workload's speed of light.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

# What the wall clock of a batch may hold beyond its samples and flushes: the round trip (measured), per call the
# worker's Python between one call's end event and the next flush, and clock noise. Honest experts on the H200
# (2026-12-01, with the worker's checks run once a call) left up to ~2.7 ms a call unexplained, and a faked
# latency is one that hides most of the work, so the rule asks that the samples and flushes explain at least half of
# the wall time past the allowances: a latency understated by 2x or more (patched events, the work on a stream the
# events do not cover) is rejected; a smaller understatement is not caught by this check alone.
HOST_MS_PER_CALL = 0.5
# Once a batch: the guard's entry and exit (its checks of the mode stacks and timing classes), the device-wide
# synchronise and the reply. Measured at 0.3-0.9 ms a region on a 2-core development machine (2026-12-01); on the H200
# host a cross_entropy expert's 16-row batch left ~5.5 ms of 7.6 unexplained before this allowance (2026-12-01).
BATCH_HOST_MS = 2.0
EXPLAINED_FRACTION = 0.5
RELATIVE_SLACK = 0.10
# After the default stream's last timed call is done, how long the device may stay busy: the device-wide synchronise's
# own latency (microseconds) with a margin, and a share of the batch for the clock's resolution under load.
TAIL_MS = 0.2
TAIL_FRACTION = 0.10
# A latency is implausible when it beats the speed of light by more than the ceilings' own measurement error.
SOL_MARGIN = 1.05
# The device waits this long at most before a timed batch while the worker issues its calls ahead of it (the wait is
# allowed for in the wall clock, so it is bounded: a longer one would be a longer blind spot for hidden work).
AHEAD_CAP_MS = 10.0


def check_batch(
    wall_ms: float, samples_ms: Sequence[float], flush_ms: float, round_trip_ms: float, ahead_ms: float = 0.0
) -> str | None:
    """None when the batch's samples account for the wall time the checker measured around it; else why not.
    `ahead_ms`: how long the device was kept waiting before the batch (so that the worker could issue its calls
    ahead of it), by the checker's own calibration of the wait it asked for."""
    if not samples_ms or not all(math.isfinite(s) and s >= 0 for s in samples_ms):
        return f"the worker reported unusable samples {list(samples_ms)[:4]}"
    n = len(samples_ms)
    accounted = sum(samples_ms) + n * flush_ms
    if accounted > wall_ms * (1 + RELATIVE_SLACK) + round_trip_ms:
        return (
            f"the batch's samples and flushes add up to {accounted:.3f} ms, more than the {wall_ms:.3f} ms of wall "
            "time the batch took"
        )
    beyond_overheads = wall_ms - round_trip_ms - BATCH_HOST_MS - n * HOST_MS_PER_CALL - ahead_ms
    if accounted < EXPLAINED_FRACTION * beyond_overheads:
        return (
            f"a batch of {n} calls took {wall_ms:.3f} ms of wall time, but its samples ({sum(samples_ms):.3f} ms) and "
            f"L2 flushes ({n * flush_ms:.3f} ms) explain under half of it"
            + (f" past the device's wait of {ahead_ms:.3f} ms" if ahead_ms else "")
            + ": work ran outside the timed events"
        )
    return None


def check_tail(tail_ms: object, samples_ms: Sequence[float]) -> str | None:
    """None when the device was idle once the default stream's last timed call was done; else why not. Work that a
    call leaves on another stream is not inside its events but keeps the device busy past them, however short the
    calls are (the wall clock's allowances let a little such work through; this does not)."""
    if type(tail_ms) is not float or not math.isfinite(tail_ms) or tail_ms < 0:
        return f"the worker reported an unusable tail {str(tail_ms)[:40]}"
    if tail_ms > TAIL_MS + TAIL_FRACTION * sum(samples_ms):
        return (
            f"the device stayed busy {tail_ms:.3f} ms after the timed calls were done on the default stream (their "
            f"samples add up to {sum(samples_ms):.3f} ms): work ran on a stream the timed events do not cover"
        )
    return None


def check_plausible(latency_ms: float, sol_ms: float | None) -> str | None:
    """None unless the latency beats the workload's speed of light (which no kernel can)."""
    if sol_ms is None or sol_ms <= 0:
        return None
    if latency_ms * SOL_MARGIN < sol_ms:
        return (
            f"a latency of {latency_ms * 1000:.2f} us is under the workload's speed of light ({sol_ms * 1000:.2f} us): "
            "implausible, not reported"
        )
    return None
