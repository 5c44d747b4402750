"""NAS latency: HELP/NAS-Bench-201 data, graph text, NB201 torch network, training and evaluation."""
