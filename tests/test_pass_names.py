"""Names checked (issue 15 part 7): every registered pass is `ge-<verb>-<object>` with a verb
from `PASS_VERBS`, lives alone in its module and has a lit file named after it; the four tools
share the error handling of `gedialects.tools.cli`."""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import re
import tomllib
from pathlib import Path

import pytest
from xdsl.passes import ModulePass

import gedialects.passes
from gedialects.passes import PASS_VERBS, PASSES, UMBRELLA_PASSES, get_all_passes

ROOT = Path(__file__).resolve().parent.parent
LIT = ROOT / "tests" / "lit"
NAMES = sorted(get_all_passes())


def name_problem(name: str) -> str | None:
    """Why `name` breaks the naming rule, None when it follows it."""
    parts = name.split("-")
    if len(parts) < 2 or parts[0] != "ge":
        return "does not start with ge-"
    if not all(re.fullmatch(r"[a-z][a-z0-9]*", p) for p in parts[1:]):
        return "has a part that is not lower-case letters and digits"
    verb = parts[1]
    if verb not in PASS_VERBS:
        return f"starts with '{verb}', which is not a verb of PASS_VERBS"
    if len(parts) == 2 and name not in UMBRELLA_PASSES:
        return "names no object (ge-<verb>-<object>)"
    return None


def test_the_rule_refuses_object_first_and_unknown_verbs() -> None:
    assert name_problem("ge-expand-multibatch") is None
    assert name_problem("ge-multibatch-expand") == (
        "starts with 'multibatch', which is not a verb of PASS_VERBS"
    )
    assert name_problem("ge-plan") == "names no object (ge-<verb>-<object>)"
    assert name_problem("plan-memory") == "does not start with ge-"
    assert name_problem("ge-plan-Memory") is not None
    assert name_problem("ge-fuse") is None  # an umbrella pass, with its reason


@pytest.mark.parametrize("name", NAMES)
def test_pass_name_is_verb_first(name: str) -> None:
    assert name_problem(name) is None, f"{name} {name_problem(name)}"
    assert get_all_passes()[name]().name == name


def test_every_verb_and_umbrella_is_used() -> None:
    """The lists say what the project needs, no more."""
    used = {name.split("-")[1] for name in NAMES}
    assert sorted(set(PASS_VERBS) - used) == []
    assert set(UMBRELLA_PASSES) <= set(NAMES)


def _pass_classes() -> dict[str, list[str]]:
    """Module -> the named ModulePass classes it defines, over every module of the package."""
    found: dict[str, list[str]] = {}
    for info in pkgutil.walk_packages(gedialects.passes.__path__, "gedialects.passes."):
        module = importlib.import_module(info.name)
        for attr, obj in vars(module).items():
            if (
                inspect.isclass(obj)
                and issubclass(obj, ModulePass)
                and obj.__module__ == info.name
                and isinstance(getattr(obj, "name", None), str)
            ):
                found.setdefault(info.name, []).append(attr)
    return found


def test_one_pass_per_module_and_every_pass_class_registered() -> None:
    classes = _pass_classes()
    crowded = {module: names for module, names in classes.items() if len(names) > 1}
    assert crowded == {}
    registered = {(module, attr) for module, attr in PASSES.values()}
    defined = {(module, names[0]) for module, names in classes.items()}
    assert defined == registered


@pytest.mark.parametrize("name", NAMES)
def test_pass_has_a_lit_file_named_after_it(name: str) -> None:
    files = sorted(LIT.rglob(f"{name}.mlir"))
    assert files, f"no tests/lit/**/{name}.mlir"
    runs = [line for f in files for line in f.read_text().splitlines() if "RUN:" in line]
    assert any(re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", line) for line in runs), (
        f"{files[0].relative_to(ROOT)} never runs {name}"
    )
    assert any("filecheck" in line for line in runs), "its RUN lines check nothing"


TOOLS = ("ge-opt", "ge-import", "ge-atc", "ge-run")


def _calls_run_main(tree: ast.Module) -> bool:
    main = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "main")
    return any(
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "run_main"
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id == "cli"
        for node in ast.walk(main)
    )


def test_every_tool_handles_errors_through_tools_cli() -> None:
    """Each installed tool's `main` runs its body through `cli.run_main`, the one place that
    turns errors into one line and exit code 1 (tests/test_no_internal_errors.py checks the
    behaviour)."""
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert sorted(scripts) == sorted(TOOLS)
    for tool in TOOLS:
        module, func = scripts[tool].split(":")
        assert func == "main"
        path = ROOT / (module.replace(".", "/") + ".py")
        assert _calls_run_main(ast.parse(path.read_text())), f"{tool}: main bypasses cli"
