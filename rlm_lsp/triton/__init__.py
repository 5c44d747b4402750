"""The Triton kernel family: a kernel's text, its GPU and shape context."""
