from rlm_lsp.export.cli import main

raise SystemExit(main())
