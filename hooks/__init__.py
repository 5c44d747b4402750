"""Git hooks for rlm-lsp.

`rlm_lsp.gate.gate` (folder `hooks/`) is the pre-commit regression gate (`rlm-gate`, also `rlm gate`): it predicts
peak memory and latency of every function a change touches, before and after, and fails
when a prediction grows past a ratio or a budget. The other modules are its pure parts:

- `rlm_lsp.gate.git`: read-only git plumbing (changed files, blobs from a ref or the index).
- `rlm_lsp.policy.project_config`: `[tool.rlm]` from pyproject.toml, merged with command-line overrides (the server reads it too).
- `rlm_lsp.gate.compare`: which functions changed (normalized code, renames), and the verdict.
- `rlm_lsp.gate.report`: text lines, JSON and Markdown reports.
- `rlm_lsp.gate.measured`: `--measure`, the committed and new versions run in the sandbox, the measured class decides.

Nothing here imports pygls; the model is only loaded when some function needs predicting.
"""
