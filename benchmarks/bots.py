"""Bot strength and speed in one table: speed beside another build, pairings, policies, solo.

Run: ``.venv/bin/python benchmarks/bots.py [--sections ...] [--games N] [--jobs J] [--seed S]
[--baseline PYTHON] [--out DIR]``, or ``--read DIR`` to print the table of a run written before.

Sections (``--sections``; default: all):

- ``speed``: greedy decisions and MCTS iterations per CPU second, this build and, with
  ``--baseline PYTHON`` (the interpreter of another checkout's virtual environment, e.g. today's
  ``main``), that build, in the same run on the same positions: the Play decisions of saved
  greedy games (``benchmarks/_bot_speed.py`` replays them in each build's own process; CPU time
  of that process, so other work on the machine does not count).
- ``pairs``: 2-player pairings, every deal under both seatings; the first bot's win rate (a
  shared win counts as a share) with its Wilson 95% interval, the mean scores and each bot's CPU
  time per decision. The default pairings are the search's scaling (200 against 50 iterations,
  800 against 200), MCTS against greedy, and the learned evaluation's bots (``value``,
  ``mcts:leaf=value``) against greedy and MCTS (with Finesse and Ghost Piece too: a line's third
  item names its rules).
- ``three``: 3-player (or, for a ``4p-`` line, 4-player) games, the first bot against copies
  of the second, the first bot in each seat in turn; its win rate against its share (1/3, 1/4).
- ``policies``: a round robin of the named policies (2 players, both seatings): each pairing's
  line, then per policy its mean action mix per game (the seats table's action counts) and its
  win rate over all its games.
- ``solo``: each bot against the mastermind at Normal (and Finesse Solo) on the same deals: win
  rate (a tie goes to the mastermind) with its interval, mean score, mastermind's mean score,
  and each bot after the first against the first on the deals both played.

Every line but the speed section's is an ordinary run of the package's runner
(``projectl_sim.sim.runner``, a ``RunSpec``) in its own folder, ``DIR/<section>/<line>/``, read
back and measured by the package's analysis (``analysis.stats``: Wilson intervals and paired
differences). So a line has the runner's seeding (the root seed ``--seed``, printed; the same
tables for any ``--jobs``; every line of the same player count and variant on the same deals),
its resume (a stopped run goes on where it stopped, and more ``--games`` grow a line; fewer
read only the first deals) and its checks (a line played by another build of a bot, another
model's hash, stops with one line). Without ``--out`` the folders are temporary. CPU time per
decision is the seats table's (``decision_cpu_mean``), measured in the worker processes.
``--read DIR --paired DIR2`` adds, for two runs on the same root seed (the same deals), each
line's bot A against DIR2's on the games both played (the same seed, A in the same seat): the
change in A's win rate and points margin, with the package's paired 95% intervals over the
deals. It asks what changing one bot did, on the same deals, more precisely than two lines'
intervals side by side. A mirror line (bot A is bot B) has no one seat to follow and is not
compared.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import secrets
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

# This script is named like the ``bots`` package: drop its folder from the import path so that
# ``import bots`` finds the package (here and in the worker processes, which inherit the path).
_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from bots import make_bot  # noqa: E402
from projectl_sim import Rules, play_game  # noqa: E402
from projectl_sim.analysis.data import load_run  # noqa: E402
from projectl_sim.analysis.rows import finished_games, finished_seats  # noqa: E402
from projectl_sim.analysis.stats import paired_difference, wilson  # noqa: E402
from projectl_sim.errors import UsageError  # noqa: E402
from projectl_sim.sim import runner, tables  # noqa: E402
from projectl_sim.sim.spec import RunSpec  # noqa: E402

# name -> (bot A, bot B) or (bot A, bot B, rules): 2-player lines, both seatings
PAIRS: dict[str, tuple[Any, ...]] = {
    "mcts200-mcts50": ("mcts:iterations=200", "mcts:iterations=50"),
    "mcts800-mcts200": ("mcts:iterations=800", "mcts:iterations=200"),
    "mcts-greedy": ("mcts", "greedy"),
    # the learned evaluation (bots.value, mcts:leaf=value): issue 28's targets
    "value-greedy": ("value", "greedy"),
    "value2-greedy": ("value:ply=2", "greedy"),
    "value-greedy-finesse": ("value", "greedy", {"expansions": "finesse"}),
    "value-greedy-ghost": ("value", "greedy", {"expansions": "ghost_piece"}),
    "mctsv-greedy": ("mcts:leaf=value", "greedy"),
    "mctsv-mcts": ("mcts:leaf=value", "mcts"),
    "value2-mcts": ("value:ply=2", "mcts"),
    "mctsv-mcts800": ("mcts:leaf=value", "mcts:iterations=800"),
    # the flat search over worlds (the tree below a root candidate is greedy's own turn)
    "mctsflat-mctsv": ("mcts:leaf=value,iterations=128,tree=turn,width=0", "mcts:leaf=value"),
    "mctsflat-mcts800": ("mcts:leaf=value,iterations=128,tree=turn,width=0", "mcts:iterations=800"),
    # value's best `top` candidates decided by common greedy rollouts; value built on rusher
    "valueroll-greedy": ("value:rollouts=2", "greedy"),
    "valueroll-mcts": ("value:rollouts=2", "mcts"),
    "valueroll8-mcts": ("value:rollouts=8,top=4", "mcts"),
    "valuerush-greedy": ("value:base=rusher", "greedy"),
    "rusher-greedy": ("rusher", "greedy"),
}
# name -> (bot A, bot B) or (bot A, bot B, players): bot A in each seat in turn against B's
THREE: dict[str, tuple[Any, ...]] = {
    "3p-mcts800-mcts200": ("mcts:iterations=800", "mcts:iterations=200"),
    "3p-value-greedy": ("value", "greedy"),
    "4p-value-greedy": ("value", "greedy", 4),
}
POLICIES = ["greedy", "builder", "rusher", "setter", "recycler"]
SOLO = ["greedy", "mcts", "value"]  # mcts: its default budget, about 0.1 s of CPU a decision
SOLO_VARIANTS = {"solo": "none", "finesse-solo": "finesse"}
# "mcts:root=ucb,horizon=2" is today's search in this build (the defaults of 7e48ca3's mcts)
SPEED = ["greedy", "mcts:root=ucb,horizon=2", "mcts"]
# the baseline build predates root= and the new defaults: its mcts is the UCB root, horizon 2
BASELINE_SPEC = {"mcts:root=ucb,horizon=2": "mcts", "mcts": "mcts"}
# the speed section's positions: the Play decisions of these greedy self-play games
SPEED_GAMES, SPEED_MCTS_EVERY = 60, 20
# a policy's action mix: the seats table's action counts, per game
MIX = ("take", "take_basic", "upgrade", "recycle", "place", "master", "insert")
SECTION_ORDER = ("pairs", "three", "policies", "solo")


# -- a line: one run of the package's runner ----------------------------------------------------
def play_line(folder: Path, grid: dict[str, Any], games: int, seed: int, jobs: int) -> pd.DataFrame:
    """Play, go on with or grow the run of ``grid`` in ``folder``; return its first ``games``
    per configuration (a folder that holds more keeps them and plays nothing)."""
    held = 0
    if (folder / tables.MANIFEST).exists():
        held = int(tables.read_manifest(folder)["config"]["games"])
    spec = RunSpec.from_mapping(grid | {"games": max(games, held), "seed": seed})
    try:  # a resume checks that the folder's run has this line's settings and bots' builds
        runner.run(spec, folder, resume=held > 0, options=runner.RunOptions(jobs=jobs, quiet=True))
    except UsageError as exc:
        raise SystemExit(f"benchmarks/bots.py: {exc}") from None
    if held:
        print(f"{folder.name}: {min(held, games)} games per configuration were in {folder}")
    return line_seats(folder, games)


def line_seats(folder: Path, games: int | None = None) -> pd.DataFrame:
    """Return the seats of a line's finished games, the first ``games`` per configuration
    (whole deals; None: all), each with its game's mastermind score (solo)."""
    run = load_run(folder)
    done = finished_games(run.games)
    seats = finished_seats(run.seats)
    seats = seats[seats["game_id"].isin(done["game_id"])]
    if games is not None:
        per_deal = (
            run.games.groupby(["config_id", "deal"])["game_id"].nunique().groupby("config_id").max()
        )
        deals = np.ceil(games / seats["config_id"].map(per_deal))
        seats = seats[seats["deal"] < deals]
    return seats.merge(done[["game_id", "opponent_score"]], on="game_id", how="left")


