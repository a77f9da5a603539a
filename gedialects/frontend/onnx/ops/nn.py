"""ONNX converters: nn ops."""
