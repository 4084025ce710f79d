"""Simulation: play one game (``play``), specify a run (``spec``), run it (``runner``), its outcome
tables (``tables``), their summary (``summary``) and the notebooks' seeded sweeps (``sweep``).

Importing this package imports none of its modules: the runner needs joblib, pyarrow and tqdm,
which playing one game does not.
"""
