#!/usr/bin/env bash
# Every GPU check of the harness and the suite in one call, most important first; results under $1.
# Each phase writes its own files, so a run cut short still returns what it finished.
set -u
out=${1:?usage: gpu_acceptance.sh OUT_DIR}
mkdir -p "$out"
export PYTHONUNBUFFERED=1 WORKBENCH_CACHE=/tmp/workbench-cache
budget=${TIMING_BUDGET:-1.0}
jobs=${JOBS:-6}
{
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv
  python3 -c 'import torch, triton; print("torch", torch.__version__, "triton", triton.__version__)'
  python3 benchmarks/suite_gpu.py --out "$out" --jobs "$jobs" --budget "$budget"
  python3 benchmarks/harness_bench.py --repeats 5 --budget "$budget" --json "$out/bench.json"
  python3 -m pytest tests/harness/test_gpu.py -q -p no:cacheprovider -x
  python3 benchmarks/suite_gpu.py --out "$out" --only-wrong --jobs "$jobs"
} 2>&1 | tee "$out/log.txt"
