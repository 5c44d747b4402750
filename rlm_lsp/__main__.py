"""`python -m rlm_lsp [--tcp HOST:PORT]`: start the language server (stdio by default).

`python -m rlm_lsp predict|gate|serve|measure ...` is `rlm predict|gate|serve|measure ...` (`rlm_lsp.app.cli`), for a
machine where the `rlm` script is not on PATH; anything else is the server's command line."""

import sys

if len(sys.argv) > 1 and sys.argv[1] in ("predict", "gate", "serve", "measure"):
    from rlm_lsp.app.cli import main as cli

    raise SystemExit(cli(sys.argv[1:]))

from rlm_lsp.server import arguments, preload  # noqa: E402

arguments.parse(sys.argv[1:])  # a bad argument exits here, before a thread starts loading the model
preload.start()  # the model loads in a thread while the server's imports run (#61)

from rlm_lsp.server import main  # noqa: E402

raise SystemExit(main())
