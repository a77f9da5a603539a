"""The bounded fuzz run of `make test`: a fixed corpus per family (same seed every run, so a red
run is reproducible), each input checked by `tests.fuzz.harness.check` and, when accepted, at
both levels. Findings of the open classes in `tests/fuzz/known.py` (being fixed by other
helpers of issue 13, each with its strict-xfail regression) are reported, not failed; any
other finding fails with the command that reproduces it. `make fuzz` is the long run.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from tests.fuzz import corpora, harness, known

pytestmark = pytest.mark.fuzz

SEED = 20261201
CASES_PER_FAMILY = {
    "lit": 40,
    "onnx": 24,
    "npz": 20,
    "atc-options": 15,
    "pass-options": 18,
    "run-options": 25,
    "session": 25,
    "resource": 12,
    "ascend": 20,
}


@pytest.fixture(scope="module", autouse=True)
def _warm() -> None:
    harness.warm_up()


def bounded_cases(family: str, count: int) -> list[harness.Case]:
    rng = random.Random(f"{family}:{SEED}")
    cases: list[harness.Case] = []
    while len(cases) < count:
        case = corpora.FAMILIES[family](rng)
        if not known.too_slow_for_bounded(case):
            cases.append(case)
    return cases


def _judge(results: list[tuple[harness.Case, harness.Outcome, list[harness.Finding]]]) -> None:
    new: list[harness.Finding] = []
    for _case, _outcome, findings in results:
        for f in findings:
            if known.classify(f) is None:
                new.append(f)
    if new:
        lines = [
            f"{f.cls}: {f.case.command()}{f' [{f.step}]' if f.step else ''} ({f.case.note}): "
            f"{f.detail}"
            for f in new
        ]
        pytest.fail(f"{len(new)} new fuzz findings:\n" + "\n".join(lines), pytrace=False)


@pytest.mark.parametrize("family", sorted(CASES_PER_FAMILY))
def test_family_inputs_get_one_line_errors_or_right_numbers(family: str, tmp_path: Path) -> None:
    cases = bounded_cases(family, CASES_PER_FAMILY[family])
    results = harness.run_cases(cases, tmp_path, jobs=2)
    assert len(results) == len(cases)
    _judge(results)


def test_sample_as_console_scripts(tmp_path: Path) -> None:
    """The same checks through the installed tools, as a user runs them: one input per family
    (fresh interpreters cost ~0.5 s each, so the bounded run keeps this sample small)."""
    from concurrent.futures import ThreadPoolExecutor

    sample = []
    for family in sorted(CASES_PER_FAMILY):
        rng = random.Random(f"{family}:subprocess:{SEED}")
        sample.append(rng.choice(bounded_cases(family, CASES_PER_FAMILY[family])))

    def run(index: int) -> tuple[harness.Case, harness.Outcome, list[harness.Finding]]:
        case = sample[index]
        folder = tmp_path / str(index)
        harness.write_files(case, folder)
        outcome = harness.run_subprocess(case.tool, case.argv, folder)
        return case, outcome, harness.check(case, outcome)

    with ThreadPoolExecutor(2) as pool:
        results = list(pool.map(run, range(len(sample))))
    assert {case.tool for case, _, _ in results} >= {"ge-opt", "ge-run", "ge-import", "session"}
    _judge(results)


def test_the_corpora_cover_every_tool_and_ask_for_checks_after_acceptance() -> None:
    """The bounded corpus exercises all tools, and many of its inputs carry a check of the
    numbers for when they are accepted (levels, pipelines, ge-atc models, Session oracle)."""
    cases = [c for f, n in CASES_PER_FAMILY.items() for c in bounded_cases(f, n)]
    assert {c.tool for c in cases} == set(harness.TOOLS)
    checked = [c for c in cases if c.check_levels or c.check_output or c.check_model]
    assert len(checked) >= 60
    assert {c.family for c in checked} >= {"lit", "onnx", "atc-options", "ascend"}


def test_checks_catch_each_class(tmp_path: Path) -> None:
    """The checker itself: every promise it checks is seen broken by a fake outcome."""
    case = harness.Case("lit", "ge-opt", ["input.mlir"])
    o = harness.Outcome
    assert harness.check(case, o(1, "", "input.mlir:1:1: error: bad\n", 0.1)) == []
    assert harness.check(case, o(0, "", "", 0.1)) == []
    bad = {
        "hang": o(None, "", "", 9.0, timed_out=True),
        "crash": o(None, "", "", 0.1, signal=11),
        "memory": o(1, "", "error: internal error (MemoryError: x)\n", 0.1),
        "traceback": o(70, "", "Traceback (most recent call last):\n  x\nKeyError: 1\n", 0.1),
        "internal-error": o(1, "", "error: internal error (KeyError: 1)\n", 0.1),
        "exit-code": o(2, "", "usage: ge-opt\nge-opt: error: bad\n", 0.1),
        "error-lines": o(1, "", "error: a\nerror: b\n", 0.1),
    }
    for cls, outcome in bad.items():
        assert [f.cls for f in harness.check(case, outcome)] == [cls]
    assert [f.cls for f in harness.check(case, o(0, "", "", 0.1, maxrss=2 << 30))] == ["memory"]
    grown = o(0, "", "", 0.1, maxrss=2 << 30, base_rss=(2 << 30) - (100 << 20))
    assert harness.check(case, grown) == []
    assert [f.cls for f in harness.check(case, o(1, "", "", 0.1))] == ["error-lines"]
    assert [f.cls for f in harness.check(case, o(0, "", "x: error: y\n", 0.1))] == ["error-lines"]


def test_a_located_diagnostic_is_one_error_with_its_source_line_and_caret() -> None:
    """MLIR's form (issue 16): `file:line:col: error:` then the source line and a caret is one
    error; a second error, or a caret-less extra line, is still a finding, and under
    --split-input-file each failing chunk has its own error."""
    o = harness.Outcome
    case = harness.Case("lit", "ge-opt", ["input.mlir"])
    located = "input.mlir:2:8: error: bad\n  %y = graph.relu %x\n       ^\n"
    assert harness.check(case, o(1, "", located, 0.1)) == []
    twice = o(1, "", located + located, 0.1)
    assert [f.cls for f in harness.check(case, twice)] == ["error-lines"]
    stray = o(1, "", "input.mlir:2:8: error: bad\n  %y = graph.relu %x\n", 0.1)
    assert [f.cls for f in harness.check(case, stray)] == ["error-lines"]
    split = harness.Case("lit", "ge-opt", ["input.mlir", "--split-input-file"])
    assert harness.check(split, twice) == []
    assert [f.cls for f in harness.check(split, o(1, "", "", 0.1))] == ["error-lines"]


def _sleep(argv: list[str]) -> int:
    import time

    time.sleep(60)
    return 0


def _allocate(argv: list[str]) -> int:
    block = bytearray(int(argv[0]))
    return len(block) & 0


def _touch(argv: list[str]) -> int:
    block = bytearray(int(argv[0]))
    for i in range(0, len(block), 4096):
        block[i] = 1
    return 0


def test_forked_runs_are_bounded_in_time_and_memory(tmp_path: Path) -> None:
    """The worker's own limits: a sleeping and an allocating 'tool' are stopped."""
    case = harness.Case("resource", "ge-run", [])
    hang = harness.run_forked(_sleep, [], tmp_path, timeout=0.3)
    assert hang.timed_out and hang.seconds < 5
    assert [f.cls for f in harness.check(case, hang)] == ["hang"]
    big = harness.run_forked(_allocate, [str(2 * harness.MEMORY_BOUND)], tmp_path)
    assert "MemoryError" in big.stderr and big.rc == 70
    assert [f.cls for f in harness.check(case, big)] == ["memory"]
    small = harness.run_forked(_allocate, [str(1 << 20)], tmp_path)
    assert small.rc == 0 and harness.check(case, small) == []
    # below RLIMIT_AS but above the resident bound: the peak is seen
    resident = harness.run_forked(_touch, [str(harness.RSS_BOUND + (64 << 20))], tmp_path)
    assert resident.rc == 0, resident.stderr
    assert [f.cls for f in harness.check(case, resident)] == ["memory"]


