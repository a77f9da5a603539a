"""The long fuzz run behind `make fuzz`: new seeds each run, reproducers for every new finding.

    python -m tests.fuzz.run                      # GE_FUZZ_MINUTES (default 30) minutes
    python -m tests.fuzz.run --minutes 10 --seed 7 --out fuzz-findings --jobs 2

Each case runs in a forked worker with a hard timeout and an address-space limit (every
`--subprocess-every`-th one as the installed console script instead); findings are grouped by
signature (class, tool, error text without numbers), and the first input of each group is
written to `OUT/<class>/<n>/` with `repro.sh`, the input files and `case.json`. Findings of
the known, still open classes of `tests/fuzz/known.py` are counted but written only under
`--keep-known`. Exit code 1 when a new finding was made.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

from tests.fuzz import corpora, harness, known


def _cases(rng: random.Random, deadline: float, families: list[str]) -> Iterator[harness.Case]:
    while time.monotonic() < deadline:
        family = rng.choice(families)
        yield corpora.FAMILIES[family](rng)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="make fuzz", description=__doc__.splitlines()[0])
    p.add_argument("--minutes", type=float, default=float(os.environ.get("GE_FUZZ_MINUTES", "30")))
    p.add_argument("--seed", type=int, default=None, help="default: new each run (printed)")
    p.add_argument("--out", default=os.environ.get("GE_FUZZ_OUT", "fuzz-findings"))
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--subprocess-every", type=int, default=25)
    p.add_argument("--families", default=",".join(corpora.FAMILIES))
    p.add_argument("--keep-known", action="store_true", help="also write known findings")
    args = p.parse_args(argv)
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1 << 32)
    families = [f for f in args.families.split(",") if f]
    for f in families:
        if f not in corpora.FAMILIES:
            p.error(f"unknown family {f!r}; known: {', '.join(corpora.FAMILIES)}")
    out = Path(args.out)
    print(
        f"fuzz: seed {seed}, {args.minutes:g} min, families {','.join(families)}, "
        f"findings in {out}/",
        flush=True,
    )
    harness.warm_up()
    rng = random.Random(seed)
    runs: Counter[str] = Counter()
    by_class: Counter[str] = Counter()
    known_counts: Counter[str] = Counter()
    seen: dict[str, int] = {}
    new = 0
    start = time.monotonic()
    last_report = start

    def on_result(case: harness.Case, outcome: harness.Outcome, findings: list) -> None:
        nonlocal new, last_report
        runs[case.family] += 1
        for f in findings:
            entry = known.classify(f)
            if entry is not None:
                known_counts[entry.id] += 1
                if not args.keep_known:
                    continue
            by_class[f.cls] += 1
            sig = f.signature()
            if sig in seen:
                seen[sig] += 1
                continue
            seen[sig] = 1
            if entry is None:
                new += 1
            folder = out / f.cls / f"{len([s for s in seen if s.startswith(f.cls + '|')]):03d}"
            if folder.exists():
                shutil.rmtree(folder)
            harness.write_reproducer(f, folder)
            print(
                f"  {f.cls}: {case.family}/{case.note[:80]}: {f.detail[:160]} -> {folder}",
                flush=True,
            )
        if time.monotonic() - last_report > 60:
            last_report = time.monotonic()
            print(
                f"  ... {sum(runs.values())} inputs, {sum(by_class.values())} new findings "
                f"({len(seen)} distinct), {sum(known_counts.values())} known",
                flush=True,
            )

    deadline = start + args.minutes * 60
    with tempfile.TemporaryDirectory(prefix="ge-fuzz-") as tmp:
        work = Path(tmp)
        batch = 0
        while time.monotonic() < deadline:
            # batches keep the scratch folder small
            cases = _cases(rng, min(deadline, time.monotonic() + 30), families)
            harness.run_cases(
                cases,
                work / f"b{batch}",
                jobs=args.jobs,
                subprocess_every=args.subprocess_every,
                on_result=on_result,
            )
            shutil.rmtree(work / f"b{batch}", ignore_errors=True)
            batch += 1
    elapsed = time.monotonic() - start
    total = sum(runs.values())
    print(f"fuzz: {total} inputs in {elapsed / 60:.1f} min (seed {seed})")
    print("  inputs by family: " + ", ".join(f"{k} {v}" for k, v in sorted(runs.items())))
    print(
        "  new findings by class: "
        + (", ".join(f"{k} {v}" for k, v in sorted(by_class.items())) or "none")
        + f" ({len(seen)} distinct, reproducers in {out}/)"
    )
    print(
        "  known open findings: "
        + (", ".join(f"{k} {v}" for k, v in sorted(known_counts.items())) or "none")
    )
    return 1 if new else 0


if __name__ == "__main__":
    sys.exit(main())
