"""Win rates against the mastermind: solo and Finesse Solo, by bot and difficulty (a small table).

Run: ``.venv/bin/python benchmarks/solo.py [--games N] [--mcts-games M] [--iterations K]
[--seed S] [--variants solo,finesse-solo] [--unlock take,pass] [--ambassador]``, or
``benchmarks/solo.py --bot SPEC [--bot SPEC ...] [--clairvoyant MCTS-PARAMS ...] [--games N]
[--seed S] [--difficulty D]`` (the budget curve: bots side by side on one set of deals).

Each cell plays its games on the same deals (game seeds spawned from one root seed, so every bot
and difficulty of a variant meets the same decks). A line gives the win rate (rulings: a tie goes
to the mastermind) with its Wilson 95% interval, the mean score of the player and of the
mastermind, and the mean number of Inserts (Finesse Solo; each spends 2 Credits). MCTS budgets
stay modest (the machine is shared): ``--iterations`` per decision, ``--mcts-games`` games per
cell.
``--unlock`` lists the ``solo_unlock`` readings to play (a column of the table), ``--ambassador``
deals Finesse Solo's tiles with the Finesse Ambassador Pack's (``finesse_ambassador``).

``--bot`` (repeatable) plays each spec on the same ``--games`` solo deals of one difficulty
(``--difficulty``, default normal; ``--unlock`` its first reading) and prints, a line each, its
wins with their Wilson interval, its mean points, its wins and points minus the first line's
paired by deal (95% t intervals), the mastermind's mean points and the CPU it took, a decision
and a game. ``--clairvoyant PARAMS`` (repeatable) adds a line for the ``mcts`` search with those
parameters (e.g. ``iterations=200``; ``solosearch`` or ``solosearch:PARAMS``: that search)
whose every world is the true game: it sees the deck order,
so every refill of the grid and every blind draw is known and the solo game is a one-player
planning problem against a deterministic mastermind. It cheats, so it is never a player: it
lives here, and its figure is a ceiling for what the same search reaches seeing only its view
(a lower bound of the clairvoyant optimum, the search not being exhaustive).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

# This script lives beside a folder named like the ``bots`` package: keep ``import bots`` on it.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]

import numpy as np  # noqa: E402

from bots import MCTSBot, make_bot  # noqa: E402
from bots.solo_search import SoloSearchBot  # noqa: E402
from projectl_sim import Rules, play_game  # noqa: E402
from projectl_sim.analysis.stats import mean_interval, wilson  # noqa: E402
from projectl_sim.engine import OVER, GameState, deal, new_game  # noqa: E402
from projectl_sim.errors import ProjectLError  # noqa: E402
from projectl_sim.expansions.finesse import credits  # noqa: E402
from projectl_sim.rules import DIFFICULTIES  # noqa: E402
from projectl_sim.sim.play import game_seeds  # noqa: E402
from projectl_sim.sim.spec import game_seed  # noqa: E402

VARIANTS = {"solo": frozenset(), "finesse-solo": frozenset({"finesse"})}


def cell(
    variant: str,
    difficulty: str,
    spec: str,
    seeds: list[int],
    unlock: str = "take",
    ambassador: bool = False,
) -> str:
    """Play one cell and return its table line."""
    expansions = VARIANTS[variant]
    pack = {"finesse_ambassador": True} if ambassador and expansions else {}
    rules = Rules(
        players=1,
        variant="solo",
        difficulty=difficulty,
        expansions=expansions,
        solo_unlock=unlock,
        **pack,
    )
    wins, scores, opponent, inserts = 0, [], [], []
    start = time.process_time()
    for seed in seeds:
        state = play_game(rules, [make_bot(spec)], seed, record=False).state
        wins += bool(state.winners())
        scores.append(state.final_scores()[0])
        opponent.append(state.opponent_score())
        fin = credits(state)
        inserts.append(fin.inserts[0] if fin is not None else 0)
    n = len(seeds)
    low, high = wilson(wins, n)
    cpu = time.process_time() - start
    label = variant + ("+pack" if pack else "")
    return (
        f"{label:<18}{unlock:<7}{difficulty:<11}{spec:<22}{n:>5}  {wins / n:6.1%} "
        f"[{float(low):6.1%}, {float(high):6.1%}]  {np.mean(scores):6.1f} {np.mean(opponent):6.1f}"
        f"  {np.mean(inserts):5.2f}  {1000 * cpu / n:7.1f} ms"
    )


class _SeesTheTruth:
    """A search whose every world is the true game (benchmark only: it cheats): ``play_seen``
    sets ``truth`` before each decision, and the search's ``_world`` hook copies it."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.truth: GameState | None = None

    def _world(self, view: GameState, rng: random.Random) -> GameState:
        assert self.truth is not None
        return self.truth.copy()


