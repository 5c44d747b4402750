"""The shared runtime: model directory, ONNX sessions, seq2seq decoding, number format, template, Predictor and Prediction."""
