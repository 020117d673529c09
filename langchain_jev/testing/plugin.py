"""Pytest plugin of langchain-jev: the ``jev_model`` fixture and ``--jev-require``."""