def _while_to(limit: int) -> bytes:
    folder = harness.ROOT / "tests/fuzz/regressions/graph_while_toward_loop_bound_is_loop_work"
    text = (folder / "input.mlir").read_text()
    return text.replace("dense<2147483647>", f"dense<{limit}>").encode()


def test_only_a_run_stopped_in_a_graph_loop_is_loop_work(tmp_path: Path) -> None:
    """`loop_work` excuses a timeout only when the bounded re-run stops at the loop bound: a
    loop that ends before the bound (so the time went elsewhere), another tool, or an input
    without a graph-level loop stays a hang."""
    argv = ["input.mlir", "--entry", "main", "--random-inputs", "0"]
    long_loop = harness.Case("mutated-ir", "ge-run", argv, {"input.mlir": _while_to(2**31 - 1)})
    harness.write_files(long_loop, tmp_path)
    assert harness.loop_work(long_loop, tmp_path)
    hang = harness.run_forked("ge-run", argv, tmp_path, timeout=0.5)
    assert hang.timed_out
    assert harness.judge(long_loop, tmp_path, hang) == []
    short_loop = harness.Case("mutated-ir", "ge-run", argv, {"input.mlir": _while_to(10)})
    harness.write_files(short_loop, tmp_path)
    assert not harness.loop_work(short_loop, tmp_path)
    assert [f.cls for f in harness.judge(short_loop, tmp_path, hang)] == ["hang"]
    source = (harness.ROOT / "examples" / "conv_block.mlir").read_bytes()
    no_loop = harness.Case("lit", "ge-run", ["input.mlir"], {"input.mlir": source})
    harness.write_files(no_loop, tmp_path)
    assert not harness.loop_work(no_loop, tmp_path)
    other_tool = harness.Case("mutated-ir", "ge-opt", argv, {"input.mlir": _while_to(2**31 - 1)})
    assert not harness.loop_work(other_tool, tmp_path)


