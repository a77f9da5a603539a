"""`ge-atc`: GE's offline model compiler, atc, for ONNX models.

    ge-atc --model=cnn.onnx --output=cnn --input_shape="image:-1,3,16,16" \\
           --dynamic_batch_size="1,4,8" [--hybrid] [--framework=5] [--soc_version=Ascend310]
    ge-run cnn.om --inputs in.npz
    ge-atc ... --dynamic_dims="1;4;8" --dynamic_node_type=0   # GetNext sink
    ge-run cnn.om --inputs b1.npz --inputs b8.npz --inputs b4.npz  # a queue of input sets

One command for import (`ge-import`) and `ge-compile` with atc's options (gears through
`ge-expand-multibatch`, its first stage, when a dynamic option is given); writes the offline
model `OUT.om`, as atc does (the binary IR holding the compiled `ascend` module, weights as raw
bytes, and the compile options: docs/binary-format.md), and next to it `OUT.mlir`, the same
module as text (large weights as `dense<"0x...">` hex). `--emit=om` or `--emit=mlir` writes
only one of them.
atc's spelling: `--flag=value` (or `--flag value`); `--soc_version` is accepted and ignored
with a note (the interpreter is the device). Every user error is one `error:` line, exit 1,
and nothing is written. `GE_DEBUG=1` gives the traceback of an internal error.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from gedialects.budget import MAX_MEMORY_HELP
from gedialects.tools import cli

if TYPE_CHECKING:
    from xdsl.dialects.builtin import ModuleOp

DESCRIPTION = "Compile an ONNX model into a gedialects ascend model (GE's atc)."

ONNX_FRAMEWORK = "5"
FRAMEWORKS = {"0": "Caffe", "1": "MindSpore", "3": "TensorFlow", "5": "ONNX"}
"""atc's --framework values (GE's domi::FrameworkType)."""


START_LINE = "ATC start working now, please wait for a moment."
SUCCESS_LINE = "ATC run success, welcome to the next use."
"""atc's first and last lines on stdout (GE api/atc/main_impl.cc, `main_impl`, prints them
with std::cout); a failure prints no success line and the one `error:` line on stderr."""

AtcError = cli.UserError
"""A user error; the message is one line."""


def _parser() -> argparse.ArgumentParser:
    p = cli.ArgumentParser(prog="ge-atc", description=DESCRIPTION, allow_abbrev=False)
    p.add_argument(
        "--model", required=True, metavar="M.onnx", help="the ONNX model (-: read stdin)"
    )
    p.add_argument(
        "--output",
        required=True,
        metavar="OUT",
        help="writes OUT.om and OUT.mlir (OUT may end in .om or .mlir); - writes the one file "
        "--emit names to stdout",
    )
    p.add_argument(
        "--emit",
        default="both",
        choices=["both", "om", "mlir"],
        help="which files to write: the offline model OUT.om, the text OUT.mlir, or both",
    )
    p.add_argument("--framework", default=ONNX_FRAMEWORK, help="5 (ONNX), the only one read")
    p.add_argument("--input_shape", default="", help='"name:d0,d1,...;name2:..." (-1: gear dim)')
    p.add_argument("--dynamic_batch_size", default="", help='"1,4,8"')
    p.add_argument("--dynamic_image_size", default="", help='"h,w;h,w"')
    p.add_argument("--dynamic_dims", default="", help='"d,d;d,d"')
    p.add_argument("--input_format", default="NCHW", help="NCHW or NHWC (image sizes)")
    p.add_argument(
        "--dynamic_node_type",
        default="1",
        metavar="0|1",
        help="GE's ge.dynamicNodeType: 1 the inputs are Data (the host passes the gear); 0 a "
        "GetNext feeds them (GetNext sink: ge-run pulls one --inputs set per run, the gear is "
        "read off their shapes)",
    )
    p.add_argument(
        "--hybrid",
        nargs="?",
        const="true",
        default="false",
        choices=["true", "false"],
        help="also keep the fully dynamic graph for shapes of no gear (compiled beside the gear "
        "graph on a second worker, as GE's hybrid mode and the Session do)",
    )
    p.add_argument(
        "--static_branches",
        nargs="?",
        const="true",
        default="false",
        choices=["true", "false"],
        help="GE's refusal of a gear branch with data-dependent shapes ('Multi-batch not "
        "support middle dynamic shape'); by default such a branch is partitioned into static "
        "and dynamic parts",
    )
    p.add_argument(
        "--fusion_switch_file",
        default="",
        metavar="F.json",
        help='GE\'s fusion switch JSON ({"Switch": {"GraphFusion": {"ALL": "off"}}}; names '
        "are ge-fuse kinds)",
    )
    p.add_argument("--soc_version", default="", help="accepted for atc compatibility; ignored")
    p.add_argument("--graph-name", default=None, help="model symbol (default: from the model)")
    p.add_argument("--max-memory", metavar="SIZE", help=MAX_MEMORY_HELP)
    cli.add_verbosity(p, "print only errors: no start and success lines, notes, bars or logs")
    return p


def output_path(output: str) -> str:
    """`OUT.mlir` for `--output=OUT` (or `OUT.mlir`, `OUT.om`); an empty OUT or a folder is
    refused (`--output=` would write `./.mlir`)."""
    cli.check_output(output, "--output")
    stem = output.removesuffix(".om") if output.endswith(".om") else output.removesuffix(".mlir")
    path = stem + ".mlir"
    if not os.path.basename(stem):
        raise cli.UsageError(f"--output: '{output}' names no file; give OUT, OUT.om or OUT.mlir")
    cli.check_output(path, "--output")
    cli.check_output(om_path(path), "--output")
    return path


def om_path(mlir_path: str) -> str:
    """The offline model written next to `OUT.mlir`."""
    return mlir_path.removesuffix(".mlir") + ".om"


def compile_options(args: argparse.Namespace) -> dict[str, str]:
    """What the .om records of how it was made: atc's options as given (GE keeps them in the
    model's attributes too) and the producer."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        producer = f"gedialects {version('gedialects')}"
    except PackageNotFoundError:
        producer = "gedialects"
    options = {
        "producer": f"{producer} ge-atc",
        "model": "<stdin>" if args.model == "-" else os.path.basename(args.model),
        "framework": args.framework,
        "input_shape": args.input_shape,
        "dynamic_batch_size": args.dynamic_batch_size,
        "dynamic_image_size": args.dynamic_image_size,
        "dynamic_dims": args.dynamic_dims,
        "input_format": args.input_format,
        "dynamic_node_type": args.dynamic_node_type,
        "hybrid": args.hybrid,
        "static_branches": args.static_branches,
        "soc_version": args.soc_version,
    }
    if args.graph_name is not None:
        options["graph_name"] = args.graph_name
    return options


