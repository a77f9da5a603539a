"""The generated reference pages match the code, and the code carries what they are built from."""

from __future__ import annotations

from pathlib import Path

import pytest
from xdsl.ir import Operation
from xdsl.passes import ModulePass

from gedialects.tools import gen_docs

OPS: list[type[Operation]] = [op for _, d in gen_docs.dialects() for op in d.operations]
PASSES: list[type[ModulePass]] = gen_docs.pass_classes()


def test_checked_in_pages_are_up_to_date() -> None:
    stale = gen_docs.stale_pages()
    assert not stale, f"stale generated docs {stale}: run `python -m gedialects.tools.gen_docs`"


def test_generation_is_deterministic() -> None:
    assert gen_docs.pages() == gen_docs.pages()


@pytest.mark.parametrize("op", OPS, ids=lambda op: op.name)
def test_op_has_docstring_and_ge_type(op: type[Operation]) -> None:
    ge_type = getattr(op, "GE_TYPE", None)
    assert isinstance(ge_type, str) and ge_type, f"{op.__name__} has no GE_TYPE"
    doc = (op.__doc__ or "").strip()
    assert doc, f"{op.__name__} has no docstring"
    assert doc.startswith(f"GE {ge_type}"), f"{op.__name__}: docstring must open `GE {ge_type}`"


@pytest.mark.parametrize("pass_class", PASSES, ids=lambda p: p.name)
def test_pass_has_docstring(pass_class: type[ModulePass]) -> None:
    assert (pass_class.__doc__ or "").strip(), f"{pass_class.__name__} has no docstring"


def test_ge_type_map_covers_every_op_once() -> None:
    mapped = [op for _, op, _ in gen_docs.ge_type_map()]
    assert sorted(op.name for op in mapped) == sorted(op.name for op in OPS)
    assert len({op.name for op in OPS}) == len(OPS), "two ops share a mnemonic"


def test_ge_type_map_is_a_bijection() -> None:
    assert gen_docs.ge_type_collisions() == {}


class _Example:
    """GE Conv2D: an op whose example sits at the body's indentation.

    %y = graph.conv2d %x, %w strides [1, 1, 1, 1] : (A, B) -> C
    """


class _Indented:
    """GE Add: prose, a diagram and an indented example.

    - a bullet whose continuation
      is indented by two

        a --> b

        %y = graph.add %a, %b
            : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>

    `graph.add` in prose stays prose.

        graph.graph @g() -> () {

          graph.net_output
        }
    """


def test_examples_become_fenced_blocks() -> None:
    assert gen_docs.doc_markdown(_Example.__doc__) == (
        "GE Conv2D: an op whose example sits at the body's indentation.\n\n"
        "```mlir\n%y = graph.conv2d %x, %w strides [1, 1, 1, 1] : (A, B) -> C\n```"
    )
    assert gen_docs.doc_markdown(_Indented.__doc__).split("\n")[2:] == [
        "- a bullet whose continuation",
        "  is indented by two",
        "",
        "```text",
        "a --> b",
        "```",
        "",
        "```mlir",
        "%y = graph.add %a, %b",
        "    : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>",
        "```",
        "",
        "`graph.add` in prose stays prose.",
        "",
        "```mlir",
        "graph.graph @g() -> () {",
        "",
        "  graph.net_output",
        "}",
        "```",
    ]


def test_check_lists_exactly_the_stale_pages(tmp_path: Path) -> None:
    pages = gen_docs.pages()
    for path, text in pages.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text, encoding="utf-8")
    assert gen_docs.stale_pages(tmp_path) == []
    (tmp_path / "docs/passes.md").write_text("edited by hand\n", encoding="utf-8")
    (tmp_path / "docs/ge-op-map.md").unlink()
    assert sorted(gen_docs.stale_pages(tmp_path)) == ["docs/ge-op-map.md", "docs/passes.md"]


def test_session_page_covers_the_api() -> None:
    from gedialects import session

    assert set(session.OPTION_HELP) == set(session.OPTIONS), "every option needs OPTION_HELP"
    page = gen_docs.pages()["docs/session.md"]
    for name, check in session.OPTIONS.items():
        assert (check.__doc__ or "").strip(), f"option check {check.__name__} has no docstring"
        assert f"| `{name}` |" in page
    members = gen_docs.session_members()
    assert {"add_graph", "run_graph", "jit_stats", "graph_ids"} <= {n for n, _ in members}
    for name, member in members:
        assert (member.__doc__ or "").strip(), f"Session.{name} has no docstring"
        assert f"### {name}" in page
    exceptions = gen_docs.session_exceptions()
    assert exceptions[0] is session.GEError and session.GearMismatchError in exceptions
    for cls in exceptions:
        assert f"| `{cls.__name__}` |" in page
    assert "| `GearMismatchError` | `InputError` | E13025 |" in page


def test_api_page_covers_the_public_modules() -> None:
    """docs/api.md lists every public module's API (gen_docs.API_MODULES), each member with
    a docstring, its class methods too, and every pass class with its options."""
    import inspect

    page = gen_docs.pages()["docs/api.md"]
    for module in gen_docs.API_MODULES:
        assert f"## `{module}`" in page
        members = gen_docs.api_members(module)
        assert members, f"{module} documents nothing"
        for name, value in members:
            assert f"### {name}" in page
            assert (value.__doc__ or "").strip(), f"{module}.{name} has no docstring"
            for method, function in vars(value).items() if inspect.isclass(value) else ():
                if not method.startswith("_") and inspect.isfunction(function):
                    assert (function.__doc__ or "").strip(), f"{name}.{method}: no docstring"
                    assert f"- `{method}(" in page
    for pass_class in PASSES:
        assert f"| `{pass_class.__module__}.{pass_class.__name__}` |" in page
    for call in ("get_all_subgraphs", "get_subgraph", "add_subgraph", "remove_subgraph"):
        assert f"- `{call}(" in page
    assert "- `get_inputs(graph_id: int | None = None) -> tuple[NodeArg, ...]`" in page
    assert "### run_kernel\n" in page and "### make_context\n" in page


def test_api_page_names_only_what_exists(monkeypatch: pytest.MonkeyPatch) -> None:
    """A name in API_MODULES that the module lacks fails the generation, not a silent gap."""
    monkeypatch.setitem(gen_docs.API_MODULES, "gedialects.tensors", ("no_such_name",))
    with pytest.raises(AttributeError, match="no_such_name"):
        gen_docs.api_page()
