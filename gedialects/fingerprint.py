"""The fingerprint of a module: equal fingerprints, same IR, same verification result.

`ge-opt` verifies the whole module after each stage of `ge-compile`, as MLIR verifies after
each pass; many stages leave a module as it is (a check, a partition with nothing to split,
a placement already made), and verifying it again can only give the same answer. The
fingerprint is a flat list of everything a verifier can see, in walk order: each op's name
and class, its operands (numbered by the op or block argument that defines them), result
types, properties, attributes, regions, blocks and their argument types, successors. Values
and blocks are numbered within the fingerprint (so no id of a dead object is kept), while
attributes are kept by reference (immutable; the list holds them alive, so an equal list
means equal attributes). Costs a few µs per op, against tens for a verification.
"""

from __future__ import annotations

from xdsl.ir import Operation


def fingerprint(root: Operation) -> list[object]:
    """Everything about `root` and the ops it holds that a verifier reads, as a list."""
    ops = list(root.walk())
    numbers: dict[int, int] = {}
    n = 0
    for op in ops:
        for region in op.regions:
            for block in region.blocks:
                numbers[id(block)] = n
                n += 1
                for arg in block.args:
                    numbers[id(arg)] = n
                    n += 1
        for result in op.results:
            numbers[id(result)] = n
            n += 1
    out: list[object] = []
    add, extend = out.append, out.extend
    for op in ops:
        add(type(op))
        add(op.name)
        operands = op.operands
        add(len(operands))
        # a value defined outside `root` is kept itself (alive with the list)
        extend(numbers.get(id(v), v) for v in operands)
        results = op.results
        add(len(results))
        extend(r.type for r in results)
        for table in (op.properties, op.attributes):
            add(len(table))
            for name, value in table.items():
                add(name)
                add(value)
        successors = op.successors
        add(len(successors))
        extend(numbers.get(id(b), b) for b in successors)
        regions = op.regions
        add(len(regions))
        for region in regions:
            add(len(region.blocks))
            for block in region.blocks:
                args = block.args
                add(len(args))
                extend(a.type for a in args)
                add(len(block.ops))
    return out
