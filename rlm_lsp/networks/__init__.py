"""The ONNX network family: a graph read, shaped and written as text for the model."""