def test_level_checks_run_every_step_on_a_good_model(tmp_path: Path) -> None:
    """An accepted graph goes through print/parse, the graph run, ge-compile and the ascend run
    with --reference (so a clean level check means the numbers were compared)."""
    source = (harness.ROOT / "examples" / "conv_block.mlir").read_bytes()
    case = harness.Case("lit", "ge-opt", ["input.mlir"], {"input.mlir": source}, check_levels=True)
    harness.write_files(case, tmp_path)
    assert harness.level_checks(case, tmp_path) == []
    for name in ("p1.mlir", "p2.mlir", "graph.npz", "ascend.mlir"):
        assert (tmp_path / name).is_file(), name
    assert "ascend.model" in (tmp_path / "ascend.mlir").read_text()
    assert "MATCH" in (tmp_path / "stdout.txt").read_text()


def test_level_checks_see_a_compiled_model_that_gives_other_numbers(tmp_path: Path) -> None:
    """The comparison is live: a reference of other numbers is a level mismatch."""
    import numpy as np

    source = (harness.ROOT / "examples" / "conv_block.mlir").read_bytes()
    case = harness.Case("lit", "ge-opt", ["input.mlir"], {"input.mlir": source}, check_levels=True)
    harness.write_files(case, tmp_path)
    assert harness.level_checks(case, tmp_path) == []
    with np.load(tmp_path / "graph.npz") as data:
        wrong = {k: data[k] + 1 for k in data.files}
    np.savez(tmp_path / "graph.npz", **wrong)
    argv = ["ascend.mlir", "--random-inputs", "0", "-q", "--reference", "graph.npz"]
    outcome = harness.run_forked("ge-run", argv, tmp_path)
    assert outcome.rc == 1 and "MISMATCH" in outcome.stdout
    assert harness.check(case, outcome) == []  # a verdict, judged by level_checks


def _conv_block_model() -> str:
    return dict(corpora.ascend_seeds())["conv_block"]


