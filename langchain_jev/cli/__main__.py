"""``python -m langchain_jev.cli``: the same as the ``langchain-jev`` command."""

import sys

from langchain_jev.cli._app import main

if __name__ == "__main__":
    sys.exit(main())
