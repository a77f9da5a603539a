"""A fast path of xDSL's IRDL verifier for our ops: each op definition compiled into checks once.

xDSL 0.74's `OpDef.verify` interprets the definition for every op it verifies: four variadic
size checks (each searching the definition's options and lists), a descriptor call per
operand and result, a `VerificationContext`, and a chain of constraint objects per type. On
the 10k-node bench graph that was about half of `verify`'s 130 µs per op, and `ge-opt`
verifies the whole module after each of ge-compile's stages, as MLIR does.

`install(dialect)` gives each op definition of the dialect a compiled `verify` (`FastOpDef`):
the same checks (counts, operand, result, property and attribute constraints, regions,
successors, traits) as plain predicates built once from the constraint objects, unrolled
into one generated function per definition (`FastOpDef.accepts`). It only
decides that an op is valid: on the first check that fails it runs xDSL's own
`OpDef.verify`, so every error is reported exactly as xDSL reports it. A definition with a
constraint whose meaning depends on the whole op (constraint variables), or that the
compiler does not know without such variables, keeps xDSL's verifier for those parts or
for the whole op.

Relies on xDSL 0.74's `OpDef` fields and constraint classes, which the project pins.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from types import FunctionType
from typing import TypeVar, cast

from xdsl.dialects.builtin import (
    ArrayAttr,
    ArrayOfConstraint,
    EmptyArrayAttrConstraint,
    StringAttr,
    SymbolNameConstraint,
)
from xdsl.ir import Attribute, Block, Dialect, Operation, ParametrizedAttribute
from xdsl.irdl import (
    AllOf,
    AnyAttr,
    AnyOf,
    AttrConstraint,
    BaseAttr,
    EqAttrConstraint,
    EqIntConstraint,
    MessageConstraint,
    OpDef,
    OperandDef,
    OptAttributeDef,
    OptionalDef,
    OptPropertyDef,
    ParamAttrConstraint,
    RangeConstraint,
    RangeOf,
    ResultDef,
    VariadicDef,
    VerificationContext,
)
from xdsl.irdl.constraints import AttrSetConstraint, RangeLengthConstraint, SingleOf
from xdsl.irdl.operations import (
    OptSingleBlockRegionDef,
    SingleBlockRegionDef,
    VarSingleBlockRegionDef,
)
from xdsl.traits import ConstantLike, IsolatedFromAbove
from xdsl.utils.exceptions import VerifyException

Pred = Callable[[Attribute], bool]
RangePred = Callable[[Sequence[Attribute]], bool]


def _any(_: Attribute) -> bool:
    return True


def _generic(c: AttrConstraint) -> Pred:
    """`c` checked by its own `verify` (a constraint without variables needs no shared context)."""

    def check(a: Attribute) -> bool:
        try:
            c.verify(a, VerificationContext())
        except VerifyException:
            return False
        return True

    return check


def attr_pred(c: AttrConstraint) -> Pred:
    """A predicate that holds exactly when `c.verify` accepts an attribute (`c` has no
    variables)."""
    if isinstance(c, AnyAttr):
        return _any
    if isinstance(c, BaseAttr):
        cls = c.attr
        return lambda a: isinstance(a, cls)
    if isinstance(c, EqAttrConstraint):
        want = c.attr
        return lambda a: a == want
    if isinstance(c, AttrSetConstraint):
        values = c.values
        return lambda a: a in values
    if isinstance(c, SymbolNameConstraint):
        return lambda a: isinstance(a, StringAttr)
    if isinstance(c, EmptyArrayAttrConstraint):
        return lambda a: isinstance(a, ArrayAttr) and not a.data
    if isinstance(c, MessageConstraint):
        return attr_pred(c.constr)
    if isinstance(c, AllOf):
        preds = tuple(attr_pred(x) for x in c.attr_constrs)
        return lambda a: all(p(a) for p in preds)
    if isinstance(c, AnyOf):
        # AnyOf's own dispatch: the constraint of the attribute's exact class, else the
        # abstract one (its members never overlap)
        based = {cls: attr_pred(x) for cls, x in c._based_constrs.items()}  # pyright: ignore[reportPrivateUsage]
        abstract = c._abstr_constr  # pyright: ignore[reportPrivateUsage]
        rest = attr_pred(abstract) if abstract is not None else None

        def any_of(a: Attribute) -> bool:
            p = based.get(a.__class__)
            if p is not None:
                return p(a)
            return rest is not None and rest(a)

        return any_of
    if isinstance(c, ParamAttrConstraint):
        cls, params = c.base_attr, tuple(attr_pred(x) for x in c.param_constrs)
        n = len(params)
        # accepted attributes by id, kept alive by the table: a model's `stream 0` is one
        # interned IntegerAttr on thousands of tasks
        accepted: dict[int, Attribute] = {}

        def param(a: Attribute) -> bool:
            if accepted.get(id(a)) is a:
                return True
            if not isinstance(a, cls):
                return False
            ps = cast(ParametrizedAttribute, a).parameters
            if len(ps) != n or not all(p(x) for p, x in zip(params, ps, strict=True)):
                return False
            if len(accepted) >= PASSED_LIMIT:
                accepted.clear()
            accepted[id(a)] = a
            return True

        return param
    if isinstance(c, ArrayOfConstraint):
        elems = range_pred(c.elem_range_constraint)
        return lambda a: isinstance(a, ArrayAttr) and elems(a.data)
    return _generic(c)


def range_pred(c: RangeConstraint) -> RangePred:
    """A predicate that holds exactly when `c.verify` accepts a range (`c` has no variables)."""
    if isinstance(c, RangeOf):
        if isinstance(c.constr, BaseAttr):  # a task's ins / outs: one isinstance per buffer
            cls = c.constr.attr
            return lambda xs: all(isinstance(x, cls) for x in xs)
        p = attr_pred(c.constr)
        return lambda xs: all(p(x) for x in xs)
    if isinstance(c, SingleOf):
        p = attr_pred(c.constr)
        return lambda xs: len(xs) == 1 and p(xs[0])
    if isinstance(c, RangeLengthConstraint) and isinstance(c.length, EqIntConstraint):
        inner, n = range_pred(c.constraint), c.length.value
        return lambda xs: len(xs) == n and inner(xs)

    def check(xs: Sequence[Attribute]) -> bool:
        try:
            c.verify(xs, VerificationContext())
        except VerifyException:
            return False
        return True

    return check


def _single(c: RangeConstraint) -> Pred | None:
    """The element predicate of a range of exactly one element (`operand_def(C)`), else None."""
    if (
        isinstance(c, RangeLengthConstraint)
        and isinstance(c.length, EqIntConstraint)
        and c.length.value == 1
        and isinstance(c.constraint, RangeOf)
    ):
        return attr_pred(c.constraint.constr)
    if isinstance(c, SingleOf):
        return attr_pred(c.constr)
    return None


def _named_pass(
    values: Mapping[str, Attribute], checks: tuple[tuple[str, Pred, bool], ...]
) -> bool:
    """Every named property or attribute present passes its predicate; only optional ones
    may be absent."""
    for name, p, optional in checks:
        v = values.get(name)
        if v is None:
            if not optional:
                return False
        elif not p(v):
            return False
    return True


class FastOpDef:
    """`op_def.verify`, compiled: each check a predicate; xDSL's verifier on the first miss."""

    def __init__(self, op_def: OpDef) -> None:
        self.op_def = op_def
        self.slow = type(op_def).verify.__get__(op_def)
        self.operands = self._values(op_def.operands)
        self.results = self._values(op_def.results)
        self.props = tuple(
            (name, attr_pred(d.constr), isinstance(d, OptPropertyDef))
            for name, d in op_def.properties.items()
        )
        self.prop_names = frozenset(op_def.properties)
        self.attrs = tuple(
            (name, attr_pred(d.constr), isinstance(d, OptAttributeDef))
            for name, d in op_def.attributes.items()
        )
        self.regions = tuple(
            (
                isinstance(
                    d, SingleBlockRegionDef | VarSingleBlockRegionDef | OptSingleBlockRegionDef
                ),
                range_pred(d.entry_args),
            )
            for _, d in op_def.regions
        )
        fixed = not any(
            isinstance(d, VariadicDef) for _, d in (*op_def.regions, *op_def.successors)
        )
        self.n_regions = len(op_def.regions) if fixed else -1
        self.n_successors = len(op_def.successors) if fixed else -1
        self.traits = tuple(op_def.traits)
        self.fast = (
            not op_def.options
            and not any(d.constr.variables() for _, d in (*op_def.operands, *op_def.results))
            and not any(
                d.constr.variables()
                for d in (*op_def.properties.values(), *op_def.attributes.values())
            )
            and not any(d.entry_args.variables() for _, d in op_def.regions)
        )
        self.accepts: Callable[[Operation], bool] = self._compile_and_accept

    def _compile_and_accept(self, op: Operation) -> bool:
        """The first `accepts`: generates the compiled one (per definition in use, not at
        dialect load, so a tool pays only for the ops it verifies) and decides with it."""
        self.accepts = self._compiled_accepts()
        return self.accepts(op)

    def _compiled_accepts(self) -> Callable[[Operation], bool]:
        """`accepts_reference` as one straight-line function of this definition: each check
        unrolled with its predicate bound by name, no loop over the definition per op (a
        task's checks were a third of a warm verify at 10k nodes). Generated from the
        definition's own names (as string literals) and never from the IR it checks."""
        env: dict[str, object] = {}
        lines = ["def accepts(op):"]

        def bind(prefix: str, value: object) -> str:
            name = f"{prefix}{len(env)}"
            env[name] = value
            return name

        for source, pred, exact in (
            ("op._operands", self.operands, self._single_preds(self.op_def.operands)),
            ("op.results", self.results, self._single_preds(self.op_def.results)),
        ):
            if pred is None:
                return lambda op: False
            if exact is None:  # a variadic def: the range predicate on the types
                lines.append(f"    if not {bind('r', pred)}([v.type for v in {source}]):")
                lines.append("        return False")
                continue
            lines.append(f"    vs = {source}")
            lines.append(f"    if len(vs) != {len(exact)}:")
            lines.append("        return False")
            for i, p in enumerate(exact):
                lines.append(f"    if not {bind('p', p)}(vs[{i}].type):")
                lines.append("        return False")
        lines.append("    props = op.properties")
        required = sum(not optional for _, _, optional in self.props)
        lines.append(f"    present = {required}")
        for table, checks, counted in (
            ("props", self.props, True),
            ("op.attributes", self.attrs, False),
        ):
            if checks and table != "props":
                lines.append(f"    table = {table}")
            where = "props" if table == "props" else "table"
            for name, p, optional in checks:
                lines.append(f"    v = {where}.get({name!r})")
                lines.append("    if v is None:")
                lines.append("        pass" if optional else "        return False")
                lines.append(f"    elif not {bind('p', p)}(v):")
                lines.append("        return False")
                if optional and counted:
                    lines.append("    else:")
                    lines.append("        present += 1")
        # every property present is declared: the declared ones present are all of them
        lines.append("    if len(props) != present:")
        lines.append("        return False")
        if self.n_regions < 0:
            return lambda op: False
        lines.append(f"    if len(op._successors) != {self.n_successors}:")
        lines.append("        return False")
        lines.append("    regions = op.regions")
        lines.append(f"    if len(regions) != {self.n_regions}:")
        lines.append("        return False")
        for i, (single, entry) in enumerate(self.regions):
            lines.append(f"    blocks = regions[{i}].blocks")
            if single:
                lines.append("    if len(blocks) != 1:")
                lines.append("        return False")
            lines.append(f"    first = regions[{i}].first_block")
            lines.append(f"    if first is not None and not {bind('e', entry)}(first.arg_types):")
            lines.append("        return False")
        lines.append("    return True")
        exec(compile("\n".join(lines), f"<accepts {self.op_def.name}>", "exec"), env)
        return cast(Callable[[Operation], bool], env["accepts"])

    @staticmethod
    def _single_preds(defs: Sequence[tuple[str, OperandDef | ResultDef]]) -> list[Pred] | None:
        """The predicate of each def when every def is exactly one value, else None."""
        found: list[Pred] = []
        for _, d in defs:
            p = None if isinstance(d, VariadicDef) else _single(d.constr)
            if p is None:
                return None
            found.append(p)
        return found

    @staticmethod
    def _values(defs: Sequence[tuple[str, OperandDef | ResultDef]]) -> RangePred | None:
        """A predicate of the operand (result) types: each def a single value but at most one
        variadic or optional one (xDSL's same-size rule then gives it the rest); else None."""
        singles: list[Pred] = []
        var_at, var_pred, optional = -1, None, False
        for i, (_, d) in enumerate(defs):
            constr = d.constr
            if isinstance(d, VariadicDef):
                if var_at >= 0:
                    return None
                var_at, var_pred = i, range_pred(constr)
                optional = isinstance(d, OptionalDef)
                continue
            p = _single(constr)
            if p is None:
                return None
            singles.append(p)
        n = len(singles)
        if var_pred is None:
            fixed = tuple(singles)

            def exact(ts: Sequence[Attribute]) -> bool:
                return len(ts) == n and all(p(t) for p, t in zip(fixed, ts, strict=True))

            return exact
        head, tail, rest = tuple(singles[:var_at]), tuple(singles[var_at:]), var_pred

        def with_variadic(ts: Sequence[Attribute]) -> bool:
            m = len(ts) - n
            if m < 0 or (optional and m > 1):
                return False
            k = len(head)
            return (
                all(p(t) for p, t in zip(head, ts[:k], strict=True))
                and rest(ts[k : k + m])
                and all(p(t) for p, t in zip(tail, ts[k + m :], strict=True))
            )

        return with_variadic

    def __call__(self, op: Operation) -> None:
        if not (self.fast and self.accepts(op)):
            self.slow(op)
            return
        for trait in self.traits:
            trait.verify(op)

    def accepts_reference(self, op: Operation) -> bool:
        """Whether every check but the traits passes (False: xDSL's verifier decides): the
        definition's checks read in a loop, of which `accepts` is the compiled form (the
        tests hold them equal)."""
        operands, results = self.operands, self.results
        if operands is None or results is None:
            return False
        if not operands([v.type for v in op._operands]):  # pyright: ignore[reportPrivateUsage]
            return False
        if not results([r.type for r in op.results]):
            return False
        props = op.properties
        if not (_named_pass(props, self.props) and props.keys() <= self.prop_names):
            return False
        if not _named_pass(op.attributes, self.attrs):
            return False
        regions = op.regions
        if len(regions) != self.n_regions or len(op.successors) != self.n_successors:
            return False
        for (single, entry), region in zip(self.regions, regions, strict=True):
            blocks = region.blocks
            if single and len(blocks) != 1:
                return False
            first = region.first_block
            if first is not None and not entry(first.arg_types):
                return False
        return True


