"""Replays a reproducer folder (written by `make fuzz` or kept in tests/fuzz/regressions/).

python -m tests.fuzz.replay tests/fuzz/regressions/<name>   # runs it, prints the findings
python -m tests.fuzz.replay --session '<json>'              # one Session script, as a tool
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from tests.fuzz import harness


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m tests.fuzz.replay")
    p.add_argument("folder", nargs="?")
    p.add_argument("--session", metavar="JSON", help="run one Session script (see harness)")
    args = p.parse_args(argv)
    if args.session is not None:
        return harness.session_main([args.session])
    if args.folder is None:
        p.error("give a reproducer folder or --session JSON")
    case = harness.load_reproducer(Path(args.folder))
    harness.warm_up()
    with tempfile.TemporaryDirectory(prefix="ge-fuzz-replay-") as tmp:
        folder = Path(tmp)
        harness.write_files(case, folder)
        outcome = harness.run_forked(case.tool, case.argv, folder)
        findings = harness.judge(case, folder, outcome)
    print(f"{case.command()}: exit {outcome.rc} in {outcome.seconds:.2f} s")
    if outcome.stderr.strip():
        print("stderr: " + outcome.stderr.strip()[:2000])
    for f in findings:
        print(f"finding {f.cls}: {f.detail}" + (f" [{f.step}]" if f.step else ""))
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
