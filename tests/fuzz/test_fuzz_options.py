"""Hypothesis properties over option strings: Session options and graph options in process,
`ge-atc` flags through the forked tool. Derandomized with small example counts (the bounded
run); `make fuzz` explores option strings with new seeds (corpora `atc-options`, `session`).
"""

from __future__ import annotations

import signal
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.fuzz import corpora, harness

pytestmark = pytest.mark.fuzz

BOUNDED = settings(
    derandomize=True,
    max_examples=25,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)

OPTION_TEXT = st.text(
    alphabet=st.sampled_from("0123456789,;:-x \u0661\uff15AIcoreEngine.e+_"), max_size=24
)
OPTION_NAMES = st.sampled_from(corpora.SESSION_OPTION_NAMES)


@contextmanager
def seconds(limit: int) -> Iterator[None]:
    """A hang in process becomes a failure (SIGALRM), not a stuck suite."""

    def expired(signum: int, frame: object) -> None:
        raise TimeoutError(f"no answer in {limit} s")

    old = signal.signal(signal.SIGALRM, expired)
    signal.alarm(limit)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def _session_outcome(options: object, graph_options: object) -> str:
    from gedialects.session import GEError, Session

    with seconds(10):
        try:
            session = Session(options)  # type: ignore[arg-type]
            session.add_graph(1, corpora.SESSION_GRAPH, graph_options)  # type: ignore[arg-type]
            session.compile_graph(1)
        except GEError as e:
            assert "\n" not in str(e).strip(), f"message of more than one line: {e}"
            assert str(e).strip(), "empty message"
            return type(e).__name__
    return "accepted"


@BOUNDED
@given(
    st.dictionaries(OPTION_NAMES, OPTION_TEXT, max_size=3),
    st.dictionaries(OPTION_NAMES, OPTION_TEXT, max_size=3),
)
def test_session_string_options_compile_or_raise_one_line_gerror(
    options: dict[str, str], graph_options: dict[str, str]
) -> None:
    _session_outcome(options, graph_options)


@BOUNDED
@given(
    st.sampled_from(
        (
            "ge.exec.static_model_ops_lower_limit",
            "ge.streamMaxParallelNum",
            "ge.inputShape",
        )
    ),
    st.sampled_from(("\u0661", "\u0662", "\uff15", "\u0967")),
)
def test_session_options_with_non_ascii_digits_are_rejected(name: str, digit: str) -> None:
    value = {
        "ge.exec.static_model_ops_lower_limit": digit,
        "ge.streamMaxParallelNum": f"AIcoreEngine:{digit}",
        "ge.inputShape": f"x:{digit},4",
    }[name]
    assert _session_outcome({name: value}, None) == "OptionError"


@BOUNDED
@given(
    st.one_of(
        st.lists(st.tuples(OPTION_NAMES, OPTION_TEXT), max_size=2),
        st.integers(),
        st.text(max_size=5),
        st.dictionaries(OPTION_NAMES, st.one_of(st.integers(), st.none(), st.lists(st.text()))),
    )
)
def test_session_options_of_other_types_raise_option_error(options: object) -> None:
    expected = "accepted" if isinstance(options, dict) and not options else "OptionError"
    assert _session_outcome(options, None) == expected


ATC_MODEL = next(s for s in corpora.onnx_seeds() if s[0] == "mlp.onnx")  # input "features" [4, 32]


@settings(BOUNDED, max_examples=10)
@given(
    st.sampled_from(("--input_shape", "--dynamic_batch_size", "--dynamic_dims")),
    OPTION_TEXT,
    st.booleans(),
)
def test_atc_option_strings_compile_or_fail_in_one_line(flag: str, value: str, pin: bool) -> None:
    assert ATC_MODEL[0] == "mlp.onnx"
    argv = ["--model=model.onnx", "--output=out", f"{flag}={value}"]
    if pin and flag != "--input_shape":
        argv.append("--input_shape=features:-1,32")
    with tempfile.TemporaryDirectory(prefix="ge-fuzz-atc-") as tmp:
        case = harness.Case("atc-options", "ge-atc", argv, {"model.onnx": ATC_MODEL[1]})
        harness.write_files(case, Path(tmp))
        outcome = harness.run_forked("ge-atc", argv, Path(tmp))
        findings = harness.check(case, outcome)
        assert not findings, f"{case.command()}: {findings[0].cls}: {findings[0].detail}"
        if outcome.rc == 0:
            assert (Path(tmp) / "out.mlir").is_file()


def test_long_sunk_loops_are_compiled_but_their_runs_not_timed() -> None:
    """Fuzz seed 20261204: `ge-compile{iterations-per-loop=1000000}` is accepted work, and its
    run takes a million iterations' time; the harness checks the compile, not the run."""
    import random

    rng = random.Random(0)
    cases = [corpora.pass_case(rng) for _ in range(3000)]
    long_loops = [c for c in cases if corpora._long_sunk_loop(c.note)]
    assert long_loops, "the seed draws no long sunk loop any more"
    assert not any(c.check_output for c in long_loops)
    assert corpora._long_sunk_loop("ge-compile{iterations-per-loop=1001}")
    assert not corpora._long_sunk_loop("ge-compile{iterations-per-loop=1000 max-streams=2}")
