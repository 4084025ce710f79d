"""Bot strength and speed in one table: speed beside another build, pairings, policies, solo.

Run: ``.venv/bin/python benchmarks/bots.py [--sections ...] [--games N] [--jobs J] [--seed S]
[--baseline PYTHON] [--out DIR]``, or ``--read DIR`` to print the table of a run written before.

Sections (``--sections``; default: all):

- ``speed``: greedy decisions and MCTS iterations per CPU second, this build and, with
  ``--baseline PYTHON`` (the interpreter of another checkout's virtual environment, e.g. today's
  ``main``), that build, in the same run on the same positions: the Play decisions of saved
  greedy games (``benchmarks/_bot_speed.py`` replays them in each build's own process; CPU time
  of that process, so other work on the machine does not count).
- ``pairs``: 2-player pairings, every game seed twice with the seats swapped; the first bot's
  win rate (a shared win counts as a share) with its Wilson 95% interval, the mean scores, each
  bot's CPU time per decision and MCTS iterations per CPU second. The default pairings are the
  search's scaling (200 against 50 iterations, 800 against 200), MCTS against greedy, and the
  learned evaluation's bots (``value``, ``mcts:leaf=value``) against greedy and MCTS (with
  Finesse and Ghost Piece too: a line's third item names its rules).
- ``three``: 3-player (or, for a ``4p-`` line, 4-player) games, the first bot against copies
  of the second, the first bot in each seat in turn; its win rate against its share (1/3, 1/4).
- ``policies``: a round robin of the named policies (2 players, seats swapped): each pairing's
  line, then per policy its mean action mix per game (takes, level-1 takes, upgrades, recycles,
  Masters, blind draws) and its win rate over all its games.
- ``solo``: each bot against the mastermind at Normal (and Finesse Solo) on the same deals: win
  rate (a tie goes to the mastermind) with its interval, mean score, mastermind's mean score.

Game seeds come from one root seed (``--seed``; printed), spawned in the parent, so the results are
the same for any ``--jobs``. CPU time (``time.process_time``) because the machine is shared.
With ``--out DIR`` every section writes its game rows to ``DIR/<section>.csv`` as it goes (a long
run keeps what it played); ``--read DIR`` prints the table from those files. A run into a folder
that holds some of its games plays only the others: a stopped run goes on where it stopped, and
more ``--games`` on the same seed add games to a line. Each row names each bot's full spec (a
learned bot's model hash), and games played by another build of a bot stop the run.
``--read DIR --paired DIR2`` adds, for two runs on the same root seed (the same deals), each
line's bot A against DIR2's on the games both played (the same seed, A in the same seat): the
change in A's win rate and points margin, with 95% intervals over the deals. It asks what
changing one bot did, on the same deals, more precisely than two lines' intervals side by side.
A mirror line (bot A is bot B) has no one seat to follow and is not compared.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import math
import os
import secrets
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

# This script is named like the ``bots`` package: drop its folder from the import path so that
# ``import bots`` finds the package (here and in the worker processes, which inherit the path).
_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]

import numpy as np  # noqa: E402
from joblib import Parallel, delayed  # noqa: E402

from bots import make_bot  # noqa: E402
from projectl_sim import Rules, play_game  # noqa: E402
from projectl_sim.analysis.stats import mean_interval  # noqa: E402
from projectl_sim.engine import GameState  # noqa: E402
from projectl_sim.engine.actions import Action, Master, Take, TakeBasic, TakeDeck  # noqa: E402
from projectl_sim.expansions.finesse import Insert  # noqa: E402
from projectl_sim.sim.tables import write_text_atomic  # noqa: E402

# name -> (bot A, bot B) or (bot A, bot B, rules): 2-player lines, seats swapped
PAIRS: dict[str, tuple[Any, ...]] = {
    "mcts200-mcts50": ("mcts:iterations=200", "mcts:iterations=50"),
    "mcts800-mcts200": ("mcts:iterations=800", "mcts:iterations=200"),
    "mcts-greedy": ("mcts", "greedy"),
    # the learned evaluation (bots.value, mcts:leaf=value): issue 28's targets
    "value-greedy": ("value", "greedy"),
    "value2-greedy": ("value:ply=2", "greedy"),
    "value-greedy-finesse": ("value", "greedy", {"expansions": ("finesse",)}),
    "value-greedy-ghost": ("value", "greedy", {"expansions": ("ghost_piece",)}),
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
SOLO_VARIANTS = {"solo": (), "finesse-solo": ("finesse",)}
# "mcts:root=ucb,horizon=2" is today's search in this build (the defaults of 7e48ca3's mcts)
SPEED = ["greedy", "mcts:root=ucb,horizon=2", "mcts"]
# the baseline build predates root= and the new defaults: its mcts is the UCB root, horizon 2
BASELINE_SPEC = {"mcts:root=ucb,horizon=2": "mcts", "mcts": "mcts"}
# the speed section's positions: the Play decisions of these greedy self-play games
SPEED_GAMES, SPEED_MCTS_EVERY = 60, 20

MIX = (
    "take_white",
    "take_black",
    "take_blind",
    "take_basic",
    "upgrade",
    "recycle",
    "place",
    "master",
    "master_pieces",
    "insert",
)


# -- playing -----------------------------------------------------------------------------------
class _Seat:
    """One bot in one game: its decisions, their CPU time, MCTS iterations, its action mix."""

    def __init__(self, spec: str) -> None:
        self.spec = spec
        self.bot = make_bot(spec)
        self.decisions = 0
        self.cpu = 0.0
        self.mix = dict.fromkeys(MIX, 0)

    def __call__(self, view: GameState, rng: Any) -> Action:
        start = time.process_time()
        action = self.bot(view, rng)
        self.cpu += time.process_time() - start
        self.decisions += 1
        inner = action
        if isinstance(action, Insert):
            self.mix["insert"] += 1
            inner = action.inner
        if isinstance(inner, TakeDeck):
            self.mix["take_blind"] += 1
        elif isinstance(inner, TakeBasic):
            self.mix["take_basic"] += 1
        elif isinstance(inner, Take):
            black = view.catalogue.puzzles[inner.card].is_black
            self.mix["take_black" if black else "take_white"] += 1
        elif isinstance(inner, Master):
            self.mix["master"] += 1
            self.mix["master_pieces"] += len(inner.placements)
        elif inner.kind in self.mix:
            self.mix[inner.kind] += 1
        return action


def play_one(rules: dict[str, Any], specs: list[str], seed: int) -> dict[str, Any]:
    """Play one game; return its row (per seat: spec, score, win share, time, action mix)."""
    kw = dict(rules)
    kw["expansions"] = set(kw.get("expansions", ()))
    seats = [_Seat(s) for s in specs]
    state = play_game(Rules(**kw), seats, seed, record=False).state
    winners = state.winners()
    scores = state.final_scores()
    row: dict[str, Any] = {"seed": seed, "players": len(specs)}
    if state.rules.solo:
        row["opponent"] = state.opponent_score()
    for p, s in enumerate(seats):
        row[f"s{p}_spec"] = s.spec
        row[f"s{p}_bot"] = repr(s.bot)  # the bot's full spec: its model's hash
        row[f"s{p}_score"] = scores[p]
        row[f"s{p}_win"] = (p in winners) / len(winners) if winners else 0.0
        row[f"s{p}_decisions"] = s.decisions
        row[f"s{p}_cpu"] = s.cpu
        row[f"s{p}_sims"] = getattr(s.bot, "simulations", 0)
        for k, v in s.mix.items():
            row[f"s{p}_{k}"] = v
    return row


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """Return the Wilson score interval of a win rate (95% by default)."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    d = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / d
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return max(0.0, centre - half), min(1.0, centre + half)