# --------------------------------------------------------------------------------------------
# The verdicts of local verifiers, kept per (op class, types, properties, attributes)
# --------------------------------------------------------------------------------------------

_LOCAL: set[Callable[..., None]] = set()
"""Custom verifiers declared local (`local`)."""

PASSED_LIMIT = 1 << 14
"""Entries of `_PASSED`; a full table starts again (no unbounded growth)."""

_PASSED: dict[tuple[object, ...], tuple[object, ...]] = {}
"""(op class, ids of operand types, result types, property names and values, declared
attribute values) -> the objects whose ids the key holds (so their ids stay theirs)."""


F = TypeVar("F", bound=Callable[..., None])


def local(verify: F) -> F:
    """Declares an op's custom `verify_` local: it (with everything it calls) reads only the
    op's operand and result types, properties, declared attributes and class constants, and
    the values of its constant operands only through `base.const_values`. Its verdict is then
    a function of those values, and an op equal in all of them to one that passed passes too
    (`install` keeps the verdict)."""
    _LOCAL.add(verify)
    return verify


def _custom_verify(op_type: type[Operation]) -> tuple[bool, Callable[..., None] | None]:
    """Whether `op_type.verify_` is xDSL's generated one (IRDL checks then the class's own
    verifier) and that own verifier (None: IRDL checks only)."""
    fn = op_type.__dict__.get("verify_")
    if not isinstance(fn, FunctionType) or (
        fn.__qualname__ != "get_accessors_from_op_def.<locals>.verify_"
    ):
        return False, None
    cells = dict(zip(fn.__code__.co_freevars, fn.__closure__ or (), strict=True))
    custom = cells.get("custom_verify")
    return True, None if custom is None else custom.cell_contents


