"""Tests of langchain_jev.report."""
