"""Tests of langchain_jev.calibration."""
