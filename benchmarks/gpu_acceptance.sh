#!/usr/bin/env bash
# Every GPU check of the harness and the suite in one call, most important first; results under $1.
# Evals are confined with bubblewrap: where the GPU machine has none, carry the binary and set WORKBENCH_BWRAP.
# Each phase writes its own files, so a run cut short still returns what it finished. A failing step does not
# stop the later ones (device time is scarce), but the script exits 1 naming every step that failed.
set -euo pipefail
out=${1:?usage: gpu_acceptance.sh OUT_DIR}
mkdir -p "$out"
export PYTHONUNBUFFERED=1 WORKBENCH_CACHE=/tmp/workbench-cache
budget=${TIMING_BUDGET:-1.0}
jobs=${JOBS:-6}
failed=()

step() {  # step NAME COMMAND...: run it, and remember NAME when it fails
  local name=$1
  shift
  echo "== $name"
  if ! "$@"; then
    echo "== FAILED: $name"
    failed+=("$name")
  fi
}

{
  step device nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv
  step versions python3 -c 'import torch, triton; print("torch", torch.__version__, "triton", triton.__version__)'
  step confinement python3 -c 'from workbench.harness.sandbox import confinement; c = confinement(); print(c); raise SystemExit(not c.works)'
  step eval-speed python3 benchmarks/eval_speed.py --mode cuda --json "$out/eval_speed.json"
  step adversarial python3 -m pytest tests/adversarial -m gpu -q -p no:cacheprovider
  step suite python3 benchmarks/suite_gpu.py --out "$out" --jobs "$jobs" --budget "$budget"
  step harness-bench python3 benchmarks/harness_bench.py --repeats 5 --budget "$budget" --json "$out/bench.json"
  step gpu-tests python3 -m pytest tests/harness/test_gpu.py -q -p no:cacheprovider -x
  step wrong-solutions python3 benchmarks/suite_gpu.py --out "$out" --only-wrong --jobs "$jobs"
  if ((${#failed[@]})); then
    echo "FAILED steps: ${failed[*]}"
    exit 1
  fi
  echo "every step passed"
} 2>&1 | tee "$out/log.txt"
