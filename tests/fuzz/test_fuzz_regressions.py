"""One test per reproducer in tests/fuzz/regressions/: the input must now keep the promises
of `tests.fuzz.harness.check` (and, for accepted inputs, agree across levels and through the
text). Reproducers of open classes (`tests/fuzz/known.py`) are strict xfails naming the owner,
expected to fail only with their own class (so the class's pattern is checked to recognise its
reproducer); when the owner's fix lands they XPASS and the class is closed by deleting its
entry.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.fuzz import harness, known

pytestmark = pytest.mark.fuzz

REGRESSIONS = Path(__file__).parent / "regressions"
FOLDERS = sorted(p for p in REGRESSIONS.iterdir() if (p / "case.json").is_file())


def _meta(folder: Path) -> dict:
    return json.loads((folder / "case.json").read_text())


class OpenFinding(AssertionError):
    """The reproducer still shows its finding, and only findings of its open class."""


def _param(folder: Path) -> object:
    entry = known.BY_ID.get(_meta(folder).get("known", ""))
    marks = []
    if entry is not None:
        # only OpenFinding is the expected failure: a finding of another class fails for real
        reason = f"open, owner {entry.owner}: {entry.what}"
        marks.append(pytest.mark.xfail(strict=True, raises=OpenFinding, reason=reason))
    return pytest.param(folder, id=folder.name, marks=marks)


@pytest.fixture(scope="module", autouse=True)
def _warm() -> None:
    harness.warm_up()


@pytest.mark.parametrize("folder", [_param(f) for f in FOLDERS])
def test_fuzz_regression(folder: Path, tmp_path: Path) -> None:
    meta = _meta(folder)
    case = harness.load_reproducer(folder)
    harness.write_files(case, tmp_path)
    timeout = float(meta.get("timeout", harness.TIME_BOUND))
    outcome = harness.run_forked(case.tool, case.argv, tmp_path, timeout)
    findings = harness.judge(case, tmp_path, outcome, timeout)
    text = "; ".join(f"{f.cls}: {f.detail} {f.step}" for f in findings)
    entry = known.BY_ID.get(meta.get("known", ""))
    if findings and entry is not None and all(known.classify(f) == entry for f in findings):
        raise OpenFinding(f"{entry.id} (owner {entry.owner}): {text}")
    assert not findings, text
    if case.expect == "rejected":
        assert outcome.rc == 1


def test_every_open_class_has_a_regression_and_every_regression_names_its_class() -> None:
    named = {_meta(f).get("known", "") for f in FOLDERS}
    assert set(known.BY_ID) <= named, (
        f"open classes without a reproducer: {set(known.BY_ID) - named}"
    )
    for folder in FOLDERS:
        meta = _meta(folder)
        assert meta.get("known"), f"{folder.name}: case.json names no finding class"
        assert (folder / "case.json").is_file()


def test_every_input_a_reproducer_names_is_in_git() -> None:
    """A file of a reproducer is committed or generated (a git-ignored `.npz` left out of the
    commit would make the reproducer a missing-file error that passes as a refusal)."""
    import subprocess

    listed = subprocess.run(
        ["git", "ls-files", "."], capture_output=True, text=True, cwd=REGRESSIONS
    )
    if listed.returncode != 0:
        pytest.skip("not a git checkout")
    tracked = set(listed.stdout.split())
    for folder in FOLDERS:
        generated = set(_meta(folder).get("generated", {}))
        for path in folder.iterdir():
            rel = f"{folder.name}/{path.name}"
            assert path.name in generated or rel in tracked, f"{rel} is not committed"
