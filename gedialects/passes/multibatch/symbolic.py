"""One compile for all gears (GE's SymbolizeMultiBatchSubGraph): the gear branches are
compiled once, as a template, and instantiated per gear.

`ge-compile` with many gears would otherwise take every gear branch through every stage
(expansion, shape inference, fusion, partitions, lowering, streams, memory), so that compile
time grows with the gear count. Here the pipeline runs on a few *probe* gears only (the
smallest, each input's largest as GE's SetMaxShape picks it, and ones between), and the
compiled model's branch sections are then written out for every gear:

- every value that differs between the probes' sections must be explained: a tensor dim is
  an affine function of one gear value, fitted on two probes and checked on the others (the
  dim is the gear's symbol, `s0`, or `s0 * 128`, ...); a stream, event or label that only one
  section uses is that section's own and gets a fresh id per gear; a node name differs by the
  branch postfix only;
- memory: every gear uses the plan of the probe with the largest buffers, which holds for
  a smaller gear because each of its buffers starts where the largest gear's does and is no
  larger (checked per buffer), as GE's DynamicBatchMemAssigner lays the branches over one
  another; the gear table weight grows to all gears, and what lies after it moves by the
  aligned difference. When no gear is largest in every gear value (the gears seed's table),
  a virtual probe of the element-wise largest values, which is no gear, is compiled too and
  lends its plan (refused when it would change how the model's inputs or outputs are
  declared).

A branch's own control flow (If, While: label sets, gotos and switches inside a section) is
a section's own labels, fresh per gear like its streams, numbered after every gear's section
label in the order they were made (as `ge-convert-graph-to-ascend` allocates them).

Anything else (a section whose ops or attributes differ between probes otherwise, dynamic
tasks, a dim no affine function explains) is `NotSymbolic`, and the
caller compiles every gear as before: the template is an optimisation that never changes
what a gear computes.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    DictionaryAttr,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    StringAttr,
    TensorType,
    i32,
    i64,
)
from xdsl.ir import Attribute, Operation

from gedialects.ascend import (
    VAR_BASE,
    BufferAttr,
    EventOp,
    EventRecordOp,
    EventWaitOp,
    InputOp,
    KernelOp,
    LabelGotoOp,
    LabelSetOp,
    LabelSwitchByIndexOp,
    MemcpyAsyncOp,
    ModelOp,
    OutputOp,
    StreamActiveOp,
    StreamOp,
    WeightOp,
)
from gedialects.formats import format_of, with_format
from gedialects.gear_options import GearConfig
from gedialects.multibatch import (
    BATCH_NUM,
    BRANCH_NODE_POSTFIX,
    DYNAMIC_OUTPUT_DIMS,
    PRED_VALUE_PREFIX,
    SYMBOLIC_OUTPUT_SHAPE,
    UNKNOWN_EXPR,
    Affine,
    DynamicType,
    output_dims_entry,
    parse_output_dims,
)

MIN_GEARS = 6
"""Fewer gears compile as before: probes would save little."""
PROBES = 3
ALIGNMENT = 512  # GE's memory alignment (analysis.memory_plan.GE_ALIGNMENT)
LABEL_NUM = "label_num"
MAP_INDEX_KERNEL = "MapIndex"


class NotSymbolic(Exception):
    """The probes do not explain every gear: compile each gear instead (the reason says why)."""


Gear = tuple[int, ...]


def _align(n: int) -> int:
    return (max(n, 1) + ALIGNMENT - 1) // ALIGNMENT * ALIGNMENT


def probe_gears(config: GearConfig) -> list[int]:
    """Gear indices of the probes, in gear order: each input's largest gear (GE's
    SetMaxShape, so the model's inputs are declared as a full compile declares them), the
    smallest, for each gear value the gears where it is smallest and largest (a dim that is
    a monotone function of it and equal at both is constant), then gears between until every
    gear value that varies takes three values over the probes, or all it takes (a fit then
    has a check; a value of two only is never fitted, so a dim that follows it is refused)."""
    n = config.gear_count
    sizes = [math.prod(v for v in g if v) for g in config.gears]
    chosen = {config.max_gear(s.name) for s in config.inputs}
    chosen.add(min(range(n), key=sizes.__getitem__))
    for j in range(config.gear_length):
        values = [g[j] for g in config.gears]
        chosen.add(values.index(min(values)))
        chosen.add(values.index(max(values)))
    order = sorted(range(n), key=sizes.__getitem__)
    for q in (2, 4, 8, 3, 5, 7):
        for k in range(1, q):
            if _spread(config, chosen):
                return sorted(chosen)
            chosen.add(order[k * (n - 1) // q])
    if not _spread(config, chosen):
        raise NotSymbolic("no probes vary every gear value three ways")
    return sorted(chosen)


def _spread(config: GearConfig, chosen: set[int]) -> bool:
    if len(chosen) < PROBES:
        return False
    for j in range(config.gear_length):
        every = {g[j] for g in config.gears}
        probed = {config.gears[p][j] for p in chosen}
        if len(probed) < min(len(every), PROBES):
            return False
    return True


def virtual_probe(config: GearConfig) -> Gear | None:
    """The element-wise largest gear values when no gear has them all (a gear table where no
    gear dominates, as the gears seed's `20,20,1,1;...;30,10,3,1`): compiled as one more
    probe, it is no gear but its buffers hold every gear's, so its memory plan serves all
    gears (GE's DynamicBatchMemAssigner lays them over the largest batch's blocks). None
    when a gear is the largest in every value."""
    top = tuple(max(g[j] for g in config.gears) for j in range(config.gear_length))
    return None if top in config.gears else top


GEAR_FIELDS = {
    DynamicType.BATCH: "dynamic_batch_size",
    DynamicType.IMAGE_SIZE: "dynamic_image_size",
    DynamicType.DIMS: "dynamic_dims",
}
"""The `ge-compile` option of each gear kind."""


def gear_option(config: GearConfig, gears: Sequence[Gear]) -> str:
    """`gears` written as the option of `config`'s kind (`1,4,8` or `1,20;4,40`)."""
    if config.dynamic_type is DynamicType.BATCH:
        return ",".join(str(g[0]) for g in gears)
    return ";".join(",".join(map(str, g)) for g in gears)


@dataclass
class _Fit:
    """The per-gear values of one int of the probes' sections (memoised: the same values
    over the probes, as the dims of one type used by several tasks, are fitted once)."""

    config: GearConfig
    probes: list[Gear]
    _known: dict[tuple[int, ...], tuple[Affine, list[int]]] = field(
        default_factory=dict, init=False, repr=False
    )

    def values(self, seen: Sequence[int], what: str) -> list[int]:
        """`seen` (one value per probe) for every gear: constant, or an affine function of
        one gear value checked on every probe; NotSymbolic when none or several disagree."""
        return self.fitted(seen, what)[1]

    def expr(self, seen: Sequence[int], what: str) -> Affine:
        """The gear function that explains `seen`."""
        return self.fitted(seen, what)[0]

    def fitted(self, seen: Sequence[int], what: str) -> tuple[Affine, list[int]]:
        key = tuple(seen)
        known = self._known.get(key)
        if known is None:
            known = self._known[key] = self._fit(key, what)
        return known

    def _fit(self, seen: tuple[int, ...], what: str) -> tuple[Affine, list[int]]:
        gears = self.config.gears
        if all(v == seen[0] for v in seen):
            return Affine(Fraction(0), Fraction(seen[0]), None), [seen[0]] * len(gears)
        answers: list[tuple[Affine, list[int]]] = []
        for j in range(self.config.gear_length):
            xs = [p[j] for p in self.probes]
            if len(set(xs)) < PROBES:
                continue
            far = max(range(len(xs)), key=lambda k: abs(xs[k] - xs[0]))
            a = Fraction(seen[far] - seen[0], xs[far] - xs[0])
            b = seen[0] - a * xs[0]
            if any(a * x + b != v for x, v in zip(xs, seen, strict=True)):
                continue
            out = [a * g[j] + b for g in gears]
            if any(y.denominator != 1 or y < 0 for y in out):
                continue
            answers.append((Affine(a, b, j), [int(y) for y in out]))
        if not answers or any(a[1] != answers[0][1] for a in answers):
            raise NotSymbolic(f"{what} {list(seen)} over the probes is no affine gear function")
        return answers[0]


# ---- the probes' model --------------------------------------------------------------------


@dataclass
class _Layout:
    """A compiled gear model split at its gear Case: declarations, root tasks, the switch,
    one section per probe, the tail (from the Case's end label on)."""

    decls: list[Operation]
    head: list[Operation]
    switch: LabelSwitchByIndexOp
    sections: list[list[Operation]]
    tail: list[Operation]

    @classmethod
    def of(cls, model: ModelOp, probes: int) -> _Layout:
        ops = list(model.body.block.ops)
        switches = [i for i, op in enumerate(ops) if isinstance(op, LabelSwitchByIndexOp)]
        if not switches:
            raise NotSymbolic("no label switch")
        at = switches[0]  # the gear Case's; a branch's own control flow switches later
        switch = ops[at]
        assert isinstance(switch, LabelSwitchByIndexOp)
        labels = list(switch.labels.get_values())
        if len(labels) != probes:
            raise NotSymbolic("the switch is not the gear Case's")
        decls: list[Operation] = [
            op for op in ops[:at] if isinstance(op, StreamOp | EventOp | WeightOp)
        ]
        decls += [op for op in ops[:at] if isinstance(op, InputOp | OutputOp)]
        head = [op for op in ops[:at] if op not in decls]
        starts: list[int] = []
        for label in labels:
            found = [
                i
                for i, op in enumerate(ops)
                if i > at and isinstance(op, LabelSetOp) and op.label.value.data == label
            ]
            if len(found) != 1:
                raise NotSymbolic(f"label {label} is set {len(found)} times")
            starts.append(found[0])
        if starts != sorted(starts):
            raise NotSymbolic("the branch sections are out of order")
        goto = ops[starts[1] - 1] if probes > 1 else None
        if not isinstance(goto, LabelGotoOp):
            raise NotSymbolic("the first branch does not end in a goto")
        end_label = goto.label.value.data
        ends = [
            i
            for i, op in enumerate(ops)
            if i > starts[-1] and isinstance(op, LabelSetOp) and op.label.value.data == end_label
        ]
        if len(ends) != 1:
            raise NotSymbolic("no end label after the last branch")
        end = ends[0]
        bounds = [*starts, end]
        sections = [ops[bounds[k] : bounds[k + 1]] for k in range(probes)]
        if ops[at + 1 : starts[0]]:
            raise NotSymbolic("tasks between the switch and the first branch")
        return cls(decls, head, switch, sections, ops[end:])


_SECTION_OPS = (
    KernelOp,
    MemcpyAsyncOp,
    EventRecordOp,
    EventWaitOp,
    LabelSetOp,
    LabelGotoOp,
    LabelSwitchByIndexOp,
    StreamActiveOp,
)
_IDS = {"stream": "stream", "active_stream": "stream", "event": "event", "label": "label"}
LABELS = "labels"
"""A label switch's targets (a branch's own If, Case or While): label ids, as `label`."""


def _ids(ops: Sequence[Operation], kind: str) -> set[int]:
    found: set[int] = set()
    for op in ops:
        for name, k in _IDS.items():
            value = op.properties.get(name)
            if k == kind and isinstance(value, IntegerAttr):
                found.add(value.value.data)
        targets = op.properties.get(LABELS)
        if kind == "label" and isinstance(targets, DenseArrayBase):
            found.update(int(v) for v in targets.get_values())
    return found


Slot = Callable[[int], Attribute]
"""The value of one property in gear `g`'s section."""


@dataclass
class _Instantiation:
    config: GearConfig
    probes: list[Gear]
    layout: _Layout
    env: int  # the probe whose plan every gear uses (the largest buffers)
    shift_from: int  # offsets above this move by `shift`
    shift: int
    weight_size: int
    fit: _Fit
    # each distinct slot, type and buffer built once for all gears
    _buffer_slots: dict[tuple[BufferAttr, ...], Slot] = field(default_factory=dict, init=False)
    _type_slots: dict[tuple[Attribute, ...], Slot] = field(default_factory=dict, init=False)
    _types: dict[tuple[Attribute, object, tuple[int, ...]], Attribute] = field(
        default_factory=dict, init=False
    )
    _buffers: dict[tuple[int, TensorType], BufferAttr] = field(default_factory=dict, init=False)

    def moved(self, offset: int) -> int:
        if self.shift and self.shift_from < offset < VAR_BASE:
            return offset + self.shift
        return offset

    def buffer(self, seen: Sequence[BufferAttr], what: str) -> Slot:
        key = tuple(seen)
        known = self._buffer_slots.get(key)
        if known is None:
            known = self._buffer_slots[key] = self._buffer(seen, what)
        return known

    def _buffer(self, seen: Sequence[BufferAttr], what: str) -> Slot:
        env = seen[self.env]
        types = [b.type for b in seen]
        first = types[0]
        if not all(isinstance(t, TensorType) for t in types):
            raise NotSymbolic(f"{what}: a buffer without a tensor type")
        assert isinstance(first, TensorType)
        rank = first.get_num_dims()
        for t in types:
            assert isinstance(t, TensorType)
            if t.element_type != first.element_type or t.get_num_dims() != rank:
                raise NotSymbolic(f"{what}: buffer types differ in dtype or rank")
        offsets = {b.offset_value for b in seen}
        if len(offsets) > 1 and min(offsets) < self.weight_size:
            raise NotSymbolic(f"{what}: a weight differs between gears")
        offset = self.moved(env.offset_value)
        if all(t == first for t in types):
            same = BufferAttr(offset, first)
            return lambda g: same
        typed = self.tensor_type(types, what)
        limit = env.nbytes
        buffers: list[BufferAttr] = []
        for g in range(self.config.gear_count):
            t = typed(g)
            assert isinstance(t, TensorType)  # tensor_type builds tensor types
            found = self._buffers.get((offset, t))
            if found is None:
                found = self._buffers[offset, t] = BufferAttr(offset, t)
                if found.nbytes > limit:
                    raise NotSymbolic(f"{what}: gear {g} needs more than the largest probe")
            buffers.append(found)
        return buffers.__getitem__

    def tensor_type(self, types: Sequence[Attribute], what: str) -> Slot:
        """Gear `g`'s tensor type: each dim fitted over the probes; a type in a storage
        format (5HD, FRACTAL_Z) has its origin dims fitted and its storage shape derived
        from them, as `ge-select-formats` derives it. Every distinct type is built once."""
        key = tuple(types)
        known = self._type_slots.get(key)
        if known is None:
            known = self._type_slots[key] = self._tensor_type(types, what)
        return known

    def _tensor_type(self, types: Sequence[Attribute], what: str) -> Slot:
        tensors = [t for t in types if isinstance(t, TensorType)]
        if len(tensors) != len(types):
            raise NotSymbolic(f"{what}: not a tensor type")
        first = tensors[0]
        encs = [format_of(t) for t in tensors]
        if all(e is None for e in encs):
            if any(t.encoding != first.encoding for t in tensors):
                raise NotSymbolic(f"{what}: tensor encodings differ")
            shapes = [t.get_shape() for t in tensors]
        else:
            kinds = {(e.fmt, e.origin) if e is not None else None for e in encs}
            if len(kinds) != 1 or None in kinds:
                raise NotSymbolic(f"{what}: storage formats differ between gears")
            shapes = [e.shape for e in encs if e is not None]
        if len({len(sh) for sh in shapes}) != 1 or any(
            t.element_type != first.element_type for t in tensors
        ):
            raise NotSymbolic(f"{what}: tensor types differ in dtype or rank")
        dims = [self.fit.values([sh[d] for sh in shapes], what) for d in range(len(shapes[0]))]
        first_enc = encs[0]
        element, encoding = first.element_type, first.encoding
        built: list[Attribute] = []
        for g in range(self.config.gear_count):
            shape = tuple(dim[g] for dim in dims)
            fmt = None if first_enc is None else (first_enc.fmt, first_enc.origin)
            kind = (element, encoding if fmt is None else fmt, shape)
            t = self._types.get(kind)
            if t is None:
                if first_enc is None:
                    t = TensorType(element, shape, encoding)
                else:
                    plain = TensorType(element, shape)
                    t = with_format(plain, first_enc.fmt, first_enc.origin)
                self._types[kind] = t
            built.append(t)
        return built.__getitem__

    def dictionary(self, seen: Sequence[Attribute], what: str) -> Slot:
        """A kernel's `attrs` that differ between gears only in tensor types (a heavy-format
        kernel's `_input_desc`): each entry constant or fitted."""
        dicts = [v.data for v in seen if isinstance(v, DictionaryAttr)]
        keys = list(dicts[0])
        if len(dicts) != len(seen) or any(list(d) != keys for d in dicts):
            raise NotSymbolic(f"{what}: attribute names differ between gears")
        entries = {k: self.value([d[k] for d in dicts], f"{what} {k}") for k in keys}
        return lambda g: DictionaryAttr({k: entry(g) for k, entry in entries.items()})

    def value(self, seen: Sequence[Attribute], what: str) -> Slot:
        first = seen[0]
        if all(v == first for v in seen):
            return lambda g: first
        if all(isinstance(v, TensorType) for v in seen):
            return self.tensor_type(seen, what)
        arrays = [v.data for v in seen if isinstance(v, ArrayAttr)]
        if len(arrays) == len(seen) and len({len(a) for a in arrays}) == 1:
            items = [self.value([a[k] for a in arrays], what) for k in range(len(arrays[0]))]
            return lambda g: ArrayAttr([item(g) for item in items])
        raise NotSymbolic(f"{what} differs between gears")

    def slot(self, name: str, seen: Sequence[Attribute], op: Operation, ids: _Ids) -> Slot:
        what = f"'{op.name}' {name}"
        if all(v == seen[0] for v in seen):
            value = seen[0]
            if isinstance(value, BufferAttr):
                return self.buffer([v for v in seen if isinstance(v, BufferAttr)], what)
            if isinstance(value, ArrayAttr) and any(isinstance(b, BufferAttr) for b in value):
                return self.buffers(seen, what)
            if name in _IDS and isinstance(value, IntegerAttr):
                return ids.slot(_IDS[name], [value.value.data] * len(seen), what)
            return lambda g: value
        if name in _IDS:
            values = [v.value.data for v in seen if isinstance(v, IntegerAttr)]
            return ids.slot(_IDS[name], values, what)
        if name == LABELS and all(isinstance(v, DenseArrayBase) for v in seen):
            arrays = [
                [int(x) for x in v.get_values()] for v in seen if isinstance(v, DenseArrayBase)
            ]
            if len({len(a) for a in arrays}) != 1:
                raise NotSymbolic(f"{what}: label counts differ")
            items = [ids.slot("label", [a[k] for a in arrays], what) for k in range(len(arrays[0]))]
            return lambda g: DenseArrayBase.from_list(
                i64,
                [item(g).value.data for item in items],  # pyright: ignore[reportAttributeAccessIssue]
            )
        if name == "node_name":
            return _renamed(seen, what)
        if all(isinstance(v, BufferAttr) for v in seen):
            return self.buffer([v for v in seen if isinstance(v, BufferAttr)], what)
        if all(isinstance(v, ArrayAttr) for v in seen):
            return self.buffers(seen, what)
        if all(isinstance(v, DictionaryAttr) for v in seen):
            return self.dictionary(seen, what)
        raise NotSymbolic(f"{what} differs between gears")

    def buffers(self, seen: Sequence[Attribute], what: str) -> Slot:
        arrays = [v.data for v in seen if isinstance(v, ArrayAttr)]
        if len({len(a) for a in arrays}) != 1:
            raise NotSymbolic(f"{what}: buffer counts differ")
        slots: list[Slot] = []
        for k in range(len(arrays[0])):
            items = [a[k] for a in arrays]
            if not all(isinstance(b, BufferAttr) for b in items):
                raise NotSymbolic(f"{what}: not a list of arena buffers")
            slots.append(self.buffer([b for b in items if isinstance(b, BufferAttr)], what))
        return lambda g: ArrayAttr([s(g) for s in slots])


def _renamed(seen: Sequence[Attribute], what: str) -> Slot:
    """A branch node's name: the same in every probe but for the branch postfix, which ends
    the name or comes before a suffix a later pass added (a TransData's `..._batch_0/...`)."""
    bases: set[tuple[str, str]] = set()
    for k, v in enumerate(seen):
        postfix = f"{BRANCH_NODE_POSTFIX}{k}"
        text = v.data if isinstance(v, StringAttr) else ""
        at = text.rfind(postfix)
        end = at + len(postfix)
        if at < 0 or (end < len(text) and text[end].isdigit()):
            raise NotSymbolic(f"{what} is no branch node name")
        bases.add((text[:at], text[end:]))
    if len(bases) != 1:
        raise NotSymbolic(f"{what} differs between gears beyond the branch postfix")
    head, tail = bases.pop()
    return lambda g: StringAttr(f"{head}{BRANCH_NODE_POSTFIX}{g}{tail}")


@dataclass
class _Ids:
    """Streams and events: shared ones keep their ids, a section's own get fresh ones."""

    local: dict[str, list[set[int]]]  # kind -> per probe section, the ids only it uses
    shared: dict[str, set[int]]
    first: dict[str, int]  # kind -> the first fresh id
    per_gear: dict[str, int]  # kind -> local ids per section
    numbering: dict[str, dict[int, int]]  # kind -> env-section local id -> its rank
    env: int
    matched: dict[tuple[str, int, int], int]  # (kind, probe, its id) -> the env's id

    def slot(self, kind: str, seen: Sequence[int], what: str) -> Slot:
        if all(v in self.shared[kind] for v in seen) and len(set(seen)) == 1:
            value = IntegerAttr(seen[0], i64)
            return lambda g: value
        if not all(v in self.local[kind][k] for k, v in enumerate(seen)):
            raise NotSymbolic(f"{what}: a {kind} shared between some branches only")
        own = seen[self.env]
        for k, v in enumerate(seen):  # the probes' own ids correspond one to one
            if self.matched.setdefault((kind, k, v), own) != own:
                raise NotSymbolic(f"{what}: the {kind}s of the branches do not correspond")
        rank = self.numbering[kind][own]
        first, count = self.first[kind], self.per_gear[kind]
        return lambda g: IntegerAttr(first + g * count + rank, i64)


def instantiate(module: ModuleOp, name: str, config: GearConfig, probes: list[Gear]) -> None:
    """Rewrites the compiled probe model `@name` of `module` (its branches the gears
    `probes`, in order) in place into the model of every gear of `config`; NotSymbolic when
    the probes do not explain a gear. A probe that is no gear (`virtual_probe`) lends its
    plan and its fit only: the inputs and outputs are declared by the real gears. Other
    models in `module` (hybrid mode's dynamic graph) are left as they are."""
    models = [op for op in module.ops if isinstance(op, ModelOp)]
    gear_models = [m for m in models if BATCH_NUM in m.attributes]
    if [m.sym_name.data for m in gear_models] != [name] or len(models) != len(list(module.ops)):
        raise NotSymbolic("the compiled module is not one gear model (and hybrid mode's)")
    model = gear_models[0]
    m = len(probes)
    layout = _Layout.of(model, m)
    # every branch but the last ends in a goto to the end label; the last falls through
    gotos = [s[-1] for s in layout.sections[:-1]]
    if not all(isinstance(op, LabelGotoOp) for op in gotos) or any(
        op.properties != gotos[0].properties for op in gotos
    ):
        raise NotSymbolic("the branches do not end in one goto to the end label")
    goto = gotos[0]
    sections = [s[:-1] for s in layout.sections[:-1]] + [layout.sections[-1]]
    sections = [_waits_in_record_order(s) for s in sections]
    layout.sections = sections
    lengths = {len(s) for s in sections}
    if len(lengths) != 1:
        raise NotSymbolic("the branch sections have different task counts")
    for ops in zip(*sections, strict=True):
        kinds = {type(op) for op in ops}
        if len(kinds) != 1 or not isinstance(ops[0], _SECTION_OPS):
            raise NotSymbolic(f"'{ops[0].name}' in a branch section")
        if any(op.attributes != ops[0].attributes for op in ops):
            raise NotSymbolic(f"'{ops[0].name}' attributes differ between gears")
    env = max(range(m), key=lambda k: _section_bytes(sections[k]))
    ids = _ids_of(layout, env)
    # the gear table: the MapIndex kernel's second input, a weight
    maps = [
        op for op in layout.head if isinstance(op, KernelOp) and op.kernel.data == MAP_INDEX_KERNEL
    ]
    if len(maps) != 1 or len(maps[0].inputs.data) != 2:
        raise NotSymbolic("no MapIndex task reads the gear table")
    table_buffer = maps[0].inputs.data[1]
    weights = {w.buffer.offset_value: w for w in layout.decls if isinstance(w, WeightOp)}
    table = weights.get(table_buffer.offset_value)
    probe_values = [v for g in probes for v in g]
    if table is None or list(table.value.get_values()) != probe_values:
        raise NotSymbolic("the gear table weight is not the probes' table")
    values = [v for g in config.gears for v in g]
    table_type: TensorType[IntegerType] = TensorType(i32, [len(values)])
    old_bytes, new_bytes = table.buffer.nbytes, len(values) * 4
    shift = _align(new_bytes) - _align(old_bytes)
    weight_size = model.weight_size.value.data
    inst = _Instantiation(
        config,
        probes,
        layout,
        env,
        table.buffer.offset_value,
        shift,
        weight_size,
        _Fit(config, probes),
    )
    # the section labels first (a branch's own labels follow every gear's section label, as
    # the lowering makes them), then the slots and output dims, before anything is changed
    section_labels = [s[0] for s in sections]
    local_labels: set[int] = set().union(*ids.local["label"])
    shared_labels = {
        label
        for op in (*layout.head, *layout.tail, *(op for s in sections for op in s[1:]))
        for label in _ids([op], "label")
    } - local_labels
    label_values = [op.label.value.data for op in section_labels if isinstance(op, LabelSetOp)]
    if shared_labels & set(label_values):
        raise NotSymbolic("a branch label is used outside its branch")
    first_label = max(shared_labels, default=-1) + 1
    if any(v < first_label for v in label_values):
        raise NotSymbolic("branch labels are not after the shared labels")
    if any(v < first_label + m for v in local_labels):
        raise NotSymbolic("a branch's own labels are not after the section labels")
    ids.first["label"] = first_label + config.gear_count
    plans: list[tuple[type[Operation], list[tuple[str, Slot]], Operation]] = []
    for at, ops in enumerate(zip(*sections, strict=True)):
        first = ops[0]
        slots = [
            (key, inst.slot(key, [op.properties[key] for op in ops], first, ids))
            for key in first.properties
            if not (at == 0 and key == "label")  # the section's own label, set per gear
        ]
        if any(set(op.properties) != set(first.properties) for op in ops):
            raise NotSymbolic(f"'{first.name}' properties differ between gears")
        plans.append((type(first), slots, ops[env]))
    output_attrs, output_shapes = _output_dims(model, inst)
    if any(g not in config.gears for g in probes):
        _check_declarations(layout, config, output_attrs)
    # ---- write the model -------------------------------------------------------------------
    new_ops: list[Operation] = []
    for op in layout.decls:
        if isinstance(op, StreamOp | EventOp):
            kind = "stream" if isinstance(op, StreamOp) else "event"
            if op.id.value.data not in ids.shared[kind]:
                continue
        new_ops.append(_moved_decl(op, inst, table, table_type, values))
    streams = [op for op in new_ops if isinstance(op, StreamOp)]
    events = [op for op in new_ops if isinstance(op, EventOp)]
    engines = {s.id.value.data: s.engine.data for s in layout.decls if isinstance(s, StreamOp)}
    local_streams = sorted(ids.numbering["stream"], key=ids.numbering["stream"].__getitem__)
    for g in range(config.gear_count):
        for rank, sid in enumerate(local_streams):
            streams.append(
                StreamOp(ids.first["stream"] + g * ids.per_gear["stream"] + rank, engines[sid])
            )
        for rank in range(ids.per_gear["event"]):
            events.append(EventOp(ids.first["event"] + g * ids.per_gear["event"] + rank))
    others = [op for op in new_ops if not isinstance(op, StreamOp | EventOp)]
    decls = [*streams, *events, *others]
    body: list[Operation] = []
    for op in layout.head:
        body.append(_moved_task(op, inst, table_buffer, table_type))
    labels = [first_label + g for g in range(config.gear_count)]
    body.append(
        LabelSwitchByIndexOp.create(
            properties={
                **layout.switch.properties,
                "index": _moved_buffer(layout.switch.index, inst),
                "labels": DenseArrayBase.from_list(i64, labels),
            },
            attributes=dict(layout.switch.attributes),
        )
    )
    for g in range(config.gear_count):
        for k, (cls, slots, proto) in enumerate(plans):
            properties = {key: s(g) for key, s in slots}
            if k == 0:
                properties["label"] = IntegerAttr(labels[g], i64)
            body.append(cls.create(properties=properties, attributes=dict(proto.attributes)))
        if g < config.gear_count - 1:
            body.append(goto.clone())
    for op in layout.tail:
        body.append(_moved_task(op, inst, table_buffer, table_type))
    block = model.body.block
    for op in list(block.ops):
        op.detach()
        op.erase(safe_erase=False)
    block.add_ops([*decls, *body])
    attrs = {k: v for k, v in model.attributes.items() if not k.startswith(PRED_VALUE_PREFIX)}
    attrs[BATCH_NUM] = IntegerAttr(config.gear_count, i64)
    for g, gear in enumerate(config.gears):
        attrs[f"{PRED_VALUE_PREFIX}{g}"] = DenseArrayBase.from_list(i64, gear)
    attrs[DYNAMIC_OUTPUT_DIMS] = output_attrs
    attrs[SYMBOLIC_OUTPUT_SHAPE] = output_shapes
    own = config.gear_count * ids.per_gear["label"]
    attrs[LABEL_NUM] = IntegerAttr(max(labels) + own + 1, i64)
    model.attributes = _ordered(model.attributes, attrs)
    model.weight_size = IntegerAttr(weight_size + shift, i64)
    model.arena_size = IntegerAttr(model.arena_size.value.data + shift, i64)


def _waits_in_record_order(section: list[Operation]) -> list[Operation]:
    """`section` with each run of event waits on one stream in the order of their records:
    a stream waits for all of them before it goes on, so their order means nothing, but the
    scheduler may order them differently per gear (by buffer size), which would make the
    probes' sections differ."""
    recorded = {
        op.event.value.data: i for i, op in enumerate(section) if isinstance(op, EventRecordOp)
    }
    out: list[Operation] = []
    run: list[EventWaitOp] = []

    def flush() -> None:
        run.sort(key=lambda w: recorded.get(w.event.value.data, -1))
        out.extend(run)
        run.clear()

    for op in section:
        if isinstance(op, EventWaitOp) and (not run or run[0].stream == op.stream):
            run.append(op)
            continue
        flush()
        if isinstance(op, EventWaitOp):
            run.append(op)
        else:
            out.append(op)
    flush()
    return out


def _ordered(old: dict[str, Attribute], new: dict[str, Attribute]) -> dict[str, Attribute]:
    """`new` in a full compile's order: `_batch_num`, the `_pred_value_<g>`, then the rest."""
    head = {BATCH_NUM: new[BATCH_NUM]}
    head |= {k: v for k, v in new.items() if k.startswith(PRED_VALUE_PREFIX)}
    rest = {k: v for k, v in new.items() if k not in head}
    del old
    return head | rest


def _section_bytes(section: Sequence[Operation]) -> int:
    total = 0
    for op in section:
        for value in op.properties.values():
            items = value.data if isinstance(value, ArrayAttr) else (value,)
            total += sum(b.nbytes for b in items if isinstance(b, BufferAttr))
    return total


def _ids_of(layout: _Layout, env: int) -> _Ids:
    everything = [*layout.head, layout.switch, *layout.tail]
    local: dict[str, list[set[int]]] = {}
    shared: dict[str, set[int]] = {}
    first: dict[str, int] = {}
    per_gear: dict[str, int] = {}
    numbering: dict[str, dict[int, int]] = {}
    decls = {
        "stream": {op.id.value.data for op in layout.decls if isinstance(op, StreamOp)},
        "event": {op.id.value.data for op in layout.decls if isinstance(op, EventOp)},
        "label": _ids([*everything, *(op for s in layout.sections for op in s)], "label"),
    }
    for kind in ("stream", "event", "label"):
        used = [_ids(s, kind) for s in layout.sections]
        outside = _ids(everything, kind)
        per: list[set[int]] = []
        for k, ids in enumerate(used):
            elsewhere = outside.union(*(u for j, u in enumerate(used) if j != k))
            per.append(ids - elsewhere)
        local[kind] = per
        shared[kind] = decls[kind] - set().union(*per)
        counts = {len(p) for p in per}
        if len(counts) != 1:
            raise NotSymbolic(f"the branches have different numbers of own {kind}s")
        per_gear[kind] = counts.pop()
        first[kind] = max(shared[kind], default=-1) + 1
        order: dict[int, int] = {}
        if kind == "label":  # labels are numbered in the order they were made
            numbering[kind] = {v: rank for rank, v in enumerate(sorted(per[env]))}
            continue
        for op in layout.sections[env]:  # first use order in the largest branch
            for name, k in _IDS.items():
                value = op.properties.get(name)
                if k == kind and isinstance(value, IntegerAttr):
                    v = value.value.data
                    if v in per[env] and v not in order:
                        order[v] = len(order)
        numbering[kind] = order
    return _Ids(local, shared, first, per_gear, numbering, env, {})


def _moved_buffer(buffer: BufferAttr, inst: _Instantiation) -> BufferAttr:
    offset = inst.moved(buffer.offset_value)
    return buffer if offset == buffer.offset_value else BufferAttr(offset, buffer.type)


def _moved_attr(value: Attribute, inst: _Instantiation) -> Attribute:
    if isinstance(value, BufferAttr):
        return _moved_buffer(value, inst)
    if isinstance(value, ArrayAttr) and any(isinstance(b, BufferAttr) for b in value.data):
        return ArrayAttr([_moved_attr(b, inst) for b in value.data])
    return value


def _moved_decl(
    op: Operation,
    inst: _Instantiation,
    table: WeightOp,
    table_type: TensorType[IntegerType],
    values: list[int],
) -> Operation:
    if op is table:
        return WeightOp.create(
            properties={
                **op.properties,
                "buffer": BufferAttr(table.buffer.offset_value, table_type),
                "value": DenseIntOrFPElementsAttr.from_list(table_type, values),
            },
            attributes=dict(op.attributes),
        )
    properties = {k: _moved_attr(v, inst) for k, v in op.properties.items()}
    if properties == dict(op.properties):
        op.detach()
        return op
    return op.create(properties=properties, attributes=dict(op.attributes))


def _moved_task(
    op: Operation, inst: _Instantiation, table_buffer: BufferAttr, table_type: TensorType
) -> Operation:
    if op.regions or op.operands or op.results:
        raise NotSymbolic(f"'{op.name}' outside the branches is not a plain task")
    properties: dict[str, Attribute] = {}
    for k, v in op.properties.items():
        if isinstance(v, ArrayAttr) and table_buffer in v.data:
            v = ArrayAttr(
                [
                    BufferAttr(table_buffer.offset_value, table_type) if b == table_buffer else b
                    for b in v.data
                ]
            )
        properties[k] = _moved_attr(v, inst)
    return op.create(properties=properties, attributes=dict(op.attributes))


def _output_dims(
    model: ModelOp, inst: _Instantiation
) -> tuple[ArrayAttr[StringAttr], ArrayAttr[ArrayAttr[StringAttr]]]:
    """`_dynamic_output_dims` for every gear, each output's dims fitted over the probes, and
    `_symbolic_output_shape`: the fits' expressions (an output the expansion returns as it
    is, of one entry per gear, keeps the expansion's expression; `?` stays `?`)."""
    entries = parse_output_dims(model.attributes.get(DYNAMIC_OUTPUT_DIMS))
    m = len(inst.probes)
    if any(g not in entries for g in range(m)):
        raise NotSymbolic("a probe has no output dims")
    result: list[StringAttr] = []
    outputs = sorted(entries[0])
    if any(sorted(entries[g]) != outputs for g in range(m)):
        raise NotSymbolic("the probes' outputs differ")
    per_output: dict[int, list[list[int]]] = {}
    exprs: dict[int, list[StringAttr]] = {}
    for o in outputs:
        ranks = {len(entries[g][o]) for g in range(m)}
        if len(ranks) != 1:
            raise NotSymbolic(f"output {o} has different ranks over the probes")
        fits = [
            inst.fit.fitted([entries[g][o][d] for g in range(m)], f"output {o} dim {d}")
            for d in range(ranks.pop())
        ]
        per_output[o] = [values for _, values in fits]
        exprs[o] = [StringAttr(str(affine)) for affine, _ in fits]
    # the expansion's order: each gear's produced outputs, then each other output (a root
    # input returned as it is: one entry per gear, or one for any gear), as the probes have it
    raw = [
        tuple(int(v) for v in e.data.split(",")[:2])
        for e in _strings(model.attributes.get(DYNAMIC_OUTPUT_DIMS))
    ]
    first_other = next((i for i, (g, _) in enumerate(raw) if g != 0), len(raw))
    produced = [o for _, o in raw[:first_other]]
    others: list[int] = []
    for _, o in raw[first_other:]:
        if o not in produced and o not in others:
            others.append(o)
    if sorted(produced + others) != sorted({*outputs, *entries.get(-1, {})}):
        raise NotSymbolic("the output dims are not in the expansion's order")
    for g in range(inst.config.gear_count):
        for o in produced:
            result.append(output_dims_entry(g, o, [dim[g] for dim in per_output[o]]))
    for o in others:
        if o in per_output:
            for g in range(inst.config.gear_count):
                result.append(output_dims_entry(g, o, [dim[g] for dim in per_output[o]]))
            continue
        dims = entries[-1][o]
        result.append(output_dims_entry(-1, o, dims))
        exprs[o] = [
            StringAttr(UNKNOWN_EXPR if d < 0 else str(Affine(Fraction(0), Fraction(d), None)))
            for d in dims
        ]
    if sorted(exprs) != list(range(len(exprs))):
        raise NotSymbolic("the output dims do not name every output")
    shapes = ArrayAttr([ArrayAttr(exprs[o]) for o in range(len(exprs))])
    return ArrayAttr(result), shapes


def _strings(attr: Attribute | None) -> list[StringAttr]:
    if not isinstance(attr, ArrayAttr):
        return []
    return [e for e in attr.data if isinstance(e, StringAttr)]


def _check_declarations(
    layout: _Layout, config: GearConfig, output_dims: ArrayAttr[StringAttr]
) -> None:
    """With a virtual probe: every input declared as GE's SetMaxShape declares it over the
    real gears, every output as one real gear's (the probes' declarations are kept)."""
    for op in layout.decls:
        if isinstance(op, InputOp | OutputOp) and not isinstance(op.buffer, BufferAttr):
            raise NotSymbolic("a model input or output of no static buffer")
        if isinstance(op, InputOp) and op.input_name.data in {s.name for s in config.inputs}:
            assert isinstance(op.buffer, BufferAttr)
            shape = op.buffer.type.get_shape()
            if shape != config.max_shape(op.input_name.data):
                raise NotSymbolic(f"input {op.input_name.data} is declared by the virtual probe")
    entries = parse_output_dims(output_dims)
    outputs = [op for op in layout.decls if isinstance(op, OutputOp)]
    for o, op in enumerate(outputs):
        shapes = {tuple(entries[g][o]) for g in entries if o in entries[g]}
        assert isinstance(op.buffer, BufferAttr)
        if op.buffer.type.get_shape() not in shapes:
            raise NotSymbolic(f"output {o} is declared by the virtual probe")
