"""``python -m langchain_jev.testing.server``: serve scripted Jev answers (see the package's face)."""

import sys

from langchain_jev.testing.server._command import main

if __name__ == "__main__":
    sys.exit(main())
