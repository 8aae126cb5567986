"""Entry point for `python -m robodesc`: the same command line as the `robodesc` script."""

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
