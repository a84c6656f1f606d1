"""Identification risk at a given noise: the closed forms, the posterior,
the worst case and the expected success, several releases, membership,
Gaussian identifiability and the chunked (out-of-core) evaluations.
"""
