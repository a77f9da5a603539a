"""`ge-opt`: xdsl-opt with the gedialects dialects and passes, and one-line errors.

`one_line` is re-exported from `gedialects.tools.cli` (the error convention every tool shares).

Every user error (parse, verify, unknown pass, bad option, pass failure, unreadable file) is
printed as one `error:` line, with `file:line:col` where the parser knows it, and exits 1.
Set `GE_DEBUG=1` to get the Python traceback of an internal error instead.

Files ending in `.gebc` or `.om` are the binary IR (`gedialects.bytecode`, docs/binary-format.md),
as input (`ge-opt m.gebc`, `-f gebc` on stdin) and as output (`-o m.gebc`, one module).

Named pipelines (`ge-compile`) are expanded into their stages before running, so that
`--print-between-passes` prints after each stage and `--time-passes` reports each stage: a
table of wall times and percentages on stderr, after the output, as MLIR's `-mlir-timing`.
The module is verified before the first pass and after each one, as mlir-opt does, unless
`--disable-verify`; a pass that leaves the IR exactly as it was verified (same fingerprint,
`gedialects.fingerprint`) is not verified again.
"""

from __future__ import annotations

import argparse
import io
import logging
import os
import sys
import time
from collections.abc import Sequence
from contextlib import nullcontext
from io import BytesIO
from typing import IO

from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass, PassPipeline
from xdsl.printer import Printer
from xdsl.utils.exceptions import ArgSpecParseError, DiagnosticException
from xdsl.xdsl_opt_main import xDSLOptMain

from gedialects import budget, dialect_factories, locations, progress, xdsl_dialect_factories
from gedialects.fingerprint import fingerprint, mark_verified
from gedialects.passes import get_all_passes
from gedialects.tools import cli, diagnostics, pass_catalog, targets

logger = logging.getLogger(__name__)

XDSL_PASSES = ("canonicalize", "cse", "dce")
"""Generic xDSL passes that are useful on our dialects."""


class _DeferredOutput(io.StringIO):
    """Collects the output; xDSL's `run` closes its stream in a `finally`, so close keeps it."""

    def close(self) -> None:
        pass