def bot_stats(seats: pd.DataFrame, bot: str) -> dict[str, float]:
    """Return a bot's totals over its seats: games, win share, score, decisions, CPU, mix."""
    mine = seats[seats["bot"] == bot]
    decisions = mine["decisions"].astype(float)
    out = {
        "games": float(len(mine)),
        "wins": float(mine["win_share"].sum()),
        "score": float(mine["score"].sum()),
        "decisions": float(decisions.sum()),
        "cpu": float((mine["decision_cpu_mean"].fillna(0) * decisions).sum()),
    }
    for k in MIX:
        column = f"actions_{k}"
        out[k] = float(mine[column].fillna(0).sum()) if column in mine else 0.0
    return out


def _ms(x: dict[str, float]) -> str:
    return f"{1000 * x['cpu'] / max(1.0, x['decisions']):8.2f}"


def _interval(x: dict[str, float]) -> tuple[float, float]:
    low, high = wilson(x["wins"], x["games"])
    return float(low), float(high)


HEADER = (
    f"{'section':8s} {'line':20s} {'bot A':24s} {'bot B':22s} {'games':>5s} {'A wins':>6s} "
    f"{'95% interval':>16s} {'A pts':>5s} {'B pts':>5s} {'A ms/dec':>8s} {'B ms/dec':>8s}"
)


