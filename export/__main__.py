from export.cli import main

raise SystemExit(main())
