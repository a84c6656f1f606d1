"""Mechanisms as values (Laplace, Gaussian, integer noises, randomized
response, privacy-loss distributions, compositions) with their two-world
measures, their calibration to an attack target and their explanation.
"""
