"""Every exception rlm-lsp raises on purpose, in one hierarchy:

    RlmError                    catch this for "rlm could not do it"; the message says why
    ├── ModelError              the model directory cannot be used: missing, corrupt or mismatched file,
    │                           a model made for another runtime (the message names the file)
    ├── InputError (ValueError) this input cannot be scored: empty code, unknown language
    │   ├── FileProblem         a file that cannot be read as code: not a regular file, binary, too large
    │   ├── GraphError          not a readable ONNX model, or too large
    │   └── UnknownDevice       a target device the network model has no description for
    ├── ConfigError             a setting that cannot be used ([tool.rlm], a flag); names the key and value
    ├── GitError                a git command failed (the gate); carries git's own words
    └── ExportError             a checkpoint that cannot be exported (rlm-export)

The names stay importable from where they were first defined (`rlm_lsp.runtime.model_dir.ModelError`,
`rlm_lsp.runtime.predictor.InputError`, `rlm_lsp.networks.graph_text.GraphError`, `rlm_lsp.networks.nas.UnknownDevice`,
`rlm_lsp.policy.project_config.ConfigError`, `rlm_lsp.gate.git.GitError`, ...): they are these classes.
"""

from __future__ import annotations

__all__ = ["ConfigError", "ExportError", "FileProblem", "GitError", "GraphError", "InputError", "ModelError",
           "RlmError", "UnknownDevice"]


class RlmError(Exception):
    """Base of every error rlm-lsp raises on purpose."""


class ModelError(RlmError):
    """The model directory cannot be used. The message names the file and what is wrong."""


class InputError(RlmError, ValueError):
    """This input cannot be scored (empty code, unknown language)."""


class FileProblem(InputError):
    """A file that cannot be scored: unreadable, not a regular file, binary, not UTF-8, too large."""


class GraphError(InputError):
    """The file is not a readable ONNX model, or is too large. The message says which and why."""


class UnknownDevice(InputError):
    """The network model has no description for this target device name."""


class ConfigError(RlmError):
    """A setting that cannot be used; the message names the key or flag and the value."""


class GitError(RlmError):
    """A git command failed; the message carries git's own words."""


class ExportError(RlmError):
    """The checkpoint cannot be exported; the message says why."""
