"""How much a one-step choice among greedy's candidates can buy: greedy rollouts as the oracle.

Run: ``.venv/bin/python tools/value_oracle.py [--games N] [--every K] [--rollouts R]
[--players P] [--variant V] [--expansions E,...] [--seed S] [--spec SPEC] [--out ROWS.npz]``.

Plays ``--games`` self-play games (``--seats``, default greedy; ``--players``, ``--expansions``)
and, at about one Play decision in ``--every``, scores every candidate the value bot compares
(``bots.value.scored_candidates`` with the bot's ``places`` and ``takes``, the greedy choice
first, each turn finished the greedy way) by ``2 R`` greedy rollouts to the end, common to the
candidates (rollout ``r`` deals the same hidden cards and uses the same random stream for
each; ``projectl_sim.learn.rollouts``, which expert iteration labels with too). A candidate's
rollout value is its mean win share (ties: the mean margin / 100 on top).

Printed, with 95% intervals over the positions:

- how often greedy's own choice is the best candidate by the rollouts, and how often the bot
  named by ``--spec`` (default: ``value``) picks greedy's choice;
- the oracle's gain: the win share the rollout-best candidate (chosen on rollouts 1..R, scored on
  the independent R+1..2R, so its selection's luck is not counted) adds to greedy's choice, per
  decision: the most a one-step picker among these candidates could add;
- the value bot's gain (its choice scored on all 2R rollouts) and the rank correlation between
  its values and the rollout values within a position.

With ``--out``, every candidate's after-state is written as a training row (its features from
the deciding seat's view, its mean rollout win share and margin): rows in the
``projectl_sim.learn.value.Positions`` format, lower-noise targets than one game's outcome.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]

import numpy as np  # noqa: E402
from scipy.stats import spearmanr  # noqa: E402

from bots import make_bot  # noqa: E402
from bots.greedy import GreedyBot  # noqa: E402
from projectl_sim import Rules, play_game  # noqa: E402
from projectl_sim.engine import PLAY, GameState  # noqa: E402
from projectl_sim.engine.actions import Action  # noqa: E402
from projectl_sim.learn.rollouts import decision_rows, score_position  # noqa: E402
from projectl_sim.learn.value import Positions  # noqa: E402
from projectl_sim.sim.spec import split_lineup  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--every", type=int, default=8)
    parser.add_argument("--rollouts", type=int, default=8, help="R: 2R rollouts a candidate")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--expansions", default="", help="comma-separated (default: none)")
    parser.add_argument(
        "--variant", default="", help="standard, solo or line_clear (default: solo at 1 player)"
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--spec", default="value")
    parser.add_argument(
        "--seats",
        default="greedy",
        help="the games' bots, comma-separated, cycled over seats (a key=value item belongs to "
        "the bot before it)",
    )
    parser.add_argument("--out", default=None)
    args = parser.parse_args()

    bot = make_bot(args.spec)
    greedy = GreedyBot(endgame=0)
    expansions = tuple(e for e in args.expansions.split(",") if e)
    variant = args.variant or ("solo" if args.players == 1 else "standard")
    rules = Rules(players=args.players, expansions=set(expansions), variant=variant)
    views: list[GameState] = []
    pick = random.Random(args.seed)

    def note(state: GameState, seat: int, action: Action) -> None:
        if state.phase == PLAY and pick.random() * args.every < 1.0:
            views.append(state.view(state.current))

    seats = split_lineup(args.seats)
    for g in range(args.games):
        specs = [seats[(g + q) % len(seats)] for q in range(args.players)]
        play_game(
            rules, [make_bot(s) for s in specs], args.seed * 1000 + g, record=False, on_step=note
        )
    t0 = time.process_time()
    greedy_best, bot_greedy, oracle_gain, bot_gain, rho = [], [], [], [], []
    rows_x, rows_win, rows_margin, rows_game = [], [], [], []
    n_cands = []
    R = args.rollouts
    for k, view in enumerate(views):
        cands, wins, margins, values, feats = score_position(view, bot, greedy, R, k + 1)
        n_cands.append(len(cands))
        q = wins + margins / 100.0
        full = q.mean(axis=1)
        qa = q[:, :R].mean(axis=1)
        best_a = int(np.argmax(qa))
        greedy_best.append(float(full[0] >= full.max() - 1e-12))
        oracle_gain.append(float(wins[best_a, R:].mean() - wins[0, R:].mean()))
        choice = int(np.argmax(values))
        bot_greedy.append(float(choice == 0))
        bot_gain.append(float(wins[choice].mean() - wins[0].mean()))
        if len(cands) > 2 and np.std(full) > 0 and np.std(values) > 0:
            rho.append(float(spearmanr(values, full)[0]))
        x, win, margin = decision_rows(wins, margins, feats)
        rows_x += x
        rows_win += win
        rows_margin += margin
        rows_game += [k] * len(x)
        if (k + 1) % 20 == 0:
            print(
                f"{k + 1}/{len(views)} positions, {time.process_time() - t0:.0f} CPU s", flush=True
            )

    def ci(xs: list[float]) -> str:
        a = np.asarray(xs)
        half = 1.96 * a.std(ddof=1) / np.sqrt(len(a)) if len(a) > 1 else float("nan")
        return f"{a.mean():+.4f} [{a.mean() - half:+.4f}, {a.mean() + half:+.4f}]"

    print(
        f"{len(views)} positions of {args.games} games of {args.seats} ({args.players} players), "
        f"{np.mean(n_cands):.1f} candidates a position, {2 * R} rollouts each, "
        f"{time.process_time() - t0:.0f} CPU s"
    )
    print(f"greedy's choice is the rollout-best      {ci(greedy_best)}")
    print(f"{args.spec} picks greedy's choice           {ci(bot_greedy)}")
    print(f"oracle gain (win share a decision)       {ci(oracle_gain)}")
    print(f"{args.spec} gain (win share a decision)     {ci(bot_gain)}")
    if rho:
        print(f"rank corr. {args.spec} values vs rollouts    {ci(rho)} ({len(rho)} positions)")
    if args.out:
        x = np.asarray(rows_x, dtype=np.float64)
        n = len(x)
        Positions(
            x=x,
            game=np.asarray(rows_game, dtype=np.int64),
            players=np.full(n, args.players, dtype=np.int64),
            margin=np.asarray(rows_margin),
            win=np.asarray(rows_win),
            old_margin=np.zeros(n),
            root_value=np.full(n, np.nan),
            table=np.asarray(["+".join(expansions) or "base"] * n, dtype=str),
            variant=np.asarray([variant] * n, dtype=str),
        ).save(Path(args.out))
        print(f"{n} rows -> {args.out}")


if __name__ == "__main__":
    main()
