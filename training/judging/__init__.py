"""Judging: evaluation, the gate's quality on pairs and variants, the baselines and trees."""
