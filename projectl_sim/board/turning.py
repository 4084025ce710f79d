"""Turning points and mistakes: where a seat's win chance fell, and what it could have played.

A turn's *change* is how much its seat's win chance (``winprob``) moved from the position
before the turn's first action to the one after its last (``turns``: the evaluation is weakest
mid-turn, so positions are compared where turns end). The turning points of a game are the
turns whose seat's chance fell most, each shown with its worst decision. A decision is judged
the way the ``value`` bot (the strongest bot that decides in about a millisecond) judges it:
its candidate actions (``bots.value.scored_candidates`` on the seat's view, as it scores them)
and the action played are each applied to a few deals of the decks' unseen cards, the seat's
turn finished the greedy way (as ``value`` scores them, at the turn's end), and the position
reached is worth the seat's calibrated win chance, seen as the graph sees it (a spectator of
the record: the victory piles known, the decks' order not), so a judgement and the graph agree
where the turn ends. The *loss* of the decision is the best candidate's chance less the played
action's; a *mistake* is a loss of ``threshold`` or more (5 points of win chance by default):
a disagreement with the value search, which is itself an estimate (its best of a dozen noisy
candidates is the best partly by luck), so counts compare bots rather than grade them.

A run's summary (``run_summary``) reads the records a run wrote (``run --records``): for each
game, the turn that decided it (the largest rise of the eventual winner's chance) and in it the
action that raised it most, by round and by the kind of action, and each seat's mistakes; per
bot, the mean mistakes per game with a 95% interval.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from bots.features import position_features
from bots.greedy import GreedyBot
from bots.heuristics import cost_model
from bots.value import scored_candidates, turn_after
from bots.value_model import ValueModel, load_model
from projectl_sim.analysis.stats.intervals import mean_interval
from projectl_sim.board.winprob import (
    Calibration,
    Step,
    calibration_for,
    chances_table,
    kind_of,
    label,
    replay_steps,
    result_shares,
)
from projectl_sim.catalogue import Catalogue
from projectl_sim.engine.actions import Action
from projectl_sim.engine.record import read_record
from projectl_sim.engine.state import OVER, PLAY, GameState
from projectl_sim.errors import UsageError

THRESHOLD = 0.05  # a mistake: a loss of 5 points of win chance or more
WORLDS = 4  # deals of the unseen cards each decision is judged on


@dataclass
class Judgement:
    """A decision judged: the played action's chance, and the candidates' (best first)."""

    seat: int
    played: str
    played_chance: float
    alternatives: list[tuple[str, float]]  # (action, chance), best first, the played one too

    @property
    def loss(self) -> float:
        """Return the best candidate's chance less the played action's (0: the best)."""
        best = self.alternatives[0][1] if self.alternatives else self.played_chance
        return max(0.0, best - self.played_chance)


def _chance(
    states: Sequence[GameState], seat: int, model: ValueModel, cal: Calibration
) -> list[float]:
    """Return ``seat``'s calibrated win chance in each state (as the graph's: every pile
    seen)."""
    out = [0.0] * len(states)
    rows: list[list[float]] = []
    at: list[int] = []
    for i, state in enumerate(states):
        if state.phase == OVER:
            shares = result_shares(state)
            out[i] = shares[seat] if seat < len(shares) else 0.0
        else:
            at.append(i)
            rows += [position_features(state, p, 0, 0.0) for p in range(state.n)]
    if rows:
        margins = [m for _, m in model.evaluate_rows(rows)]
        for k, i in enumerate(at):
            n = states[i].n
            chances = cal.chances_of(states[i], margins[k * n : (k + 1) * n])
            out[i] = chances[seat]
    return out


def judge(
    state: GameState,
    played: Action,
    model: ValueModel,
    cal: Calibration,
    seed: int,
    worlds: int = WORLDS,
) -> Judgement:
    """Judge the decision ``played`` of the seat to move in ``state`` (see the module's text)."""
    seat = state.current
    view = state.view(seat)
    greedy = GreedyBot(endgame=0)
    if state.phase == PLAY:
        cm = cost_model(view)
        cands = scored_candidates(view, greedy, cm)  # value's own, at its defaults
    else:
        cands = list(view.legal_actions(master="none"))  # a reward, a Finish: every option
    if played not in cands:
        cands.append(played)
    total = np.zeros(len(cands))
    for w in range(worlds):
        rng = random.Random(int(np.random.SeedSequence([seed, w]).generate_state(1)[0]))
        world = state.redeal(rng)  # the deck's order: unknown to everyone
        after = [turn_after(world, a, greedy, rng) for a in cands]
        total += np.asarray(_chance(after, seat, model, cal))
    mean = total / worlds
    cat = state.rules.catalogue
    order = sorted(range(len(cands)), key=lambda i: (-mean[i], i))
    alternatives = [(label(cands[i], cat), round(float(mean[i]), 4)) for i in order]
    i_played = cands.index(played)
    return Judgement(seat, label(played, cat), round(float(mean[i_played]), 4), alternatives)


def turns(rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Return the game's turns (the actions of one turn of a seat): their steps, the seat, and its
    win chance before the first action and after the last, and the change.

    A turn is compared from its start to its end, where the evaluation scores every position
    (measured: mid-turn it is weakest, a Place that breaks another plan looks worse than it
    is). The game's last turn is left out when it ends the game: its change is the evaluation
    meeting the result, not a decision's effect.
    """
    chance = {(r["step"], r["seat"]): r["win_chance"] for r in rows}
    meta = {r["step"]: r for r in rows}
    last = max(meta)
    groups: list[list[int]] = []
    for k in range(1, last + 1):
        if groups and meta[groups[-1][-1]]["turn"] == meta[k]["turn"]:
            groups[-1].append(k)
        else:
            groups.append([k])
    if groups and meta[last]["over"]:
        groups.pop()
    out = []
    for g in groups:
        first, end = meta[g[0]], meta[g[-1]]
        seat = first["actor"]
        before, after = chance[(g[0] - 1, seat)], chance[(g[-1], seat)]
        out.append(
            {
                "steps": g,
                "round": first["round"],
                "seat": seat,
                "bot": end["bot"] if end["seat"] == seat else _bot_of(rows, seat),
                "before": before,
                "after": after,
                "change": round(after - before, 4),
            }
        )
    return out


def _bot_of(rows: Sequence[dict[str, Any]], seat: int) -> str:
    return next(str(r["bot"]) for r in rows if r["seat"] == seat)


def turning_points(
    steps: Sequence[Step],
    rows: Sequence[dict[str, Any]],
    model: ValueModel,
    cal: Calibration,
    top: int = 3,
    seed: int = 0,
) -> list[dict[str, Any]]:
    """Return the ``top`` turns whose seat's win chance fell most, each with its decision the
    value search judges worst (the largest loss; its alternatives, best first, and their
    chances): the step of that decision, its action and kind."""
    falls = sorted((t for t in turns(rows) if t["change"] < 0), key=lambda t: t["change"])[:top]
    out = []
    for t in falls:
        worst: tuple[int, Judgement] | None = None
        for k in t["steps"]:
            before, action = steps[k - 1].state, steps[k].action
            assert action is not None
            if len(before.legal_actions(master="none")) < 2:
                continue  # no choice
            j = judge(before, action, model, cal, seed + k)
            if worst is None or j.loss > worst[1].loss:
                worst = (k, j)
        if worst is None:
            continue
        k, j = worst
        action = steps[k].action
        assert action is not None
        out.append(
            {
                "step": k,
                "first": t["steps"][0],
                "last": t["steps"][-1],
                "turn_steps": (
                    f"steps {t['steps'][0]}-{t['steps'][-1]}"
                    if len(t["steps"]) > 1
                    else f"step {t['steps'][0]}"
                ),
                "round": t["round"],
                "seat": t["seat"],
                "bot": t["bot"],
                "action": j.played,
                "kind": kind_of(action),
                "before": t["before"],
                "after": t["after"],
                "change": t["change"],
                "played_chance": j.played_chance,
                "loss": round(j.loss, 4),
                "alternatives": j.alternatives[:4],
            }
        )
    return out


def game_mistakes(
    steps: Sequence[Step],
    model: ValueModel,
    cal: Calibration,
    threshold: float = THRESHOLD,
    seed: int = 0,
    worlds: int = 2,
) -> list[dict[str, Any]]:
    """Return every decision of a game judged: its step, seat, kind, loss and whether it is a
    mistake (a loss of ``threshold`` or more)."""
    out = []
    for k in range(1, len(steps)):
        before, action = steps[k - 1].state, steps[k].action
        assert action is not None
        if before.phase == OVER or len(before.legal_actions(master="none")) < 2:
            continue  # no choice: no mistake
        j = judge(before, action, model, cal, seed + k, worlds)
        out.append(
            {
                "step": k,
                "round": before.round,
                "seat": steps[k].seat,
                "kind": kind_of(action),
                "loss": round(j.loss, 4),
                "mistake": j.loss >= threshold,
            }
        )
    return out


def deciding_step(rows: Sequence[dict[str, Any]]) -> dict[str, Any] | None:
    """Return the turn after which the eventual winner's chance rose most (None: no single
    winner, or no turn), and in it the action that raised it most: its step, round, kind,
    and whether it was the winner's own turn."""
    last = max(r["step"] for r in rows)
    final = [r for r in rows if r["step"] == last]
    winners = [r["seat"] for r in final if r["win_chance"] > 0]
    if len(winners) != 1 or len(final) < 2 or not final[0]["over"]:
        return None
    w = winners[0]
    chance = {r["step"]: r["win_chance"] for r in rows if r["seat"] == w}
    meta = {r["step"]: r for r in rows if r["seat"] == w}
    best_turn = None
    for t in turns(rows):
        rise = chance[t["steps"][-1]] - chance[t["steps"][0] - 1]
        if best_turn is None or rise > best_turn[0]:
            best_turn = (rise, t)
    if best_turn is None:
        return None
    rise, t = best_turn
    k = max(t["steps"], key=lambda k: (chance[k] - chance[k - 1], -k))
    return {
        "step": k,
        "round": meta[k]["round"],
        "kind": meta[k]["kind"],
        "by_winner": t["seat"] == w,
        "rise": round(rise, 4),
    }


def run_records(run_dir: str | Path) -> list[Path]:
    """Return the record files of a run folder (``run --records``), in game order."""
    folder = Path(run_dir) / "records"
    files = sorted(folder.glob("game-*.json")) if folder.is_dir() else []
    if not files:
        raise UsageError(
            f"run {run_dir}: no records (records/game-*.json): run it with --records all "
            "(or --records sample) to analyse its games"
        )
    return files


def run_summary(
    run_dir: str | Path,
    *,
    model: str = "",
    calibration: Path | None = None,
    threshold: float = THRESHOLD,
    catalogue: Catalogue | None = None,
    note: Callable[[str], None] | None = None,
    limit: int | None = None,
) -> dict[str, list[dict[str, Any]]]:
    """Return a run's tables: ``decided`` (one row per game: the deciding step's round and
    kind), ``mistakes`` (one row per game and seat: decisions and mistakes) and ``bots`` (per
    bot: mistakes per game, its 95% interval, and the mean loss per decision)."""
    vm = load_model(model)
    cal = calibration_for(vm, calibration, note)
    decided: list[dict[str, Any]] = []
    per_seat: list[dict[str, Any]] = []
    files = run_records(run_dir)[:limit]
    for path in files:
        record = read_record(path)
        steps = replay_steps(record, catalogue)
        seats = record.get("seats") or [f"seat {p}" for p in range(steps[0].state.n)]
        rows = chances_table(steps, seats, vm, cal)
        game = path.stem.removeprefix("game-")
        d = deciding_step(rows)
        if d is not None:
            decided.append({"game": game, **d})
        judged = game_mistakes(steps, vm, cal, threshold, seed=int(record.get("seed") or 0))
        for p, bot in enumerate(seats):
            mine = [j for j in judged if j["seat"] == p]
            per_seat.append(
                {
                    "game": game,
                    "seat": p,
                    "bot": bot,
                    "decisions": len(mine),
                    "mistakes": sum(j["mistake"] for j in mine),
                    "mean_loss": round(float(np.mean([j["loss"] for j in mine])), 4)
                    if mine
                    else 0.0,
                }
            )
    bots_rows = []
    for bot in sorted({r["bot"] for r in per_seat}):
        mine = [r for r in per_seat if r["bot"] == bot]
        mean, low, high = mean_interval([r["mistakes"] for r in mine])
        bots_rows.append(
            {
                "bot": bot,
                "games": len(mine),
                "mistakes_per_game": round(mean, 3),
                "low": None if np.isnan(low) else round(low, 3),
                "high": None if np.isnan(high) else round(high, 3),
                "decisions_per_game": round(float(np.mean([r["decisions"] for r in mine])), 1),
                "mean_loss": round(float(np.mean([r["mean_loss"] for r in mine])), 4),
            }
        )
    return {"decided": decided, "mistakes": per_seat, "bots": bots_rows}


__all__ = [
    "THRESHOLD",
    "Judgement",
    "deciding_step",
    "game_mistakes",
    "judge",
    "run_records",
    "run_summary",
    "turning_points",
    "turns",
]