def compile_model(args: argparse.Namespace) -> ModuleOp:
    """The compiled module: import, then `ge-compile` with the gear options (its stages start
    with the gear expansion when one is given)."""
    from xdsl.utils.exceptions import PassFailedException

    from gedialects import make_context
    from gedialects.gear_options import GearError
    from gedialects.passes.pipelines import CompilePipelinePass

    if args.framework != ONNX_FRAMEWORK:
        name = FRAMEWORKS.get(args.framework, "unknown")
        raise AtcError(
            f"--framework={args.framework} ({name}) is not supported: ge-atc reads ONNX models "
            f"(--framework={ONNX_FRAMEWORK})"
        )
    gears = any((args.dynamic_batch_size, args.dynamic_image_size, args.dynamic_dims))
    hybrid = args.hybrid == "true"
    if hybrid and not gears:
        raise AtcError(
            "--hybrid needs gears: give --dynamic_batch_size, --dynamic_image_size or "
            "--dynamic_dims"
        )
    if args.dynamic_node_type not in ("0", "1"):
        raise AtcError(
            f"E10001: Value {args.dynamic_node_type} for parameter --dynamic_node_type is "
            "invalid. Reason: it must be 0 (GetNext) or 1 (Data)."
        )
    if hybrid and args.dynamic_node_type == "0":
        raise AtcError(
            "E10001: Value 0 for parameter --dynamic_node_type is invalid. Reason: --hybrid "
            "needs Data inputs (--dynamic_node_type=1)."
        )
    from gedialects.runtime.fusion_switch import FusionSwitchError, read_fusion_switch
    from gedialects.tools.ge_import import import_onnx

    fusion, fusions_off = True, ()
    if args.fusion_switch_file:
        try:
            fusion, fusions_off = read_fusion_switch(args.fusion_switch_file)
        except FusionSwitchError as e:
            raise AtcError(f"--fusion_switch_file: {e}") from None
    module = import_onnx(args.model, args.graph_name)
    if args.dynamic_node_type == "0":
        from gedialects.passes.getnext import SinkInputsPass

        try:
            SinkInputsPass().apply(make_context(), module)
        except PassFailedException as e:
            raise AtcError(str(e).strip().splitlines()[0]) from None
    pipeline = CompilePipelinePass(
        fusion=fusion,
        disable_fusion=fusions_off,
        input_shape=args.input_shape,
        dynamic_batch_size=args.dynamic_batch_size,
        dynamic_image_size=args.dynamic_image_size,
        dynamic_dims=args.dynamic_dims,
        input_format=args.input_format,
        static_branches=args.static_branches == "true",
    )
    try:
        if hybrid:
            # GE's UserHybridGraphManager, as the Session: the gear graph and the graph
            # without gears compiled concurrently on two workers
            from dataclasses import replace

            from gedialects.errors import GraphError, OptionError
            from gedialects.runtime.compile import compile_hybrid

            no_gears = replace(
                pipeline, dynamic_batch_size="", dynamic_image_size="", dynamic_dims=""
            )
            try:
                compile_hybrid(module, pipeline, no_gears, None)
            except (GraphError, OptionError) as e:
                raise AtcError(str(e).strip().splitlines()[0]) from None
        else:
            pipeline.apply(make_context(), module)
    except GearError as e:
        raise AtcError(e.one_line) from None
    except PassFailedException as e:
        raise AtcError(str(e).strip().splitlines()[0]) from None
    module.verify()
    return module