def _memoised(
    op_type: type[Operation], op_def: OpDef, verify: Callable[[Operation], None], reads: Reads
) -> Callable[[Operation], None]:
    """`verify` (the op's `verify_`: IRDL checks and a local verifier) with its passes kept.

    A verdict that read no constant is kept under the op's types, properties and declared
    attributes; one that read constants (Reshape's shape) also under the value attribute of
    each constant operand, the only thing `const_values` reads of it. The traits are run on
    every op, kept or not: some depend on the op's place (HasParent). A failure is never
    kept, so every error is the verifier's own."""
    traits = tuple(op_def.traits)
    attr_names = tuple(op_def.attributes)
    reads_constants = False

    def verify_(op: Operation) -> None:
        nonlocal reads_constants
        types = tuple(v.type for v in op._operands)  # pyright: ignore[reportPrivateUsage]
        results = tuple(r.type for r in op.results)
        props = op.properties
        declared = tuple(op.attributes.get(n) for n in attr_names)
        values = tuple(props.values())
        key = (
            op_type,
            *map(id, types),
            -1,
            *map(id, results),
            -2,
            *props,
            *map(id, values),
            -3,
            *map(id, declared),
        )
        if key in _PASSED:
            for trait in traits:
                trait.verify(op)
            return
        constants: tuple[Attribute | None, ...] = ()
        if reads_constants:
            constants = _constant_values(op)
            if (*key, -4, *map(id, constants)) in _PASSED:
                for trait in traits:
                    trait.verify(op)
                return
        before = reads()
        verify(op)
        if len(_PASSED) >= PASSED_LIMIT:
            _PASSED.clear()
        if reads() == before:
            _PASSED[key] = (types, results, values, declared)
            return
        if not reads_constants:
            reads_constants = True
            constants = _constant_values(op)
        _PASSED[(*key, -4, *map(id, constants))] = (types, results, values, declared, constants)

    return verify_


