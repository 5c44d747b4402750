"""The application: the CLI, the gate's rules and the project settings (the server is rlm_lsp.server)."""
