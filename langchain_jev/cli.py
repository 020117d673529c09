"""Command line of langchain-jev."""


def main() -> int:
    """Run the command line."""
    raise SystemExit("langchain-jev: the command line is not built yet")
