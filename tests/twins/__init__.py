"""Brute-force twins: slow, obviously correct re-computations that import nothing from optbb."""