def match_line(section: str, name: str, a: str, b: str, seats: pd.DataFrame) -> str:
    """Return the table line of ``a`` against ``b`` (one A per game, every other seat B)."""
    sa, sb = bot_stats(seats, a), bot_stats(seats, b)
    n = int(sa["games"])
    lo, hi = _interval(sa)
    players = int(seats["players"].iloc[0]) if len(seats) else 2
    share = "" if players == 2 else f" (share {1 / players:.0%})"
    return (
        f"{section:8s} {name:20s} {a:24s} {b:22s} {n:5d} {sa['wins'] / max(1, n):6.1%} "
        f"[{lo:5.1%}, {hi:5.1%}] {sa['score'] / max(1, n):5.1f} "
        f"{sb['score'] / max(1.0, sb['games']):5.1f} {_ms(sa)} {_ms(sb)}{share}"
    )


def mix_line(bot: str, seats: pd.DataFrame) -> str:
    """Return a policy's action mix per game and its win rate over all its games."""
    s = bot_stats(seats, bot)
    n = max(1.0, s["games"])
    lo, hi = _interval(s)
    mix = " ".join(f"{k}={s[k] / n:4.1f}" for k in MIX)
    return (
        f"{'mix':8s} {bot:20s} games={int(s['games']):4d} wins={s['wins'] / n:5.1%} "
        f"[{lo:5.1%}, {hi:5.1%}]  per game: {mix}"
    )


def solo_line(variant: str, bot: str, seats: pd.DataFrame) -> str:
    """Return a bot's solo line: win rate, mean score, the mastermind's mean score."""
    s = bot_stats(seats, bot)
    n = int(s["games"])
    lo, hi = _interval(s)
    opp = float(seats["opponent_score"].mean()) if n else math.nan
    return (
        f"{'solo':8s} {variant + ' normal':20s} {bot:24s} {'mastermind':22s} {n:5d} "
        f"{s['wins'] / max(1, n):6.1%} [{lo:5.1%}, {hi:5.1%}] {s['score'] / max(1, n):5.1f} "
        f"{opp:5.1f} {_ms(s)}"
    )


def _change(d: dict[str, Any] | None, form: str) -> str:
    """Return a paired difference and its 95% interval, each number in ``form``; one deal has
    no spread, and says so instead of printing nan bounds."""
    if d is None:
        return "no shared game"
    if d["deals"] < 2:
        return f"{d['diff']:{form}} (no interval from one deal)"
    return f"{d['diff']:{form}} [{d['ci_low']:{form}}, {d['ci_high']:{form}}]"


def solo_paired_line(
    variant: str, a: str, b: str, seats_a: pd.DataFrame, seats_b: pd.DataFrame
) -> str:
    """Return bot A against bot B on the solo deals both played: the paired differences of the
    win rate and the score (``analysis.stats.paired_difference``, the deal the cluster)."""
    both = seats_b[["seed", "win_share", "score"]].merge(
        seats_a[["seed", "win_share", "score"]], on="seed", suffixes=("_b", "_a")
    )
    wins = paired_difference(both["win_share_b"], both["win_share_a"], both["seed"], "rate")
    points = paired_difference(both["score_b"], both["score_a"], both["seed"], "mean")
    return (
        f"{'solo':8s} {variant + ' paired':20s} {a:24s} {'- ' + b:22s} {len(both):5d} "
        f"wins {_change(wins, '+.1%')}  pts {_change(points, '+.2f')}"
    )