class GeOptMain(xDSLOptMain):
    """xdsl-opt restricted to gedialects plus a few xDSL dialects and passes."""

    version_format = "ge-opt (gedialects) built on xdsl {xdsl_version}"

    timer: PassTimer | None = None
    deferred_output: _DeferredOutput | None = None
    """The text for `-o FILE`, written by `run` after the last pass succeeded."""
    binary_output: ModuleOp | None = None
    """The module for `-o FILE.gebc` / `FILE.om`, written in binary by `run`."""
    """`--time-passes`: the wall times of parsing, each stage and printing."""
    chunk: diagnostics.ChunkState
    """The chunk being processed, for the locations of its diagnostics."""
    offset: int = 0
    """Lines before the chunk being parsed, in the input file (`--split-input-file`)."""
    failed: bool = False
    """A chunk reported an error (or a mismatch of expected diagnostics): exit code 1."""

    def __init__(
        self, description: str = "gedialects modular optimizer", args: Sequence[str] | None = None
    ) -> None:
        self.chunk = diagnostics.ChunkState()
        super().__init__(description=description, args=args)

    def get_input_stream(self) -> tuple[IO[bytes], str]:
        """The input read whole within the memory budget; only a regular file (or stdin)."""
        path = self.args.input_file
        if path in (None, "-"):
            return stdin_stream()
        stream = BytesIO(budget.read_file(path))
        stream.name = path  # parse_onnx finds external data by it
        return stream, os.path.splitext(path)[1].replace(".", "")

    def get_input_name(self) -> str:
        path = self.args.input_file
        return "<stdin>" if path in (None, "-") else path

    def run(self) -> None:
        cli.configure_output(self.args, "ge-opt")
        self.timer = PassTimer() if self.args.time_passes else None
        self.deferred_output = None
        self.binary_output = None
        with budget.max_memory_set(cli.max_memory(self.args)):
            self.run_chunks()
            if self.failed:
                return
            if self.binary_output is not None:
                self.write_binary(self.args.output_file, self.binary_output)
                self.deferred_output = None
        if self.deferred_output is not None:
            try:
                with open(self.args.output_file, "w", encoding="utf-8") as out:
                    out.write(self.deferred_output.getvalue())
            except OSError as e:
                raise cli.cannot_write(self.args.output_file, e) from None
        if self.timer is not None:
            sys.stdout.flush()
            sys.stderr.write(self.timer.report())

    def apply_passes(self, prog: ModuleOp) -> None:
        """Runs the pipeline with named pipelines expanded into their stages (expanded here,
        inside the memory budget of `--max-memory`, which their defaults read)."""
        from gedialects.passes.pipelines import StageProgress, expand_pipelines

        groups: list[tuple[str, ModulePass]] = []
        for p in self.pipeline.passes:
            stages = expand_pipelines([p])
            group = p.name if stages != (p,) else ""
            groups += [(group, stage) for stage in stages]
        group_of = {id(stage): group for group, stage in groups}
        runs: dict[str, int] = {}
        label_of: dict[int, str] = {}
        for _, stage in groups:  # a pass that runs twice is timed as `name (2)`
            runs[stage.name] = runs.get(stage.name, 0) + 1
            n = runs[stage.name]
            label_of[id(stage)] = stage.name if n == 1 else f"{stage.name} ({n})"
        timer = self.timer
        verify = not self.args.disable_verify
        between = self.args.print_between_passes
        stages = tuple(stage for _, stage in groups)
        bar = progress.task("running passes", total=len(stages), unit="passes")
        log = StageProgress(bar)

        tracker = self.chunk.tracker
        verified: list[object] | None = None  # the fingerprint of the IR last verified

        def callback(prev: ModulePass | None, module: ModuleOp, nxt: ModulePass | None) -> None:
            nonlocal verified
            log(prev, module, nxt)
            if timer is not None and prev is not None:
                timer.stop(group_of[id(prev)], label_of[id(prev)])
            tracker.verifying(prev)
            if verify:
                # a stage that left the IR as it was verified needs no verification again
                now = fingerprint(module)
                if now != verified:
                    module.verify()
                    verified = now
                    mark_verified(module, now)  # ge-verify-graph need not verify it again
            tracker.starting(nxt)
            if prev is not None and nxt is not None and between:
                print(f"IR after {prev.name}:")
                Printer(stream=sys.stdout).print_op(module)
                print("\n\n\n")
            if timer is not None:
                timer.start()

        with bar:
            PassPipeline(stages, callback).apply(self.ctx, prog)

    def write_binary(self, path: str, module: ModuleOp) -> None:
        from gedialects.bytecode import dump, kind_for_path
        from gedialects.tools.ge_import import write_atomically

        if self.timer is not None:
            self.timer.start()
        data = dump(module, kind_for_path(path))
        if self.timer is not None:
            self.timer.stop("", "Output")
        write_atomically(path, data)

    def output_resulting_program(self, prog: ModuleOp) -> str:
        from gedialects.bytecode import is_binary_path

        path = self.args.output_file
        if path is not None and is_binary_path(path):
            if self.binary_output is not None:
                raise cli.UserError(
                    f"-o {path}: a binary IR file holds one module; --split-input-file gave "
                    "several (write text, or one file per module)"
                )
            self.binary_output = prog
            return ""
        if self.timer is None:
            return super().output_resulting_program(prog)
        self.timer.start()
        text = super().output_resulting_program(prog)
        self.timer.stop("", "Output")
        return text

    def register_all_dialects(self) -> None:
        for name, factory in (xdsl_dialect_factories() | dialect_factories()).items():
            self.ctx.register_dialect(name, factory)

    def register_all_arguments(self, arg_parser: argparse.ArgumentParser) -> None:
        cli.one_line_errors(arg_parser, "ge-opt")
        names = ",".join(self.available_passes)
        helps = {"-p": pass_catalog.PASSES_HELP.format(names=names), "-t": targets.TARGET_HELP}
        with pass_catalog.overriding_help(arg_parser, helps), cli.without_short_version(arg_parser):
            super().register_all_arguments(arg_parser)
        pass_catalog.add_arguments(arg_parser, self.available_passes)
        arg_parser.add_argument("--max-memory", metavar="SIZE", help=budget.MAX_MEMORY_HELP)
        cli.add_verbosity(arg_parser)
        arg_parser.add_argument(
            "--verify-expected-diagnostics",
            action="store_true",
            help="check the diagnostics against the input's `// expected-error {{...}}` "
            "annotations (also -warning, -note, -remark; @+N, @-N, @above, @below), as "
            "mlir-opt -verify-diagnostics does: exit 1 naming each unmatched line",
        )

    def register_all_frontends(self) -> None:
        super().register_all_frontends()
        self.available_frontends["onnx"] = parse_onnx

        def parse_checked(io: IO[bytes]) -> ModuleOp:
            from gedialects.nesting import check_nesting

            source = locations.Source(self.get_input_name(), io.read().decode(), self.offset)
            self.chunk.source = source
            check_nesting(source.text, source.name)
            return locations.parse_mlir(self.ctx, source, not self.args.no_implicit_module)

        self.available_frontends["mlir"] = parse_checked

        def parse_binary(io: IO[bytes]) -> ModuleOp:
            from gedialects.bytecode import load

            return load(io.read(), self.ctx, self.get_input_name())

        self.available_frontends["gebc"] = parse_binary
        self.available_frontends["om"] = parse_binary

    def prepare_output(self) -> IO[str]:
        """`-o FILE` is written only once every pass has succeeded: xDSL opens it before the
        passes run, which left an empty or partial file behind a failed pass."""
        if self.args.output_file in (None, "-"):
            return sys.stdout
        self.deferred_output = _DeferredOutput()
        return self.deferred_output

    def parse_chunk(
        self, chunk: IO[bytes], file_extension: str, start_offset: int = 0
    ) -> ModuleOp | None:
        """Parses as xdsl-opt does; a module holding an `ascend.model` is verified here and
        its memory plan proved (`passes.verify_model`: it needs the pass layer's liveness,
        which the dialect verifier cannot import) before any pass runs."""
        if self.timer is not None:
            self.timer.start()
        # the ONNX import has a bar of its own, over the model's nodes
        name = self.get_input_name()
        what = f"parsing {os.path.basename(name)}" if file_extension != "onnx" else ""
        begin = time.perf_counter()
        with progress.task(what) if what else nullcontext():
            self.offset = start_offset
            module = self.chunk.module = super().parse_chunk(chunk, file_extension, start_offset)
        logger.info("parsed %s in %.3f s", name, time.perf_counter() - begin)
        if self.timer is not None:
            self.timer.stop("", "Parser")
        if module is not None and not self.args.disable_verify:
            from gedialects.ascend import ModelOp

            if any(isinstance(op, ModelOp) for op in module.ops):
                from gedialects.passes.verify_model import verify_models

                module.verify()
                verify_models(module)
        return module

    def register_all_targets(self) -> None:
        self.available_targets.update(targets.TARGETS)

    def setup_pipeline(self) -> None:
        """xDSL's pipeline, each pass name and option checked first (`pass_catalog`); the
        callback is `apply_passes`'s."""
        try:
            passes = pass_catalog.build_pipeline(self.available_passes, self.args.passes)
        except pass_catalog.PipelineError as e:
            raise cli.UserError(f"bad pass pipeline: {e}") from None
        self.pipeline = PassPipeline(passes)

    def run_chunks(self) -> None:
        """xdsl-opt's `run` loop, with every chunk processed and errors in MLIR's form
        (`diagnostics.run_chunks`)."""
        chunks, extension = self.prepare_input()
        output = self.prepare_output()
        try:
            ok = diagnostics.run_chunks(
                self.chunk,
                chunks,
                self.get_input_name(),
                output,
                lambda chunk, offset: self.parse_chunk(chunk, extension, offset),
                self.apply_passes,
                self.output_resulting_program,
                verify_diagnostics=self.args.verify_diagnostics,
                parsing_diagnostics=self.args.parsing_diagnostics,
                expected_diagnostics=self.args.verify_expected_diagnostics,
            )
        finally:
            if output is not sys.stdout:
                output.close()
        self.failed = not ok

    def register_all_passes(self) -> None:
        from xdsl.transforms import get_all_passes as xdsl_passes

        stock = xdsl_passes()
        for name in XDSL_PASSES:
            self.register_pass(name, stock[name])
        for name, factory in get_all_passes().items():
            self.register_pass(name, factory)


