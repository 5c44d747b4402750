"""What the gate and the editor judge by, below both (`rlm_lsp.app` and `rlm_lsp.server` read it; it
reads neither): the regression rules (`rules`, `structural`), a project's settings (`project_config`,
`setting_values`, `options`) and which code of a file is read (`sources`)."""
