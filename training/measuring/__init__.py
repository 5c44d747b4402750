"""Measuring: the harness and sandbox, the datasets' programs, inputs, ladders and variants."""