# -- the table ----------------------------------------------------------------------------------
def _seat_stats(rows: list[dict[str, Any]], spec: str) -> dict[str, float]:
    """Return a spec's totals over rows: games, win share, score, decisions, CPU, iterations."""
    out = dict.fromkeys(("games", "wins", "score", "decisions", "cpu", "sims"), 0.0)
    out |= dict.fromkeys(MIX, 0.0)
    for r in rows:
        for p in range(int(r["players"])):
            if r[f"s{p}_spec"] != spec:
                continue
            out["games"] += 1
            out["wins"] += float(r[f"s{p}_win"])
            out["score"] += float(r[f"s{p}_score"])
            for k in ("decisions", "cpu", "sims", *MIX):
                out[k] += float(r.get(f"s{p}_{k}", 0) or 0)
    return out


def _rate(x: dict[str, float]) -> str:
    ms = 1000 * x["cpu"] / max(1.0, x["decisions"])
    sims = f"{x['sims'] / x['cpu']:8.0f}" if x["sims"] and x["cpu"] else "       -"
    return f"{ms:8.2f} {sims}"


HEADER = (
    f"{'section':8s} {'line':20s} {'bot A':24s} {'bot B':22s} {'games':>5s} {'A wins':>6s} "
    f"{'95% interval':>16s} {'A pts':>5s} {'B pts':>5s} {'A ms/dec':>8s} {'A it/s':>8s} "
    f"{'B ms/dec':>8s} {'B it/s':>8s}"
)