class Clairvoyant(_SeesTheTruth, MCTSBot):
    """The ``mcts`` search that sees the true game."""

    name = "clairvoyant"


class ClairvoyantSolo(_SeesTheTruth, SoloSearchBot):
    """``solosearch`` that sees the true game."""

    name = "clairvoyant-solosearch"


def play_seen(
    rules: Rules, seed: int | np.random.SeedSequence, bot: Any, clairvoyant: bool
) -> tuple[GameState, float, int]:
    """Play one solo game as ``play_game`` deals it; return the final state, the bot's CPU
    seconds and its decisions. A clairvoyant bot is shown the true state before each decision."""
    deal_rng, (rng,) = game_seeds(seed, 1)
    state = new_game(rules, setup=deal(rules, deal_rng))
    cpu, decisions = 0.0, 0
    while state.phase != OVER:
        if clairvoyant:
            bot.truth = state
        start = time.process_time()
        action = bot(state.view(0), rng)
        cpu += time.process_time() - start
        decisions += 1
        state.step(0, action)
    return state, cpu, decisions


def make_player(label: str) -> tuple[Any, bool]:
    """Return a fresh bot for a curve line and whether it sees the deck."""
    if label.startswith("clairvoyant:solosearch"):
        template = make_bot(label.split(":", 1)[1])  # parses and checks the parameters
        return ClairvoyantSolo(**{k: template.options[k] for k in template.given}), True
    if label.startswith("clairvoyant:"):
        template = make_bot("mcts:" + label.split(":", 1)[1])  # parses and checks the parameters
        return Clairvoyant(**{k: template.options[k] for k in template.given}), True
    return make_bot(label), False


def curve(labels: list[str], rules: Rules, seeds: list[int]) -> Iterator[str]:
    """Play every line's bot on the same deals; yield the table's lines as they are played."""
    n = len(seeds)
    yield (
        f"{'bot':<48}{'games':>6}  {'wins [95%]':<24}{'points':>7}  {'wins - first [95%]':<24}"
        f"{'points - first [95%]':<24}{'mmind':>6}{'ms/dec':>9}{'s/game':>8}"
    )
    first: tuple[np.ndarray, np.ndarray] | None = None
    for label in labels:
        won, points, mmind, cpu, decisions = [], [], [], 0.0, 0
        for seed in seeds:
            bot, sees = make_player(label)  # fresh each deal: no memory across games
            state, spent, made = play_seen(rules, seed, bot, sees)
            won.append(float(bool(state.winners())))
            points.append(float(state.final_scores()[0]))
            mmind.append(float(state.opponent_score()))
            cpu += spent
            decisions += made
        w, p = np.array(won), np.array(points)
        low, high = wilson(w.sum(), n)
        dw = dp = "-"  # the first line is what the others are paired against
        if first is None:
            first = (w, p)
        else:
            dw = _signed(mean_interval(w - first[0]), True)
            dp = _signed(mean_interval(p - first[1]), False)
        yield (
            f"{label:<48}{n:>6}  {w.mean():6.1%} [{float(low):5.1%}, {float(high):5.1%}]   "
            f"{p.mean():7.2f}  {dw:<24}{dp:<24}"
            f"{np.mean(mmind):6.1f}{1000 * cpu / max(decisions, 1):9.2f}{cpu / n:8.2f}"
        )


