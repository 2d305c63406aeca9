"""``python -m symgrad``: the ``symgrad`` command."""

from .cli import main

raise SystemExit(main())
