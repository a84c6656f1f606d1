"""Numerical building blocks shared by every concern: input validation,
double-double arithmetic, the batched searches and inversions, grouping of
equal values, progress reporting and the memory budget.
"""