class PassTimer:
    """Wall times by (pipeline, name), summed over input chunks, in first-seen order; the
    report is MLIR's execution time report (`-mlir-timing`): each stage under its pipeline."""

    def __init__(self) -> None:
        self.times: dict[tuple[str, str], float] = {}
        self.begin = time.perf_counter()

    def start(self) -> None:
        self.begin = time.perf_counter()

    def stop(self, group: str, name: str) -> None:
        key = (group, name)
        self.times[key] = self.times.get(key, 0.0) + time.perf_counter() - self.begin

    def report(self) -> str:
        total = sum(self.times.values())
        rows: list[tuple[float, str]] = []
        seen: set[str] = set()
        for group, name in self.times:
            if not group:
                rows.append((self.times[(group, name)], name))
            elif group not in seen:
                seen.add(group)
                stages = [(t, n) for (g, n), t in self.times.items() if g == group]
                rows.append((sum(t for t, _ in stages), f"'{group}' Pipeline"))
                rows += [(t, f"  {n}") for t, n in stages]
        rule = "===" + "-" * 73 + "==="
        lines = [
            rule,
            "... Execution time report ...".center(len(rule)).rstrip(),
            rule,
            f"  Total Execution Time: {total:.4f} seconds",
            "",
            "  ----Wall Time----  ----Name----",
        ]
        for seconds, name in [*rows, (total, "Total")]:
            share = 100.0 * seconds / total if total > 0 else 0.0
            lines.append(f"  {seconds:8.4f} ({share:5.1f}%)  {name}")
        return "\n".join(lines) + "\n\n"


