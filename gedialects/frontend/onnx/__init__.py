"""ONNX front end: `import_model(path_or_ModelProto) -> ModuleOp` with one `graph.graph`.

    from gedialects.frontend.onnx import import_model
    module = import_model("model.onnx")

Supported: ai.onnx opsets 11 to the newest the installed onnx knows (older models are upgraded
with onnx.version_converter), tensor inputs of float/float16/double, signed and unsigned
8-64-bit integers and bool, and the op types of `supported_ops()`. Errors are
`OnnxImportError`s with one-line messages naming the file or the node.
"""

from gedialects.frontend.onnx.importer import (
    ELEMENT_TYPES,
    MIN_OPSET,
    import_model,
    import_proto,
    load_model,
    max_opset,
)
from gedialects.frontend.onnx.registry import (
    NodeContext,
    OnnxImportError,
    converter,
    get_converter,
    supported_ops,
)

__all__ = [
    "ELEMENT_TYPES",
    "MIN_OPSET",
    "NodeContext",
    "OnnxImportError",
    "converter",
    "get_converter",
    "import_model",
    "import_proto",
    "load_model",
    "max_opset",
    "supported_ops",
]
