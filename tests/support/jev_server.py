"""The loopback Jev-compatible server of the tests: `langchain_jev.testing.server`, under its old name."""

from __future__ import annotations

import sys

from langchain_jev.testing.server import Fault, JevServer, Received, main, wire_answer, zstd_decompress

__all__ = ["Fault", "JevServer", "Received", "main", "wire_answer", "zstd_decompress"]

if __name__ == "__main__":
    sys.exit(main())