def stdin_stream() -> tuple[IO[bytes], str]:
    """Stdin and its front end by its first bytes (`tools.streams.sniff`: text, binary IR or
    ONNX); `-f` still decides when given."""
    from gedialects.tools import streams

    data = streams.read_stdin()
    return BytesIO(data), {"binary": "gebc", "onnx": "onnx"}.get(streams.sniff(data), "mlir")


def parse_onnx(stream: IO[bytes]) -> ModuleOp:
    """The `.onnx` front end (also `-f onnx` on stdin); onnx is imported only here."""
    from gedialects.frontend.onnx import import_proto, load_model

    name = getattr(stream, "name", None)
    path = name if isinstance(name, str) and os.path.isfile(name) else "<stdin>"
    return import_proto(load_model(path, stream.read()), path)


def main(
    argv: Sequence[str] | None = None, description: str = "gedialects modular optimizer"
) -> int:
    def body() -> int:
        try:
            opt = GeOptMain(description=description, args=argv)
            cli.check_output(opt.args.output_file, "-o/--output-file")
            opt.run()
            if opt.failed:
                return 1
        except ArgSpecParseError as e:
            # The pipeline parser's message spans lines (spec, caret, reason): keep the reason.
            lines = [ln for ln in str(e).splitlines() if ln.strip()]
            raise cli.UserError(f"bad pass pipeline: {lines[-1].strip() if lines else e}") from None
        return 0

    return cli.run_main(
        "ge-opt",
        body,
        (DiagnosticException, ValueError, OSError, UnicodeDecodeError),
        prefix=argv_input(argv),
    )


def argv_input(argv: Sequence[str] | None) -> str | None:
    """The input file named on the command line, if any (for error prefixes)."""
    args = list(sys.argv[1:] if argv is None else argv)
    skip = {"-p", "--passes", "-o", "--output-file", "-t", "--target", "-f", "--frontend"}
    skip.add("--max-memory")
    i = 0
    while i < len(args):
        if args[i] in skip:
            i += 2
            continue
        if not args[i].startswith("-"):
            return args[i]
        i += 1
    return None


if __name__ == "__main__":
    sys.exit(main())