def test_relocation_keeps_numbers_only_for_whole_buffers_moved_to_free_memory() -> None:
    """The oracle of edited ascend models demands the unedited numbers only where the edit
    keeps them by construction; a rewiring gets the other checks only."""
    model = _conv_block_model()
    keeps = harness.relocation_keeps_numbers
    assert keeps(model, model)
    # no reference moved: a dropped event keeps the dataflow
    assert keeps(model, model.replace("    ascend.event_wait 0 stream 1\n", "", 1))
    # 40448 (bn1 -> relu1 -> merge) relocated past the arena: the same program
    grown = model.replace("arena_size 56832", "arena_size 65024")
    assert keeps(model, grown.replace("arena[40448]", "arena[56832]"))
    # ... onto 32256, where conv1's output and later buffers live: another program
    assert not keeps(model, model.replace("arena[40448]", "arena[32256]"))
    # 32256 holds 34304 (to_nhwc's output) inside its bytes: moving 32256 leaves it behind
    assert not keeps(model, grown.replace("arena[32256]", "arena[56832]"))
    # one of several references moved: a rewiring, even into free memory
    at = model.index("arena[40448]", model.index('"merge"'))
    one = model[:at] + "arena[56832]" + model[at + len("arena[40448]") :]
    assert not keeps(model, one)
    # a reference the checker cannot size (dynamic shape) is never assumed to keep numbers
    assert not keeps(
        model, model.replace("arena[31744] : tensor<1x10xf32>", "arena[31744] : tensor<?x10xf32>")
    )


def test_output_checks_compare_a_relocated_model_and_not_a_rewired_one(tmp_path: Path) -> None:
    model = _conv_block_model()
    grown = model.replace("arena_size 56832", "arena_size 65024")
    relocated = grown.replace("arena[40448]", "arena[56832]")
    # a relocated model that computes other numbers (one bias changed) is a level mismatch
    wrong = relocated.replace("0.0498820581", "0.5", 1)
    assert wrong != relocated
    for name, edited, want in (
        ("same", relocated, []),
        ("wrong", wrong, ["level-mismatch"]),
        ("rewired", model.replace("arena[40448]", "arena[32256]"), []),
    ):
        files = {"input.mlir": model.encode(), "out.mlir": edited.encode()}
        argv = ["out.mlir", "--random-inputs", "0", "-q"]
        case = harness.Case("ascend", "ge-run", argv, files, check_output=True)
        harness.write_files(case, tmp_path / name)
        assert [f.cls for f in harness.output_checks(case, tmp_path / name)] == want, name


def test_budget_refusal_is_one_line_of_the_memory_budget() -> None:
    o = harness.Outcome
    line = (
        "error: 'ascend.model' @conv_block: its arena (arena_size 9600000000) needs 8.9 GiB, "
        "over the memory limit of 256.0 MiB (raise it with --max-memory or GE_MAX_MEMORY)\n"
    )
    assert harness.budget_refusal(o(1, "", line, 0.1))
    assert not harness.budget_refusal(o(0, "", line, 0.1))
    assert not harness.budget_refusal(o(1, "", "error: arena[3] overlaps arena[0]\n", 0.1))
    assert not harness.budget_refusal(o(1, "", line + line, 0.1))


def test_conv_bn_overflow_excuses_only_differences_at_inf_or_nan(tmp_path: Path) -> None:
    import numpy as np

    inf, nan = np.inf, np.nan

    def differ(a: list[float], b: list[float]) -> bool:
        np.savez(tmp_path / "a.npz", y=np.asarray(a, np.float32))
        np.savez(tmp_path / "b.npz", y=np.asarray(b, np.float32))
        return harness.differs_only_where_non_finite(tmp_path / "a.npz", tmp_path / "b.npz")

    assert differ([nan, nan, 1.0], [-inf, inf, 1.0])
    assert differ([inf, 2.0], [nan, 2.0000001])
    assert not differ([nan, 1.0], [-inf, 1.5])  # a finite difference stays a finding
    assert not differ([1.0, 2.0], [1.0, 3.0])
    # only models holding constants near the float limit qualify
    model = (harness.ROOT / "examples" / "conv_block.mlir").read_text()
    (tmp_path / "plain.mlir").write_text(model)
    (tmp_path / "big.mlir").write_text(model.replace("0.56001538", "3.0e+38", 1))
    assert "3.0e+38" in (tmp_path / "big.mlir").read_text()
    plain = harness.run_forked(harness.extreme_constants, ["plain.mlir"], tmp_path)
    big = harness.run_forked(harness.extreme_constants, ["big.mlir"], tmp_path)
    assert (plain.rc, big.rc) == (1, 0), plain.stderr + big.stderr
