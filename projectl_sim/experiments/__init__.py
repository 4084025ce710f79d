"""Experiments: the drivers that play many runs through the runner and read them back.

Each module builds run specifications, plays them with ``sim.runner`` and asks ``analysis``
about the tables, so it sits above both and below the command line:

- ``precision``: grow a run batch by batch until every requested interval is narrow enough
  (``run --until-precision``);
- ``tune``: search rule or bot parameters for the smallest balance objective, then confirm the
  best settings on fresh deals (``tune``);
- ``trial``: a new puzzle played in the place of a printed card on paired deals (``puzzle try``);
- ``ladder``: every bot and budget rated on one scale, with its cost (``ladder``);
- ``tiers`` and ``replicates``: the axes of a study played once per skill tier, and of each deal
  played several times per seating (``run --tiers``, ``--deal-replicates``), declared to the run
  specification here (importing this package declares them: a tiered run resumes once it is);
- ``sweep``: the small seeded sweeps the notebooks start from.
"""

from projectl_sim.experiments import replicates, tiers  # noqa: F401  (their axes)