def _signed(x: tuple[float, float, float], pct: bool) -> str:
    if not np.isfinite(x[1]):  # one deal: no interval
        return f"{100 * x[0]:+5.1f}" if pct else f"{x[0]:+5.2f}"
    if pct:
        return f"{100 * x[0]:+5.1f} [{100 * x[1]:+5.1f}, {100 * x[2]:+5.1f}]"
    return f"{x[0]:+5.2f} [{x[1]:+5.2f}, {x[2]:+5.2f}]"


def main() -> None:
    """Print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200, help="games per greedy cell")
    parser.add_argument("--mcts-games", type=int, default=20, help="games per mcts cell")
    parser.add_argument("--iterations", type=int, default=30, help="mcts iterations per decision")
    parser.add_argument("--seed", type=int, default=1, help="root seed")
    parser.add_argument("--variants", default=",".join(VARIANTS), help="variants to play")
    parser.add_argument("--unlock", default="take", help="solo_unlock readings (take,pass)")
    parser.add_argument(
        "--ambassador", action="store_true", help="Finesse Solo with the Ambassador Pack tiles"
    )
    parser.add_argument(
        "--bot", action="append", default=[], metavar="SPEC", help="a curve line: a bot spec"
    )
    parser.add_argument(
        "--clairvoyant",
        action="append",
        default=[],
        metavar="PARAMS",
        help="a curve line: the mcts search with these parameters, seeing the deck order",
    )
    parser.add_argument("--difficulty", default="normal", help="the curve's difficulty")
    args = parser.parse_args()
    if args.games < 1:
        parser.error("--games must be at least 1")
    if args.bot or args.clairvoyant:
        if args.difficulty not in DIFFICULTIES:
            parser.error(
                f"unknown difficulty {args.difficulty!r} (valid: {', '.join(DIFFICULTIES)})"
            )
        labels = args.bot + [f"clairvoyant:{p}" for p in args.clairvoyant]
        unlock = args.unlock.split(",")[0].strip()
        try:
            for label in labels:
                make_player(label)
            rules = Rules(players=1, variant="solo", difficulty=args.difficulty, solo_unlock=unlock)
            root = np.random.SeedSequence(args.seed)
            seeds = [game_seed(ss) for ss in root.spawn(args.games)]
            print(f"root seed {args.seed}, solo {args.difficulty}, unlock {unlock}")
            for line in curve(labels, rules, seeds):
                print(line, flush=True)
        except ProjectLError as exc:
            print(f"solo.py: {exc}", file=sys.stderr)
            sys.exit(2)
        return
    variants = [v.strip() for v in args.variants.split(",") if v.strip()]
    unknown = [v for v in variants if v not in VARIANTS]
    if unknown:
        parser.error(f"unknown variant {unknown[0]!r} (valid: {', '.join(VARIANTS)})")
    readings = [u.strip() for u in args.unlock.split(",") if u.strip()]
    root = np.random.SeedSequence(args.seed)
    # one int seed per game, as the runner draws them (play_game takes an int: compiled, it
    # refuses a SeedSequence)
    seeds = [game_seed(ss) for ss in root.spawn(max(args.games, args.mcts_games))]
    print(f"root seed {args.seed}")
    print(
        f"{'variant':<18}{'unlock':<7}{'difficulty':<11}{'bot':<22}{'games':>5}  win rate [95% CI]"
        "         score  mmind  inserts  cpu/game"
    )
    for variant in variants:
        for unlock in readings:
            for difficulty in DIFFICULTIES:
                line = cell(
                    variant, difficulty, "greedy", seeds[: args.games], unlock, args.ambassador
                )
                print(line, flush=True)
                mcts = f"mcts:iterations={args.iterations}"
                mseeds = seeds[: args.mcts_games]
                print(cell(variant, difficulty, mcts, mseeds, unlock, args.ambassador), flush=True)


if __name__ == "__main__":
    main()
