"""The worlds an attacker weighs: world-set types (`Domain`, candidates,
queries), the query values of the worlds of one dataset, and the
structure of those values (equally spaced, one dominating world).
"""