def match_line(section: str, name: str, a: str, b: str, rows: list[dict[str, Any]]) -> str:
    """Return the table line of ``a`` against ``b`` (one A per game, every other seat B)."""
    sa, sb = _seat_stats(rows, a), _seat_stats(rows, b)
    n = int(sa["games"])
    lo, hi = wilson(sa["wins"], n)
    share = (
        ""
        if rows and int(rows[0]["players"]) == 2
        else f" (share {1 / int(rows[0]['players']):.0%})"
    )
    return (
        f"{section:8s} {name:20s} {a:24s} {b:22s} {n:5d} {sa['wins'] / max(1, n):6.1%} "
        f"[{lo:5.1%}, {hi:5.1%}] {sa['score'] / max(1, n):5.1f} "
        f"{sb['score'] / max(1.0, sb['games']):5.1f} {_rate(sa)} {_rate(sb)}{share}"
    )


def mix_line(spec: str, rows: list[dict[str, Any]]) -> str:
    """Return a policy's action mix per game and its win rate over all its games."""
    s = _seat_stats(rows, spec)
    n = max(1.0, s["games"])
    lo, hi = wilson(s["wins"], int(s["games"]))
    mix = " ".join(f"{k.replace('take_', 't_')}={s[k] / n:4.1f}" for k in MIX)
    return (
        f"{'mix':8s} {spec:20s} games={int(s['games']):4d} wins={s['wins'] / n:5.1%} "
        f"[{lo:5.1%}, {hi:5.1%}]  per game: {mix}"
    )


def solo_line(variant: str, spec: str, rows: list[dict[str, Any]]) -> str:
    """Return a bot's solo line: win rate, mean score, the mastermind's mean score."""
    s = _seat_stats(rows, spec)
    n = int(s["games"])
    lo, hi = wilson(s["wins"], n)
    opp = sum(float(r["opponent"]) for r in rows) / max(1, len(rows))
    _, plo, phi = mean_interval(_solo_scores(rows, spec))
    return (
        f"{'solo':8s} {variant + ' normal':20s} {spec:24s} {'mastermind':22s} {n:5d} "
        f"{s['wins'] / max(1, n):6.1%} [{lo:5.1%}, {hi:5.1%}] {s['score'] / max(1, n):5.1f} "
        f"{opp:5.1f} {_rate(s)}  (A pts [{plo:.1f}, {phi:.1f}])"
    )


def _solo_scores(rows: list[dict[str, Any]], spec: str) -> list[float]:
    return [float(r["s0_score"]) for r in rows if r["s0_spec"] == spec]


def solo_paired_line(
    variant: str, a: str, b: str, rows_a: list[dict[str, Any]], rows_b: list[dict[str, Any]]
) -> str:
    """Return bot A against bot B on the solo deals both played: the paired differences of the
    win rate and the mean score, each with its 95% t interval over the deals."""
    first = {int(r["seed"]): r for r in rows_b}
    wins, points = [], []
    for r in rows_a:
        other = first.get(int(r["seed"]))
        if other is not None:
            wins.append(float(r["s0_win"]) - float(other["s0_win"]))
            points.append(float(r["s0_score"]) - float(other["s0_score"]))
    return (
        f"{'solo':8s} {variant + ' paired':20s} {a:24s} {'- ' + b:22s} {len(wins):5d} "
        f"wins {_change(wins, '+.1%')}  pts {_change(points, '+.2f')}"
    )


def _change(diffs: list[float], form: str) -> str:
    """Return the mean of paired differences and its 95% t interval over them, each number in
    ``form``; one difference has no spread, and says so instead of printing nan bounds."""
    mean, low, high = mean_interval(diffs)
    if len(diffs) < 2:
        return f"{mean:{form}} (no interval from one deal)"
    return f"{mean:{form}} [{low:{form}}, {high:{form}}]"