def run_cli(argv: Sequence[str] | None) -> int:
    from gedialects.tools.ge_import import render

    args = _parser().parse_args(argv)
    cli.configure_output(args, "ge-atc")
    to_stdout = args.output == "-"
    if to_stdout and args.emit == "both":
        raise cli.UsageError(
            "--output=- writes one file to stdout: give --emit=om or --emit=mlir with it"
        )
    path = "-" if to_stdout else output_path(args.output)
    # atc's lines go to stdout, as atc prints them, unless the model itself does
    words = sys.stderr if to_stdout else sys.stdout
    if not args.quiet:
        print(START_LINE, file=words, flush=True)
    if args.soc_version and not args.quiet:
        print(
            f"note: --soc_version={args.soc_version} is ignored: the ascend model runs on the "
            "gedialects interpreter",
            file=sys.stderr,
        )
    from gedialects.base import paused_gc
    from gedialects.budget import max_memory_set

    # No cyclic collection from the import to the written outputs: the module lives until
    # the end, and the collections found next to nothing to free in it (the same peak memory
    # at 100k bench nodes) but each full one walked the whole heap: 17 of the 82 s of CPU
    # at 100k nodes (6 s in the passes, 7 in the one collection the .om writer triggered).
    with max_memory_set(cli.max_memory(args)), paused_gc():
        module = compile_model(args)
        om = None
        if args.emit in ("both", "om"):
            from gedialects.bytecode import KIND_OFFLINE_MODEL, dump

            om = dump(module, KIND_OFFLINE_MODEL, compile_options(args))
        text = render(module, generic=False) if args.emit in ("both", "mlir") else None
    from gedialects.tools import streams

    if om is not None:
        streams.write_output("-" if to_stdout else om_path(path), om)
    if text is not None:
        streams.write_output(path, text)
    if not args.quiet:
        print(SUCCESS_LINE, file=words)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    from gedialects.budget import MemoryBudgetError, MemorySizeError
    from gedialects.frontend.errors import OnnxImportError

    errors = (OnnxImportError, OSError, MemoryBudgetError, MemorySizeError)
    return cli.run_main("ge-atc", lambda: run_cli(argv), errors)


if __name__ == "__main__":
    sys.exit(main())
