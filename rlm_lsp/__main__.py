"""`python -m rlm_lsp [--tcp HOST:PORT]`: start the language server (stdio by default)."""

from rlm_lsp.server import main

raise SystemExit(main())
