"""ONNX op converters, one module per op category (see `registry.converter`)."""
