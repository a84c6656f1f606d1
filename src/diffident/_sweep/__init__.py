"""Columns in, table out: `sweep` calibrates every column, query, noise
and risk of a dataset and returns a `SweepTable`.
"""
