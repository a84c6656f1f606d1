"""The least noise that keeps a risk under rho: for one set of worlds
(`tight_scale`, `tight_epsilon`, the expected success) and for every
neighbouring dataset D' (`dataset_tight_scale`).
"""
