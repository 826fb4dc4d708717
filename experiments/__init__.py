"""Reproduction studies: one module per table or figure of the CORELS, FRL and OSDT papers.

``python -m experiments --list`` names them; ``python -m experiments <study>`` runs one and writes a CSV of raw
results, a Markdown table with the paper's values beside ours, and figures (PNG and PDF) into ``results/<study>/``.
"""
