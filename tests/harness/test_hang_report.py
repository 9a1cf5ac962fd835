"""Where a hung worker was: a real faulthandler dump of a process spinning in a solution's file, called from code
outside it, read back as its innermost frame and the solution's own frames."""

import subprocess
import sys
import textwrap

from workbench.harness.hang_report import dump_after, hung_at, read_hung_at


def test_a_dump_names_the_innermost_frame_and_the_solutions_own(tmp_path):
    solution_dir = tmp_path / "solution"
    solution_dir.mkdir()
    (solution_dir / "solution.py").write_text(
        textwrap.dedent("""\
        import helper_outside

        def kernel(n):
            return helper_outside.spin(n)

        def solution():
            return kernel(3)
        """)
    )
    (tmp_path / "helper_outside.py").write_text("def spin(n):\n    while True:\n        n += 1\n")
    log = tmp_path / "worker.log"
    driver = textwrap.dedent(f"""\
        import faulthandler, sys
        sys.path[:0] = [{str(solution_dir)!r}, {str(tmp_path)!r}]
        import solution
        faulthandler.dump_traceback_later(0.3, exit=True)
        solution.solution()
        """)
    with open(log, "w") as out:
        subprocess.run([sys.executable, "-c", driver], stderr=out, timeout=60, check=False)
    where = read_hung_at(log, solution_dir)
    assert where.startswith("helper_outside.py:")  # the innermost frame, outside the solution (an interpreter's)
    assert where.endswith("; in the solution: solution.py:4 in kernel < solution.py:7 in solution"), where
    # without the solution's folder known, the innermost frame alone
    assert read_hung_at(log, None).startswith("helper_outside.py:") and "<" not in read_hung_at(log, None)


def test_no_dump_no_claim_and_short_deadlines_get_none():
    assert hung_at('some output\nTraceback (most recent call last):\n  File "x.py", line 3 in f\n') == ""
    assert hung_at("Timeout (0:00:01)!\nno frames here\n") == ""
    assert dump_after(1.0) is None and dump_after(10.0) == 9.0
