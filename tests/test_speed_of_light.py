"""The SOL model: each resource's time is its work over its ceiling, SOL the largest, named by its resource; and
every task's [sol] formulas evaluate on every workload, hidden ones included, to an SOL on a device's ceilings."""

import pytest
from conftest import REPO

from workbench.speed_of_light import DATASHEETS, RESOURCES, SOL_KEYS, SolKeyError, check_keys, sol_time
from workbench.tasks import load_task, task_names

# 1 TB/s, 100 TFLOP/s bf16, 50 tf32, 200 fp8, 10 TFLOP/s fp32, 5 Tops int32, 1 Tops SFU, 1 us a step
CEILINGS = {"bandwidth_gbps": 1000.0, "matmul_tflops": 100.0, "tf32_tflops": 50.0, "fp8_tflops": 200.0,
            "fp32_tflops": 10.0, "int32_tops": 5.0, "sfu_tops": 1.0, "step_us": 1.0}  # fmt: skip


@pytest.mark.parametrize(
    ("work", "binding", "ms"),
    [
        ({"bytes": 1e9, "tc_bf16_flops": 1e12}, "tc_bf16", 10.0),  # memory alone would allow 1 ms
        ({"bytes": 4e9, "tc_bf16_flops": 1e11}, "hbm", 4.0),
        ({"bytes": 1e9, "tc_tf32_flops": 1e12}, "tc_tf32", 20.0),  # the same FLOPs cost twice the bf16 time
        ({"bytes": 1e10, "tc_fp8_flops": 1e12}, "hbm", 10.0),  # 5 ms of fp8 FLOPs: the bytes bind
        ({"bytes": 1e9, "fp32_ops": 3e10}, "fp32", 3.0),  # FLOPs on CUDA cores, not charged to the tensor cores
        ({"bytes": 1e9, "int_ops": 1e10}, "int", 2.0),
        ({"bytes": 1e9, "sfu_ops": 5e9}, "sfu", 5.0),
        ({"bytes": 1e9, "dependent_steps": 7000}, "dependency", 7.0),
    ],
)
def test_the_binding_resource_is_the_one_with_the_longest_time(work, binding, ms):
    bound = sol_time(work, CEILINGS)
    assert bound.binding == binding and bound.ms == pytest.approx(ms)


def test_resources_are_not_added():
    bound = sol_time({"bytes": 1e9, "tc_bf16_flops": 1e11, "fp32_ops": 1e10}, CEILINGS)
    assert bound.ms == pytest.approx(1.0) and bound.times_ms == pytest.approx({"hbm": 1.0, "tc_bf16": 1.0, "fp32": 1.0})


def test_a_resource_without_a_ceiling_is_named_unknown_and_sol_is_taken_over_the_others():
    ceilings = {k: v for k, v in CEILINGS.items() if k != "sfu_tops"}
    bound = sol_time({"bytes": 1e9, "sfu_ops": 1e13}, ceilings)
    assert bound.binding == "hbm" and bound.ms == pytest.approx(1.0) and bound.unknown == ["sfu"]
    assert sol_time({"sfu_ops": 1.0}, {}).ms is None


def test_only_bytes_and_tensor_core_flops_make_the_hard_bound():
    bound = sol_time({"bytes": 1e9, "sfu_ops": 5e9, "dependent_steps": 9000}, CEILINGS)
    assert bound.binding == "dependency" and bound.hard_ms == pytest.approx(1.0)


@pytest.mark.parametrize(
    ("keys", "message"),
    [
        (["bytes", "flops"], "'flops' is no SOL resource (FLOPs are stated per unit now)"),
        (["bytes", "tc_bf16_flop"], "'tc_bf16_flop' is no SOL resource"),
        (["fp32_ops"], "'bytes' is required"),
    ],
)
def test_unknown_or_missing_keys_are_refused(keys, message):
    with pytest.raises(SolKeyError, match=message.replace("(", r"\(").replace(")", r"\)")):
        check_keys(keys)


def test_every_datasheet_names_every_ceiling():
    ceilings = {r.ceiling for r in RESOURCES}
    assert all(set(sheet) == ceilings for sheet in DATASHEETS.values())


def test_every_formula_of_every_task_evaluates_on_every_workload_to_an_sol():
    checked = 0
    for name in task_names(REPO):
        task = load_task(name, REPO)
        assert set(task.sol) <= set(SOL_KEYS) and len(task.sol) >= 2, name  # bytes and the work of some unit
        for workload in (*task.workloads, *task.hidden):
            work = task.sol_work(workload)
            bound = sol_time(work, CEILINGS)
            assert bound.ms is not None and bound.ms > 0 and bound.binding, (name, workload.name)
            assert set(bound.times_ms) == {r.name for r in RESOURCES if work.get(r.key, 0) > 0}
            checked += 1
    assert checked > 117  # the visible workloads and the hidden ones


def test_a_task_with_an_unknown_sol_key_is_refused_in_one_line(tmp_path):
    import shutil

    from conftest import FIXTURE_ROOT

    from workbench.tasks import TaskFormatError

    root = tmp_path / "root"
    shutil.copytree(FIXTURE_ROOT, root)
    toml = root / "tasks" / "scale_add" / "task.toml"
    toml.write_text(toml.read_text().replace('fp32_ops = "2 * n"', 'flops = "2 * n"'))
    with pytest.raises(TaskFormatError) as err:
        load_task("scale_add", root)
    assert str(toml) in str(err.value) and "'flops' is no SOL resource" in str(err.value)
    assert "\n" not in str(err.value)