def a_games(seats: pd.DataFrame, a: str) -> pd.DataFrame:
    """Return bot A's win share and points margin (its score less the others' mean) by game:
    columns seed, seat, win, margin."""
    total = seats.groupby("game_id")["score"].transform("sum")
    others = seats.groupby("game_id")["seat"].transform("size") - 1
    mine = seats[seats["bot"] == a].copy()
    mine["margin"] = mine["score"] - (total[mine.index] - mine["score"]) / others[mine.index]
    return mine.rename(columns={"win_share": "win"})[["seed", "seat", "win", "margin"]]


def paired_match_line(
    x_name: str, x: pd.DataFrame, x_a: str, y_name: str, y: pd.DataFrame, y_a: str
) -> str | None:
    """Return how bot A of line y did against bot A of line x on the games both lines played
    (the same seed, A in the same seat): the change in A's win rate and points margin, each
    with its paired 95% interval over the deals, or None when they share no game."""
    both = a_games(x, x_a).merge(a_games(y, y_a), on=["seed", "seat"], suffixes=("_x", "_y"))
    if both.empty:
        return None
    wins = paired_difference(both["win_x"], both["win_y"], both["seed"], "rate")
    margins = paired_difference(both["margin_x"], both["margin_y"], both["seed"], "mean")
    assert wins is not None
    return (
        f"{'paired':8s} {y_name}  less  {x_name}: {len(both)} games on "
        f"{both['seed'].nunique()} deals; A wins {wins['value_b']:.1%} against "
        f"{wins['value_a']:.1%}, {_change(wins, '+.1%')}; "
        f"A margin {_change(margins, '+.2f')} points"
    )


def speed_line(spec: str, this: dict[str, Any], base: dict[str, Any] | None) -> str:
    """Return a speed line: decisions (greedy) or iterations (MCTS) per CPU second, both builds."""
    key = "iterations" if this["iterations"] else "decisions"
    unit = "iterations/CPU s" if key == "iterations" else "decisions/CPU s"
    rate = this[key] / this["cpu"]
    text = f"{'speed':8s} {spec:20s} {unit:17s} this build {rate:9.0f} ({this['build']})"
    if base is not None:
        brate = base[key] / base["cpu"]
        text += f"   baseline {brate:9.0f} ({base['build']}, {base['spec']})   x{rate / brate:4.2f}"
    return text + f"   [{this['decisions']} positions]"


# -- sections --------------------------------------------------------------------------------------
class Run:
    """A benchmark run: its root seed, worker processes and folder of line runs."""

    def __init__(self, args: argparse.Namespace, folder: Path) -> None:
        self.args = args
        self.root = args.seed if args.seed is not None else secrets.randbelow(2**63)
        self.folder = folder

    def line(self, section: str, name: str, grid: dict[str, Any], games: int) -> pd.DataFrame:
        """Play line ``name`` of ``section`` (a run of ``grid``) and return its seats."""
        folder = self.folder / section / name
        return play_line(folder, grid, games, self.root, self.args.jobs)


def _lineups(folder: Path) -> dict[int, list[str]]:
    """Return a line run's line-up of each configuration as its manifest names the bots (their
    normalised specs, which the seats table's ``bot`` column holds)."""
    configs = tables.read_manifest(folder)["configs"]
    return {int(c["config_id"]): list(c["lineup"]) for c in configs}


def _names(folder: Path) -> list[str]:
    """Return the line-up of a line run's first configuration."""
    return _lineups(folder)[0]


def section_pairs(run: Run, printer: Callable[[str], None]) -> None:
    for name, (a, b, *more) in _chosen(run.args.pairs, PAIRS).items():
        grid = {"bots": [f"{a},{b}"], "players": 2, **(more[0] if more else {})}
        seats = run.line("pairs", name, grid, run.args.games)
        a_name, b_name = _names(run.folder / "pairs" / name)
        printer(match_line("pairs", name, a_name, b_name, seats))


def section_three(run: Run, printer: Callable[[str], None]) -> None:
    for name, (a, b, *more) in _chosen(run.args.three, THREE).items():
        players = int(more[0]) if more else 3
        grid = {"bots": [",".join([a] + [b] * (players - 1))], "players": players}
        seats = run.line("three", name, grid, run.args.games)
        a_name, b_name = _names(run.folder / "three" / name)[:2]
        printer(match_line("three", name, a_name, b_name, seats))


