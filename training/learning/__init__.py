"""Learning: the model, its data, training loops, pre-training, soups and checkpoints."""
