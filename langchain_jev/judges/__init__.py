"""Prebuilt judges: the evaluators users reach for first, as typed atomic questions."""