def section_policies(run: Run, printer: Callable[[str], None]) -> None:
    policies = run.args.policies or POLICIES
    grid = {"round_robin": policies, "players": 2}
    seats = run.line("policies", "round-robin", grid, run.args.games)
    print_policies(seats, _lineups(run.folder / "policies" / "round-robin"), printer)


def print_policies(
    seats: pd.DataFrame, lineups: dict[int, list[str]], printer: Callable[[str], None]
) -> None:
    """Print each pairing of the round robin, then each policy's action mix and win rate."""
    for config_id, pair in seats.groupby("config_id", sort=True):
        a, b = lineups[int(config_id)]
        printer(match_line("policies", f"{a}-{b}", a, b, pair))
    for bot in dict.fromkeys(seats.sort_values("config_id")["bot"]):
        printer(mix_line(bot, seats))


def section_solo(run: Run, printer: Callable[[str], None]) -> None:
    for variant in run.args.solo_variants or SOLO_VARIANTS:
        grid = {
            "players": 1,
            "variant": "solo",
            "difficulty": "normal",
            "expansions": SOLO_VARIANTS[variant],
        }
        played: dict[str, pd.DataFrame] = {}
        for spec in run.args.solo or SOLO:
            n = run.args.solo_games
            n = min(n, run.args.mcts_solo) if spec.startswith("mcts") else n
            name = f"{variant}:{spec}"
            seats = run.line("solo", name, grid | {"bots": [spec]}, n)
            played[_names(run.folder / "solo" / name)[0]] = seats
        print_solo(variant, played, printer)


def print_solo(
    variant: str, played: dict[str, pd.DataFrame], printer: Callable[[str], None]
) -> None:
    """Print each solo bot's line, then each bot after the first against the first."""
    for bot, seats in played.items():
        printer(solo_line(variant, bot, seats))
    bots = list(played)
    for bot in bots[1:]:
        printer(solo_paired_line(variant, bot, bots[0], played[bot], played[bots[0]]))


