"""Simulation: play one game (``play``), specify a run (``spec``), run it (``runner``) in worker
processes (``workers``), its outcome tables (``tables``), their summary (``summary``) and the
notebooks' seeded sweeps (``sweep``).

Importing this package imports none of its modules: the runner needs pyarrow, tqdm and (for a
cluster) dask.distributed, which playing one game does not.
"""
