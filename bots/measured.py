"""What was measured of the shipped bots: their strength on the skill ladder and their CPU cost.

Data, not code that measures: each ``Measured`` row is a bot spec with the rating the ladder gave
it (``projectl-sim ladder``: one Plackett-Luce fit, on the Elo scale with ``greedy`` at 0, 400
points are 10:1 odds, 2 players, both seatings of the same deals) and the CPU milliseconds one
of its decisions took in those games. ``projectl-sim bots`` prints them beside each bot, and
``projectl-sim run`` multiplies the costs by ``DECISIONS_PER_SEAT`` to say, before a long run
starts, about how long it will take (``cost_ms``; ``estimate_seconds``).

Where the figures come from (rerun the commands to refresh them; CPU figures depend on the
machine and its load, and a rating on the bots it was fitted with). A row's spec names its model
(``model=``) when it is not the shipped one, ``LADDER_MODEL``: a bare spec is the shipped model's.

- ``LADDER``: the ladder table of docs/how-to/which-players.md, on the shipped value model
  ``LADDER_MODEL`` (and, as its reference rung, today's flat search on the model shipped before
  it, ``PREVIOUS_MODEL``), 100 games a pair, on the compiled build of a shared 2-core machine
  at a load of 16-20 (its CPU figures are the deciding process's CPU time, which such a load
  inflates).
- ``EXTENDED``: a bot the ladder left out for its cost, placed on it by one joint fit over the
  ladder's run and that bot's head-to-head matches with the ladder's top rungs
  (``benchmarks/strength.py --ladder``), on the same machine and model.
- ``TOP``: the strongest search at the flat search's CPU, placed on the ladder the same way
  by its matches with today's flat search on ``PREVIOUS_MODEL`` (2,800 games).
- ``PREVIOUS``: the ladder before it, on ``PREVIOUS_MODEL`` (the same command and seed over
  greedy, rusher, value, ``mcts:leaf=value`` at 32 and 128 iterations and the flat search), for
  the bots the new one leaves out; their specs name that model.
- ``OLDER``: the ladder before that, on ``PREVIOUS_MODEL`` too (the same command and seed over
  other bots, when ``width=2`` was ``leaf=value``'s default and before ``value``'s ``takes=4``),
  for the bots neither later ladder has.
- ``HEURISTICS``: the same command over the other heuristics, on the pure-Python build of a
  shared 2-core machine. Its ``greedy`` and ``rusher`` rows are left out (the ladder's stand);
  its ``rusher`` rated +83 [+38, +130] there: ratings from two fits agree within their
  intervals, not to the point.
- ``BENCHMARKS``: CPU only, bots the ladder leaves out for their cost (docs/how-to/
  which-players.md and docs/benchmarks.md: ``benchmarks/bots.py``, ``benchmarks/decisions.py``).
- ``SOLO``: solo at Normal only (``benchmarks/strength.py --solo``, docs/benchmarks.md), for a bot
  that searches in solo alone: its CPU a decision there, on the compiled build of a loaded
  2-core machine (elsewhere it plays, and costs, as greedy).
- ``STRENGTH``: a head-to-head match on shared deals, seats swapped (``benchmarks/strength.py``;
  docs/benchmarks.md), for a bot not on the ladder, on ``PREVIOUS_MODEL``: its note says whom it
  played and how it scored, its CPU is the same run's, on the compiled build of a loaded 2-core
  machine.
- ``JOINT``: bots placed on the previous ladder after it was built, on another model (a spec's
  ``model=``; a row is its model's): one joint fit over that ladder's run, a small ladder run
  that adds them against its cheaper rungs and head-to-head matches with its top rungs, all on
  the compiled build of a loaded 2-core machine (load 20-25). The ladder's rows refitted so
  moved by at most 19 points (the flat search +363 [+324, +402] there).

A spec names the parameters it sets to other than their defaults (``mcts:leaf=value,width=0``
is ``mcts:leaf=value``), as the ladder's table does.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

LADDER_MODEL = "9271b03f1f1c"  # the shipped value model, which the ladder's learned bots played
PREVIOUS_MODEL = "previous-1f4245d84f5c"  # the model shipped before it, beside it by that name
LADDER = (
    "projectl-sim ladder --bots greedy,rusher,value,value:places=0,mcts:leaf=value,"
    "mcts:leaf=value,iterations=100,mcts:leaf=value,iterations=128,tree=turn,width=0,"
    f"mcts:leaf=value,iterations=128,tree=turn,width=0,model={PREVIOUS_MODEL} "
    f"--games 100 --jobs 2 --seed 3 --out ladder (model {LADDER_MODEL}; "
    "docs/how-to/which-players.md)"
)
EXTENDED = (
    "benchmarks/strength.py --ladder LADDER/run ADD/00 ADD/01 ADD/02 ADD/03 (one joint fit, "
    "greedy = 0) after benchmarks/strength.py --out ADD --games 100 --seed 3 --jobs 1 --pair "
    '"mcts:leaf=value,iterations=128" B for B the flat search on each model, '
    '"mcts:leaf=value,iterations=100" and "mcts:leaf=value" (docs/how-to/which-players.md)'
)
TOP = (
    "benchmarks/strength.py --ladder LADDER/run ADD/00..03 M/00... (one joint fit, greedy = 0) "
    "over the ladder's run, EXTENDED's matches and 2,800 games of benchmarks/strength.py --pair "
    '"mcts:leaf=value,iterations=115,prior=0.05,worlds=8" (the flat search on '
    f"{PREVIOUS_MODEL}) --games 400 --seed S --jobs 1, seeds 614-620 and 630-632 "
    "(docs/how-to/which-players.md)"
)
PREVIOUS = (
    "projectl-sim ladder --bots greedy,rusher,value,mcts:leaf=value,"
    "mcts:leaf=value,iterations=128,mcts:leaf=value,iterations=128,tree=turn,width=0 "
    f"--games 100 --jobs 2 --seed 3 --out ladder (model 1f4245d84f5c, now {PREVIOUS_MODEL})"
)
OLDER = (
    "projectl-sim ladder --bots greedy,rusher,value,value:rollouts=2,mcts:leaf=value,width=2,"
    "mcts:leaf=value,iterations=200,width=2 --games 100 --jobs 1 --seed 3 --out ladder "
    f"(model 1f4245d84f5c, now {PREVIOUS_MODEL}; run when width=2 was leaf=value's default)"
)
HEURISTICS = (
    "projectl-sim ladder --bots greedy,random,builder,setter,recycler,rusher --games 100 "
    "--jobs 1 --seed 3 --out ladder"
)
SOLO = (
    "benchmarks/strength.py --solo SPEC greedy --games 400 --seed 53 --jobs 1 (compiled, load "
    "16-25; the prior's two lines at --jobs 4 and 5, confirm=16's at 2, which give the same games; "
    "docs/benchmarks.md)"
)
CANDIDATE = "candidate-a0bf61a97e76"  # a model shipped beside the default one (session 59)
JOINT = (
    "benchmarks/strength.py --ladder LADDER/run ADD/run RUN... (one joint fit, greedy = 0): the "
    "previous ladder's run (PREVIOUS, model 1f4245d84f5c); projectl-sim ladder --bots "
    "greedy,rusher,value,mcts:leaf=value,"
    f"mcts:leaf=value,iterations=128,model={CANDIDATE},mcts:leaf=value,iterations=100,"
    f"model={CANDIDATE} --games 100 --jobs 2 --seed 603 --out ADD; and benchmarks/strength.py "
    "--pair A B --games 400 --seed 601 --jobs 1 of each candidate search against the same search "
    "on model 1f4245d84f5c, and of iterations=100 against its flat search (seeds 601, 3, 4) "
    '(docs/benchmarks.md, "The candidate model in the searches, and on the ladder")'
)
BENCHMARKS = "benchmarks/bots.py and benchmarks/decisions.py (docs/benchmarks.md)"
STRENGTH = (
    "benchmarks/strength.py --out DIR --games 200 --seed 3 (and --seed 4) --jobs 1 (2) --pair "
    '"mcts:leaf=value,iterations=100" "mcts:leaf=value,iterations=128,tree=turn" (compiled, '
    "load 13-25, pooled over the deals of both; model 1f4245d84f5c, shipped then); --scaling "
    '"mcts:leaf=value,tree=full,width=0,iterations={it}" --budgets 128,512 (docs/benchmarks.md, '
    '"Search that scales")'
)

# A seat's decisions in one game: greedy made 35-39 a seat on average at every player count
# from solo to Line Clear's 6 (60 games each, seed 5); other bots' games are about as long
# (the ladder's heuristics: 35-44).
DECISIONS_PER_SEAT = 38
# A game's cost beside its bots' decisions (dealing, the engine's steps, its table rows): about
# 4 ms on the pure-Python build (1,500 games of heuristics at 107 games a second on one core)
GAME_MS = 4.0
# The heuristics: their parameters weigh their choices, not how much they compute, so any of
# their specs costs what their default does
FLAT_COST = frozenset({"greedy", "rusher", "builder", "setter", "recycler", "random"})


@dataclass(frozen=True)
class Measured:
    """One bot spec as measured: its ladder rating (None: not on the ladder) and CPU cost."""

    spec: str
    cpu_ms: float  # CPU milliseconds a decision
    source: str  # the command the figures come from (LADDER, PREVIOUS, HEURISTICS, ...)
    rating: float | None = None  # on the ladder's scale, greedy = 0
    low: float | None = None  # its 95% interval
    high: float | None = None
    note: str = ""  # what the rating cannot say (random: it never won)
    iterations: int | None = None  # a search's iterations a decision when measured


MEASURED: tuple[Measured, ...] = (
    Measured("greedy", 0.018, LADDER, 0.0, 0.0, 0.0, note="the anchor"),
    Measured("rusher", 0.04, LADDER, 99.0, 54.0, 144.0),
    Measured("value", 0.359, LADDER, 274.0, 229.0, 320.0),
    Measured("value:places=0", 0.699, LADDER, 312.0, 267.0, 358.0),
    Measured("mcts:leaf=value", 2.441, LADDER, 426.0, 380.0, 474.0, iterations=32),
    Measured("mcts:leaf=value,iterations=100", 10.096, LADDER, 446.0, 399.0, 494.0, iterations=100),
    Measured(
        "mcts:leaf=value,iterations=128,tree=turn",
        9.419,
        LADDER,
        436.0,
        389.0,
        484.0,
        iterations=128,
    ),
    Measured(
        f"mcts:leaf=value,iterations=128,tree=turn,model={PREVIOUS_MODEL}",
        9.341,
        LADDER,
        366.0,
        320.0,
        412.0,
        iterations=128,
    ),
    Measured(
        "mcts:leaf=value,iterations=128",
        12.985,
        EXTENDED,
        460.0,
        407.0,
        514.0,
        iterations=128,
    ),
    Measured(
        "mcts:leaf=value,iterations=115,prior=0.05,worlds=8",
        8.778,
        TOP,
        519.0,
        472.0,
        567.0,
        iterations=115,
        note=(
            "+149 [+135, +164] over the flat search on the previous model at 0.95 times its "
            "CPU (+142 [+127, +159] on its 2,000 new games alone); 63.4% [58.8, 68.0] of 400 "
            "games against mcts:iterations=3200"
        ),
    ),
    Measured(f"value:model={PREVIOUS_MODEL}", 0.503, PREVIOUS, 188.0, 142.0, 236.0),
    Measured(
        f"mcts:leaf=value,model={PREVIOUS_MODEL}",
        3.033,
        PREVIOUS,
        317.0,
        269.0,
        368.0,
        iterations=32,
    ),
    Measured(
        f"mcts:leaf=value,iterations=128,model={PREVIOUS_MODEL}",
        16.315,
        PREVIOUS,
        378.0,
        328.0,
        430.0,
        iterations=128,
    ),
    Measured(
        f"mcts:leaf=value,iterations=100,model={PREVIOUS_MODEL}",
        12.49,
        STRENGTH,
        note="not on a ladder: it won 60.8% [55.9%, 65.4%] of 400 games against "
        f"mcts:leaf=value,iterations=128,tree=turn,model={PREVIOUS_MODEL} (the flat search, "
        "12.2 ms a decision: equal CPU)",
        iterations=100,
    ),
    Measured(
        f"mcts:leaf=value,iterations=512,model={PREVIOUS_MODEL}",
        163.8,
        STRENGTH,
        note="not on a ladder: it won 57.2% [52.9%, 61.6%] of 400 games against "
        f"mcts:leaf=value,iterations=128,model={PREVIOUS_MODEL}",
        iterations=512,
    ),
    Measured(
        f"mcts:leaf=value,iterations=128,model={CANDIDATE}",
        13.138,
        JOINT,
        456.0,
        415.0,
        497.0,
        iterations=128,
    ),
    Measured(
        f"mcts:leaf=value,iterations=100,model={CANDIDATE}",
        9.948,
        JOINT,
        449.0,
        410.0,
        489.0,
        iterations=100,
    ),
    Measured(
        f"mcts:leaf=value,iterations=128,tree=turn,model={CANDIDATE}",
        9.456,
        JOINT,
        408.0,
        356.0,
        460.0,
        iterations=128,
    ),
    Measured(f"value:rollouts=2,model={PREVIOUS_MODEL}", 6.264, OLDER, 217.0, 173.0, 263.0),
    Measured(
        f"mcts:leaf=value,width=2,model={PREVIOUS_MODEL}",
        5.571,
        OLDER,
        290.0,
        244.0,
        337.0,
        iterations=32,
    ),
    Measured(
        f"mcts:leaf=value,iterations=200,width=2,model={PREVIOUS_MODEL}",
        43.227,
        OLDER,
        223.0,
        179.0,
        268.0,
        iterations=200,
    ),
    Measured("recycler", 0.146, HEURISTICS, -67.0, -112.0, -23.0),
    Measured("setter", 0.048, HEURISTICS, -93.0, -138.0, -49.0),
    Measured("builder", 0.054, HEURISTICS, -140.0, -186.0, -95.0),
    Measured(
        "solosearch",
        55.5,
        SOLO,
        note="solo only (elsewhere it is greedy): won 29.2% [24.8%, 33.7%] of 400 Normal deals "
        "where greedy won 15.2%, -0.26 points [-0.49, -0.02] a game",
    ),
    Measured(
        "solosearch:prior=0.05",
        53.6,
        SOLO,
        note="solo only (elsewhere it is greedy): won 31.8% [27.2%, 36.3%] of 400 Normal deals "
        "where greedy won 15.2%, +0.18 points [-0.05, +0.40] a game",
    ),
    Measured(
        "solosearch:prior=0.05,when=always",
        124.0,
        SOLO,
        note="solo only (elsewhere it is greedy): won 46.0% [41.1%, 50.9%] of 400 Normal deals "
        "where greedy won 15.2%, -0.18 points [-0.43, +0.06] a game",
    ),
    Measured(
        "solosearch:prior=0.05,when=always,confirm=16",
        136.0,
        SOLO,
        note="solo only (elsewhere it is greedy): won 56.0% [51.1%, 60.9%] of 400 Normal deals "
        "where greedy won 15.2%, +0.47 points [+0.23, +0.71] a game",
    ),
    Measured("random", 0.014, HEURISTICS, note="never won a game: below every other bot"),
    Measured("mcts", 170.0, BENCHMARKS, iterations=200),
    Measured("mcts:iterations=800", 594.0, BENCHMARKS, iterations=800),
)


def _params(spec: str) -> tuple[str, dict[str, str]]:
    """Return a spec's bot name and the parameters it sets to other than their defaults
    (``model`` and ``hash`` left out: they name the model, not the bot's cost), so that
    ``mcts:leaf=value,width=0`` and ``mcts:leaf=value`` (the table's name for it) are one bot."""
    name, _, rest = spec.partition(":")
    params = dict(p.partition("=")[::2] for p in rest.split(",") if p.strip())
    params = {k.strip(): v.strip() for k, v in params.items() if k not in ("model", "hash")}
    defaults = _defaults(name, params)
    return name, {k: v for k, v in params.items() if k not in defaults or not _is(v, defaults[k])}


def _defaults(name: str, params: Mapping[str, str]) -> dict[str, object]:
    """Return a built-in bot's parameter defaults (``mcts`` with ``leaf=value``: that leaf's
    own); another source's: none (its file is not loaded to price it)."""
    from bots import BUILTIN

    if name not in BUILTIN:
        return {}
    defaults: dict[str, object] = {k: entry[0] for k, entry in BUILTIN[name].params.items()}
    if name == "mcts" and params.get("leaf") == "value":
        from bots.mcts import VALUE_LEAF_DEFAULTS

        defaults.update(VALUE_LEAF_DEFAULTS)
    return defaults


def _is(raw: str, default: object) -> bool:
    """Return whether a parameter as written is its default value."""
    if isinstance(default, bool):
        return raw.lower() in (
            ("1", "true", "yes", "on") if default else ("0", "false", "no", "off")
        )
    if isinstance(default, int | float):
        try:
            return math.isclose(float(raw), float(default))
        except ValueError:
            return False
    return raw == str(default)


def _same(a: Mapping[str, str], b: Mapping[str, str]) -> bool:
    """Return whether two parameter sets are equal (numbers compared as numbers)."""
    if set(a) != set(b):
        return False
    for key, value in a.items():
        try:
            if not math.isclose(float(value), float(b[key])):
                return False
        except ValueError:
            if value != b[key]:
                return False
    return True


def _model(spec: str) -> str:
    """Return the model a spec names (its ``model=``), or "" for the shipped one."""
    for part in spec.partition(":")[2].split(","):
        key, _, value = part.partition("=")
        if key.strip() == "model":
            return value.strip()
    return ""


def measured(spec: str) -> Measured | None:
    """Return the row measured for exactly this spec (parameters in any order) on its model (a
    spec that names none: the shipped one), or None."""
    name, params = _params(spec)
    model = _model(spec)
    for row in MEASURED:
        row_name, row_params = _params(row.spec)
        if row_name == name and _same(row_params, params) and _model(row.spec) == model:
            return row
    return None


def _priced(spec: str) -> Measured | None:
    """Return the row that prices a spec: its own, else the same bot's on another model (the
    models share one network size, so one costs what another does): the shipped model's row
    first, then the others in ``MEASURED``'s order."""
    found = measured(spec)
    if found is None:
        name, params = _params(spec)
        same = [
            row
            for row in MEASURED
            if _params(row.spec)[0] == name and _same(_params(row.spec)[1], params)
        ]
        same.sort(key=lambda row: _model(row.spec) != "")  # stable: the shipped model's first
        found = same[0] if same else None
    return found


def rows_of(name: str) -> list[Measured]:
    """Return the rows measured for a bot (its default spec first, if measured)."""
    rows = [r for r in MEASURED if _params(r.spec)[0] == name]
    return sorted(rows, key=lambda r: ":" in r.spec)


def cost_ms(spec: str) -> float | None:
    """Return a spec's CPU milliseconds a decision, as measured; None when not known.

    A search measured at other iterations (``mcts:iterations=50``) is scaled by its iterations
    from the measured row nearest in iterations (the cost grows about in proportion for the
    rollout search and the ``width=2`` tree, 32 to 200 iterations costing 7.8 times the CPU, and
    faster for greedy lines, whose k-th visit replays k actions: 5.4 times the CPU from 32 to
    128 on the ladder); ``time=S`` is S seconds a decision; a heuristic (``FLAT_COST``) costs
    what its default does; a spec not measured on its model what the same spec on another model
    does (the models share one network size: ``_priced``).
    """
    found = _priced(spec)
    if found is not None:
        return found.cpu_ms
    name, params = _params(spec)
    if name in FLAT_COST:
        return rows_of(name)[0].cpu_ms
    seconds = params.pop("time", None)
    if seconds is not None and float(seconds) > 0:
        return float(seconds) * 1000
    iterations = params.pop("iterations", None)
    # (distance in log iterations, another model's row, the scaled cost): the nearest budget,
    # the spec's own model's row where two are as near
    best: tuple[float, bool, float] | None = None
    for row in rows_of(name):
        row_params = _params(row.spec)[1]
        measured_at = float(row_params.pop("iterations", None) or row.iterations or 0)
        if row.iterations is None or not _same(row_params, params):
            continue
        wanted = float(iterations) if iterations is not None else row.iterations
        key = (abs(math.log(wanted / measured_at)), _model(row.spec) != _model(spec))
        if best is None or key < best[:2]:
            best = (*key, row.cpu_ms * wanted / measured_at)
    return None if best is None else best[2]


def estimate_seconds(
    seats: Sequence[Sequence[str]], games: Sequence[int], jobs: int
) -> tuple[float, list[str]]:
    """Return the seconds ``games[i]`` games seated ``seats[i]`` take on ``jobs`` workers, and
    the specs whose cost is not known (counted as free: the estimate is then a least)."""
    unknown: list[str] = []
    cpu_ms = 0.0
    for lineup, count in zip(seats, games, strict=True):
        per_game = GAME_MS
        for spec in lineup:
            cost = cost_ms(spec)
            if cost is None:
                unknown += [spec] if spec not in unknown else []
                continue
            per_game += cost * DECISIONS_PER_SEAT
        cpu_ms += per_game * count
    return cpu_ms / 1000 / max(1, jobs), unknown


def rating_text(row: Measured) -> str:
    """Return a row's rating as ``+183 [+109, +261]`` (or its note when it has none), saying so
    when another ladder's fit gave it (the previous one, an older one, or the previous one refitted
    with more bots), and its note after it."""
    if row.rating is None:
        return row.note or "not on the ladder"
    if row.low == row.high == row.rating:
        return f"{row.rating:+.0f} ({row.note})" if row.note else f"{row.rating:+.0f}"
    where = {
        PREVIOUS: " on the previous ladder",
        OLDER: " on an older ladder",
        EXTENDED: " on the ladder refitted with it",
        TOP: " on the ladder refitted with it",
        JOINT: " on the previous ladder refitted with it",
    }
    where_text = where.get(row.source, "")
    if row.note:
        where_text += f" ({row.note})"
    return f"{row.rating:+.0f} [{row.low:+.0f}, {row.high:+.0f}]{where_text}"


__all__ = [
    "DECISIONS_PER_SEAT",
    "LADDER_MODEL",
    "MEASURED",
    "PREVIOUS_MODEL",
    "Measured",
    "cost_ms",
    "estimate_seconds",
    "measured",
    "rating_text",
    "rows_of",
]
