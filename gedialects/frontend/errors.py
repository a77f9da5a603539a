"""The front end's error type, in a module of its own so that a tool can name it (its
`main` lists it among the user errors) without importing the importer: that pulls in the
`onnx` package (and through it ml_dtypes, about 2 s), which `ge-atc --help` or a usage
error does not need."""


class OnnxImportError(ValueError):
    """The model cannot be imported; the message is one line naming the node where known."""