def section_speed(run: Run, printer: Callable[[str], None]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        games = Path(tmp) / "games.json"
        seeds = np.random.SeedSequence([run.root, 5]).generate_state(SPEED_GAMES, dtype=np.uint32)
        records = [
            play_game(
                Rules(players=2), [make_bot("greedy"), make_bot("greedy")], int(s)
            ).record_json()
            for s in seeds
        ]
        games.write_text(json.dumps(records))
        for spec in run.args.speed or SPEED:
            every = "1" if not spec.startswith("mcts") else str(SPEED_MCTS_EVERY)
            this = _speed_worker(sys.executable, games, spec, every)
            base = None
            if run.args.baseline:
                base = _speed_worker(run.args.baseline, games, BASELINE_SPEC.get(spec, spec), every)
            printer(speed_line(spec, this, base))
            with open(run.folder / "speed.jsonl", "a") as f:
                f.write(json.dumps({"spec": spec, "this": this, "base": base}) + "\n")


def _speed_worker(python: str, games: Path, spec: str, every: str) -> dict[str, Any]:
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1")  # no BLAS threads in the CPU time
    out = subprocess.run(
        [python, str(_HERE / "_bot_speed.py"), str(games), spec, every],
        capture_output=True,
        text=True,
        check=True,
        env=env,
        cwd=tempfile.gettempdir(),  # the interpreter's own checkout, not this folder's
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


SECTIONS: dict[str, Callable[[Run, Callable[[str], None]], None]] = {
    "speed": section_speed,
    "pairs": section_pairs,
    "three": section_three,
    "policies": section_policies,
    "solo": section_solo,
}


def _chosen(names: list[str] | None, table: dict[str, tuple[Any, ...]]) -> dict[str, Any]:
    """Return the named lines of a section (default: all); ``"A B"`` is an extra pairing."""
    if not names:
        return dict(table)
    out = {}
    for name in names:
        if name in table:
            out[name] = table[name]
        elif len(name.split()) == 2:
            a, b = name.split()
            out[f"{a}-{b}"] = (a, b)
        else:
            raise SystemExit(f"unknown line {name!r} (valid: {', '.join(table)}, or 'A B')")
    return out


# -- reading a run back --------------------------------------------------------------------------
def _line_folders(folder: Path, section: str) -> list[Path]:
    """Return the line runs of a section in a benchmark folder in the order they were started
    (the solo section compares each bot with the first)."""
    lines = [p.parent for p in (folder / section).glob(f"*/{tables.MANIFEST}")]
    return sorted(lines, key=lambda p: (tables.read_manifest(p)["started"], p.name))


def print_folder(folder: Path, printer: Callable[[str], None]) -> None:
    """Print the table of a run written with ``--out``."""
    speed = folder / "speed.jsonl"
    if speed.exists():
        for line in speed.read_text().splitlines():
            d = json.loads(line)
            printer(speed_line(d["spec"], d["this"], d["base"]))
    for section in SECTION_ORDER:
        solo: dict[str, dict[str, pd.DataFrame]] = {}  # variant -> bot -> seats
        for line in _line_folders(folder, section):
            seats = line_seats(line)
            if section == "policies":
                print_policies(seats, _lineups(line), printer)
            elif section == "solo":
                bot = _names(line)[0]
                solo.setdefault(line.name.partition(":")[0], {})[bot] = seats
            else:
                a, b = _names(line)[:2]
                printer(match_line(section, line.name, a, b, seats))
        for variant, played in solo.items():
            print_solo(variant, played, printer)


def print_paired(folder: Path, other: Path, printer: Callable[[str], None]) -> None:
    """Print, for every match line of ``folder`` and every line of ``other`` that shares games
    with it, how the first's bot A did against the second's on those games."""
    for section in ("pairs", "three"):
        theirs = [(p, _names(p)) for p in _line_folders(other, section)]
        for line in _line_folders(folder, section):
            a, b = _names(line)[:2]
            if a == b:
                printer(
                    f"{'paired':8s} {line.name}: not compared: a mirror line (bot A is bot B) "
                    "has no one seat to follow"
                )
                continue
            seats = line_seats(line)
            for other_line, (x_a, x_b) in ((p, n[:2]) for p, n in theirs):
                if x_a == x_b or (other_line.resolve() == line.resolve()):
                    continue  # a mirror line, or a line against itself
                said = paired_match_line(
                    other_line.name, line_seats(other_line), x_a, line.name, seats, a
                )
                if said is not None:
                    printer(said)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sections", nargs="*", default=list(SECTIONS), choices=list(SECTIONS))
    parser.add_argument("--games", type=int, default=20, help="games per pairing (whole deals)")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes")
    parser.add_argument("--seed", type=int, default=None, help="root seed (default: fresh)")
    parser.add_argument("--pairs", nargs="*", help=f"pairings: {', '.join(PAIRS)}, or 'A B'")
    parser.add_argument("--three", nargs="*", help=f"3-player lines: {', '.join(THREE)}")
    parser.add_argument("--policies", nargs="*", help=f"round robin (default {POLICIES})")
    parser.add_argument("--solo", nargs="*", help=f"solo bots (default {SOLO})")
    parser.add_argument(
        "--solo-variants", nargs="*", choices=list(SOLO_VARIANTS), help="solo variants (all)"
    )
    parser.add_argument("--solo-games", type=int, default=500, help="solo deals per bot")
    parser.add_argument("--mcts-solo", type=int, default=100, help="solo deals per MCTS bot")
    parser.add_argument("--speed", nargs="*", help=f"speed specs (default {SPEED})")
    parser.add_argument("--baseline", default=None, help="interpreter of the build to compare")
    parser.add_argument("--out", default=None, help="folder of the line runs (default: temporary)")
    parser.add_argument("--read", default=None, help="print the table of a folder of line runs")
    parser.add_argument(
        "--paired",
        default=None,
        metavar="DIR",
        help="with --read: each line's bot A against DIR's, on the games both played",
    )
    args = parser.parse_args()

    def printer(line: str) -> None:
        print(line, flush=True)

    if args.read:
        print(HEADER)
        print_folder(Path(args.read), printer)
        if args.paired:
            print_paired(Path(args.read), Path(args.paired), printer)
        return
    if args.paired:
        parser.error("--paired reads two folders: give --read too")
    with tempfile.TemporaryDirectory(prefix="bench-bots-") as tmp:
        run = Run(args, Path(args.out) if args.out else Path(tmp))
        print(f"root seed {run.root}; {args.jobs} jobs; sections {' '.join(args.sections)}")
        print(HEADER)
        for section in args.sections:
            SECTIONS[section](run, printer)


if __name__ == "__main__":
    main()
