"""ONNX converters: matrix ops."""