def _a_games(rows: list[dict[str, Any]]) -> dict[tuple[int, int], tuple[float, float]]:
    """Return bot A's win share and points margin (its score less the others' mean) by game,
    keyed by the game's seed and A's seat."""
    out = {}
    for r in rows:
        players = int(r["players"])
        seat = next(p for p in range(players) if r[f"s{p}_spec"] == r["a"])
        others = [float(r[f"s{p}_score"]) for p in range(players) if p != seat]
        margin = float(r[f"s{seat}_score"]) - sum(others) / len(others)
        out[(int(r["seed"]), seat)] = (float(r[f"s{seat}_win"]), margin)
    return out


def _mirror(rows: list[dict[str, Any]]) -> bool:
    return any(r["a"] == r["b"] for r in rows)


def paired_match_line(
    x_name: str, x_rows: list[dict[str, Any]], y_name: str, y_rows: list[dict[str, Any]]
) -> str | None:
    """Return how bot A of line y did against bot A of line x on the games both lines played
    (the same seed, A in the same seat): the change in A's win rate and points margin, each with
    its 95% t interval over the deals (a deal's seatings averaged first), or None when the two
    lines share no game or either is a mirror line (bot A is bot B: no one seat to follow)."""
    if _mirror(x_rows) or _mirror(y_rows):
        return None
    gx, gy = _a_games(x_rows), _a_games(y_rows)
    shared = sorted(gx.keys() & gy.keys())
    if not shared:
        return None
    by_deal: dict[int, list[tuple[float, float]]] = {}
    for key in shared:
        by_deal.setdefault(key[0], []).append((gy[key][0] - gx[key][0], gy[key][1] - gx[key][1]))
    wins = [float(np.mean([d[0] for d in v])) for v in by_deal.values()]
    margins = [float(np.mean([d[1] for d in v])) for v in by_deal.values()]
    wx = sum(gx[k][0] for k in shared) / len(shared)
    wy = sum(gy[k][0] for k in shared) / len(shared)
    return (
        f"{'paired':8s} {y_name}  less  {x_name}: {len(shared)} games on {len(by_deal)} deals; "
        f"A wins {wy:.1%} against {wx:.1%}, {_change(wins, '+.1%')}; "
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
    """A benchmark run: its seeds, worker pool and output folder."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.root = args.seed if args.seed is not None else secrets.randbelow(2**63)
        self.out = Path(args.out) if args.out else None
        if self.out is not None:
            self.out.mkdir(parents=True, exist_ok=True)

    def seeds(self, n: int, salt: int) -> list[int]:
        ss = np.random.SeedSequence([self.root, salt])
        return [int(s) for s in ss.generate_state(n, dtype=np.uint32)]

    def play(
        self,
        section: str,
        name: str,
        games: list[tuple[dict[str, Any], list[str], int]],
        a: str,
        b: str,
    ) -> list[dict[str, Any]]:
        """Play ``games`` (rules, specs, seed) on the worker pool; write and return their rows
        (each names its line and the two bots compared, ``a`` and ``b``). The rows are written a
        few games at a time (whole seat rotations: 6 games per job), so a run stopped midway keeps
        what it played (``--read`` prints it). Games already in the folder's file for this line
        (same seed, same seats) are not played again, so a stopped run goes on where it stopped,
        and a run with more ``--games`` on the same seed plays only the new ones."""
        chunk = 6 * max(1, self.args.jobs)
        wanted = {(seed, tuple(specs)) for _, specs, seed in games}
        rows = [r for r in self._played(section, name) if _game_key(r) in wanted]
        if rows:
            self._same_bots(section, name, rows)
            done_keys = {_game_key(r) for r in rows}
            games = [g for g in games if (g[2], tuple(g[1])) not in done_keys]
            print(f"{name}: {len(rows)} games already in {self.out}, {len(games)} to play")
        for i in range(0, len(games), chunk):
            done: list[dict[str, Any]] = Parallel(n_jobs=self.args.jobs)(
                delayed(play_one)(rules, specs, seed) for rules, specs, seed in games[i : i + chunk]
            )
            for r in done:
                r["line"], r["a"], r["b"] = name, a, b
            rows += done
            if self.out is not None:
                self._write(section, done)
        return rows

    def _played(self, section: str, name: str) -> list[dict[str, Any]]:
        """Return the rows of line ``name`` already in the output folder's section file."""
        path = self.out / f"{section}.csv" if self.out is not None else None
        if path is None or not path.exists():
            return []
        return [r for r in read_csv(path) if r["line"] == name]

    def _same_bots(self, section: str, name: str, rows: list[dict[str, Any]]) -> None:
        """Stop with one line if the folder's games of a line were played by other bots than
        this build's (another model: the bot's full spec names its hash). Rows written before
        the full spec was a column are taken as they are."""
        now: dict[str, str] = {}
        for r in rows:
            for p in range(int(r["players"])):
                then = r.get(f"s{p}_bot")
                spec = r[f"s{p}_spec"]
                if spec not in now:
                    now[spec] = repr(make_bot(spec))
                if then and then != now[spec]:
                    raise SystemExit(
                        f"benchmarks/bots.py: {self.out}/{section}.csv: the games of {name} "
                        f"were played by {then}, this build's is {now[spec]}: use another --out"
                    )

    def _write(self, section: str, rows: list[dict[str, Any]]) -> None:
        """Add ``rows`` to the section's CSV file."""
        assert self.out is not None
        path = self.out / f"{section}.csv"
        fields = sorted({k for r in rows for k in r})
        old: list[dict[str, Any]] = []
        if path.exists():
            with open(path, newline="") as f:
                reader = csv.DictReader(f)
                old = list(reader)  # as written: rewritten unchanged
            fields = sorted(set(fields) | set(reader.fieldnames or ()))
        text = io.StringIO(newline="")
        w = csv.DictWriter(text, fieldnames=fields)
        w.writeheader()
        w.writerows(old + rows)
        # a new file then a rename: a run stopped while writing keeps every game written before
        write_text_atomic(path, text.getvalue())


def _game_key(row: dict[str, Any]) -> tuple[int, tuple[str, ...]]:
    """Return a game row's seed and seat specs, which name the game within its line."""
    return int(row["seed"]), tuple(row[f"s{p}_spec"] for p in range(int(row["players"])))


def swapped(rules: dict[str, Any], a: str, b: str, seeds: list[int]) -> list[Any]:
    """Return the games of a 2-player pairing: every seed with ``a`` in seat 0, then seat 1."""
    return [(rules, [a, b] if k == 0 else [b, a], s) for s in seeds for k in (0, 1)]


def section_pairs(run: Run, printer: Callable[[str], None]) -> None:
    seeds = run.seeds((run.args.games + 1) // 2, 1)
    for name, (a, b, *more) in _chosen(run.args.pairs, PAIRS).items():
        rules = {"players": 2, **(more[0] if more else {})}
        rows = run.play("pairs", name, swapped(rules, a, b, seeds), a, b)
        printer(match_line("pairs", name, a, b, rows))


def section_three(run: Run, printer: Callable[[str], None]) -> None:
    for name, (a, b, *more) in _chosen(run.args.three, THREE).items():
        players = int(more[0]) if more else 3
        seeds = run.seeds((run.args.games + players - 1) // players, 2)
        games = []
        for s in seeds:
            for seat in range(players):
                specs = [b] * players
                specs[seat] = a
                games.append(({"players": players}, specs, s))
        rows = run.play("three", name, games, a, b)
        printer(match_line("three", name, a, b, rows))


def section_policies(run: Run, printer: Callable[[str], None]) -> None:
    seeds = run.seeds((run.args.games + 1) // 2, 3)
    policies = run.args.policies or POLICIES
    every: list[dict[str, Any]] = []
    for i, a in enumerate(policies):
        for b in policies[i + 1 :]:
            rows = run.play("policies", f"{a}-{b}", swapped({"players": 2}, a, b, seeds), a, b)
            every += rows
            printer(match_line("policies", f"{a}-{b}", a, b, rows))
    for spec in policies:
        printer(mix_line(spec, every))


def section_solo(run: Run, printer: Callable[[str], None]) -> None:
    seeds = run.seeds(run.args.solo_games, 4)
    for variant in run.args.solo_variants or SOLO_VARIANTS:
        expansions = SOLO_VARIANTS[variant]
        rules = {"players": 1, "variant": "solo", "difficulty": "normal", "expansions": expansions}
        played: dict[str, list[dict[str, Any]]] = {}
        for spec in run.args.solo or SOLO:
            n = len(seeds) if not spec.startswith("mcts") else min(len(seeds), run.args.mcts_solo)
            games = [(rules, [spec], s) for s in seeds[:n]]
            played[spec] = run.play("solo", f"{variant}:{spec}", games, spec, "mastermind")
            printer(solo_line(variant, spec, played[spec]))
        print_solo_pairs(variant, played, printer)


def print_solo_pairs(
    variant: str, played: dict[str, list[dict[str, Any]]], printer: Callable[[str], None]
) -> None:
    """Print each solo bot after the first against the first, on their shared deals."""
    specs = list(played)
    for spec in specs[1:]:
        printer(solo_paired_line(variant, spec, specs[0], played[spec], played[specs[0]]))


def section_speed(run: Run, printer: Callable[[str], None]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        games = Path(tmp) / "games.json"
        seeds = run.seeds(SPEED_GAMES, 5)
        records = [
            play_game(Rules(players=2), [make_bot("greedy"), make_bot("greedy")], s).record_json()
            for s in seeds
        ]
        games.write_text(json.dumps(records))
        for spec in run.args.speed or SPEED:
            every = "1" if not spec.startswith("mcts") else str(SPEED_MCTS_EVERY)
            this = _speed_worker(sys.executable, games, spec, every)
            base = None
            if run.args.baseline:
                base = _speed_worker(run.args.baseline, games, BASELINE_SPEC.get(spec, spec), every)
            line = speed_line(spec, this, base)
            printer(line)
            if run.out is not None:
                with open(run.out / "speed.jsonl", "a") as f:
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
def read_csv(path: Path) -> list[dict[str, Any]]:
    """Return the rows of a section file, numbers as numbers."""
    out = []
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            parsed: dict[str, Any] = {}
            for k, v in row.items():
                if k.endswith(("_spec", "_bot")) or k in ("line", "a", "b"):
                    parsed[k] = v
                    continue
                try:
                    parsed[k] = float(v) if v != "" else 0.0
                except ValueError:
                    parsed[k] = v
            out.append(parsed)
    return out


def print_folder(folder: Path, printer: Callable[[str], None]) -> None:
    """Print the table of a run written with ``--out``."""
    speed = folder / "speed.jsonl"
    if speed.exists():
        for line in speed.read_text().splitlines():
            d = json.loads(line)
            printer(speed_line(d["spec"], d["this"], d["base"]))
    for section in ("pairs", "three", "policies", "solo"):
        path = folder / f"{section}.csv"
        if not path.exists():
            continue
        rows = read_csv(path)
        by_line: dict[str, list[dict[str, Any]]] = {}
        for r in rows:
            by_line.setdefault(r["line"], []).append(r)
        every: list[dict[str, Any]] = []
        solo: dict[str, dict[str, list[dict[str, Any]]]] = {}  # variant -> spec -> rows
        for name, group in by_line.items():
            a, b = group[0]["a"], group[0]["b"]
            if section == "solo":
                variant = name.partition(":")[0]
                printer(solo_line(variant, a, group))
                solo.setdefault(variant, {})[a] = group
            else:
                printer(match_line(section, name, a, b, group))
            every += group
        for variant, played in solo.items():
            print_solo_pairs(variant, played, printer)
        if section == "policies":
            for spec in dict.fromkeys(r[f"s{p}_spec"] for r in every for p in (0, 1)):
                printer(mix_line(spec, every))


def _lines(path: Path) -> dict[str, list[dict[str, Any]]]:
    by_line: dict[str, list[dict[str, Any]]] = {}
    for r in read_csv(path) if path.exists() else []:
        by_line.setdefault(r["line"], []).append(r)
    return by_line


def print_paired(folder: Path, other: Path, printer: Callable[[str], None]) -> None:
    """Print, for every match line of ``folder`` and every line of ``other`` that shares games
    with it, how the first's bot A did against the second's on those games."""
    for section in ("pairs", "three"):
        theirs = _lines(other / f"{section}.csv")
        for name, rows in _lines(folder / f"{section}.csv").items():
            if _mirror(rows):
                printer(
                    f"{'paired':8s} {name}: not compared: a mirror line (bot A is bot B) has no "
                    "one seat to follow"
                )
                continue
            for other_name, other_rows in theirs.items():
                if other_name == name and folder.resolve() == other.resolve():
                    continue  # a line against itself
                line = paired_match_line(other_name, other_rows, name, rows)
                if line is not None:
                    printer(line)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sections", nargs="*", default=list(SECTIONS), choices=list(SECTIONS))
    parser.add_argument("--games", type=int, default=20, help="games per pairing (made even)")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes (joblib)")
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
    parser.add_argument("--out", default=None, help="folder for the game rows (CSV per section)")
    parser.add_argument("--read", default=None, help="print the table of a folder of rows")
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
    run = Run(args)
    print(f"root seed {run.root}; {args.jobs} jobs; sections {' '.join(args.sections)}")
    print(HEADER)
    for section in args.sections:
        SECTIONS[section](run, printer)


if __name__ == "__main__":
    main()
