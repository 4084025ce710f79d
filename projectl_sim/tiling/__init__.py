"""Tiling: can a puzzle be filled with given pieces, which pieces fill it, and the atlas of
every puzzle's fills (fill: the compiled search; cpsat: an independent CP-SAT check; atlas:
the per-puzzle tables and chart)."""