_CONSTANT_LIKE: dict[type[Operation], bool] = {}


def _constant_values(op: Operation) -> tuple[Attribute | None, ...]:
    """Per operand, the `value` property of the `ConstantLike` op defining it (None for other
    operands): what `base.const_values` reads of an operand."""
    out: list[Attribute | None] = []
    for v in op._operands:  # pyright: ignore[reportPrivateUsage]
        owner = v.owner
        if not isinstance(owner, Operation):
            out.append(None)
            continue
        kind = type(owner)
        like = _CONSTANT_LIKE.get(kind)
        if like is None:
            like = _CONSTANT_LIKE[kind] = kind.has_trait(ConstantLike)
        out.append(owner.properties.get("value") if like else None)
    return tuple(out)


Reads = Callable[[], int]
"""How many constant operands were read so far (`base.const_reads`)."""


def install(dialect: Dialect, reads: Reads) -> None:
    """Gives every op definition of `dialect` its compiled verifier (once), and every op whose
    own verifier is `local` (or that has none) and that has no regions or successors a kept
    verdict (`_memoised`); `reads` counts constant reads, which make a verdict depend on the
    constant operands too."""
    for op in dialect.operations:
        get_def = getattr(op, "get_irdl_definition", None)
        if get_def is None:
            continue
        op_def = get_def()
        if not isinstance(op_def, OpDef):
            continue
        if not isinstance(op_def.__dict__.get("verify"), FastOpDef):
            op_def.verify = FastOpDef(op_def)
        generated, custom = _custom_verify(op)
        if (
            generated
            and (custom is None or custom in _LOCAL)
            and not op_def.regions
            and not op_def.successors
        ):
            op.verify_ = _memoised(op, op_def, op.__dict__["verify_"], reads)  # pyright: ignore[reportAttributeAccessIssue]


class BodyIsolatedFromAbove(IsolatedFromAbove):
    """xDSL's `IsolatedFromAbove` for ops whose body ops have no regions (a graph, a model):
    an operand defined by an op of the same region or an argument of its blocks is inside,
    a test of two pointers; any other operand, or a nested region, gets xDSL's own check
    (its walk up the parents for every operand was a fifth of a graph's verification)."""

    def verify(self, op: Operation) -> None:
        for region in op.regions:
            for block in region.blocks:
                for child in block.ops:
                    if child.regions:
                        super().verify(op)
                        return
                    for operand in child._operands:  # pyright: ignore[reportPrivateUsage]
                        owner = operand.owner
                        home = owner if isinstance(owner, Block) else owner.parent
                        if home is None or home.parent is not region:
                            super().verify(op)
                            return
