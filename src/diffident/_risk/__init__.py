"""Identification risk at a given noise: closed forms, posteriors, worst and expected cases."""
