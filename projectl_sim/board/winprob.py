"""Each seat's chance to win after every step of a game, from the learned evaluation or rollouts.

The learned evaluation (``bots.value_model``) predicts, for one seat of a position, its win
share and its final margin over the best rival. The margin is the better-ranked of the two
(correlation with the result), but it is points, not a chance, the seats' win outputs need not
add up to one, and both lean towards the seat to move: at the start of a turn (three actions
left) greedy self-play gives the mover a predicted margin 1.4 points above the seat that has
just moved, though each wins half the games. So the chances are a calibrated softmax of the
seats' predicted margins with a tempo term for the seat to move::

    chance(seat p) = exp(k * m_p + t * [p to move]) / sum over seats q of the same

with one scale ``k`` (per point) per player count and one ``t`` per place in the mover's turn
(``tempo_key``: its actions left, or the phase), fitted by maximum likelihood on self-play
positions and their games' outcomes (``calibrate``: greedy self-play, solo and 2, 3 and 4
players, every position of every game, a tie's win shared; a count not fitted, Line Clear's 5,
takes the nearest one's). Solo compares the player with the mastermind the same way (a margin
of ``m`` against ``-m``). The fit is stored beside the shipped model
(``data/models/calibration.json``, naming the model's hash); a model without one (a user's, or
a new shipped one) is calibrated when first used, on fewer games, and the note says so. A
finished game's chances are its real result (the winners share it).

On demand, ``rollouts`` plays games to the end from chosen steps (greedy seats by default), with
the deck cards nobody has seen dealt again per game, and gives each seat's mean win share with
a 95% (Wilson) interval: slower, and independent of the model.
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from bots import make_bot
from bots.features import position_features
from bots.value_model import ValueModel, load_model
from projectl_sim.analysis.stats.intervals import wilson
from projectl_sim.board.position import cut_record
from projectl_sim.catalogue import Catalogue
from projectl_sim.engine.actions import Action
from projectl_sim.engine.record import replay
from projectl_sim.engine.state import OVER, PLAY, GameState
from projectl_sim.errors import UsageError
from projectl_sim.rules import Rules
from projectl_sim.sim.play import play_game
from projectl_sim.sim.position_study import action_label as label

CALIBRATION = Path(__file__).resolve().parent.parent / "data" / "models" / "calibration.json"
CALIBRATION_FORMAT = "projectl-sim win calibration"
MAX_ROLLOUT_ACTIONS = 3000  # a rollout cut off here (a stalled table) counts as no one's win


def tempo_key(state: GameState) -> str:
    """Return where the seat to move stands in its turn: its actions left in play (``"3"``,
    ``"2"``, ``"1"``), else the phase (a reward choice, Finishing Touches...)."""
    return str(state.actions_left) if state.phase == PLAY else str(state.phase)


@dataclass(frozen=True)
class Calibration:
    """The scales ``k`` that turn the seats' predicted margins into win chances and the tempo
    terms ``t`` of the seat to move, per kind of game (``"solo"``, ``"2"``, ``"3"``, ``"4"``:
    the player count), and the fit's scores."""

    model_hash: str
    scales: dict[str, float]  # per point
    tempo: dict[str, dict[str, float]]  # kind -> tempo key (tempo_key) -> t
    games: int
    positions: int
    log_loss: float  # per position, of the fitted chances
    uniform_log_loss: float  # of the even chances (1/n each): what the evaluation improves on
    brier: float

    def kind(self, players: int, solo: bool = False) -> str:
        """Return the fitted kind of a game of ``players`` (a count not fitted: the nearest)."""
        if solo and "solo" in self.scales:
            return "solo"
        counts = [int(k) for k in self.scales if k.isdigit()]
        return str(min(counts, key=lambda c: (abs(c - players), c)))

    def chances(
        self, margins: Sequence[float], solo: bool = False, mover: int = -1, key: str = ""
    ) -> list[float]:
        """Return each seat's win chance from the seats' predicted margins (solo: one), the
        seat to move ``mover`` getting the tempo term of ``key`` (see ``tempo_key``)."""
        kind = self.kind(len(margins), solo)
        k = self.scales[kind]
        t = self.tempo.get(kind, {}).get(key, 0.0) if mover >= 0 else 0.0
        if solo:  # the player (always to move) against the mastermind
            return [1.0 / (1.0 + math.exp(-(2.0 * k * margins[0] + t)))]
        z = [k * m + (t if p == mover else 0.0) for p, m in enumerate(margins)]
        top = max(z)
        e = [math.exp(v - top) for v in z]
        total = sum(e)
        return [v / total for v in e]

    def chances_of(self, state: GameState, margins: Sequence[float]) -> list[float]:
        """Return each seat's win chance in ``state`` (not over) from its predicted margins."""
        return self.chances(margins, state.rules.solo, state.current, tempo_key(state))


def result_shares(state: GameState) -> list[float]:
    """Return each seat's share of the win of a finished game (solo: 1 or 0 for the player)."""
    winners = state.winners()
    return [1.0 / len(winners) if p in winners else 0.0 for p in range(state.n)]


def predicted_margins(model: ValueModel, states: Sequence[GameState]) -> np.ndarray:
    """Return the model's predicted margin (points) of each seat of each state (a row each;
    a finished state's row is its real margins, unused by the chances)."""
    rows: list[list[float]] = []
    at: list[tuple[int, int]] = []
    n = states[0].n if states else 0
    out = np.zeros((len(states), n))
    for i, state in enumerate(states):
        if state.phase == OVER:
            continue
        for p in range(state.n):
            # the whole state: a spectator of the record sees every pile (no hidden pile)
            rows.append(position_features(state, p, 0, 0.0))
            at.append((i, p))
    if rows:
        for (i, p), (_, margin) in zip(at, model.evaluate_rows(rows), strict=True):
            out[i, p] = margin
    return out


def _loss(
    params: np.ndarray,
    margins: np.ndarray,
    shares: np.ndarray,
    mover: np.ndarray,
    keys: np.ndarray,
) -> float:
    """Return the negative log-likelihood of the shares under softmax(k m + t[key] mover)."""
    z = params[0] * margins + params[1:][keys][:, None] * mover
    z = z - z.max(axis=1, keepdims=True)
    logp = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
    return -float((shares * logp).sum())


def fit_calibration(
    margins: np.ndarray, shares: np.ndarray, mover: np.ndarray, keys: Sequence[str]
) -> tuple[float, dict[str, float]]:
    """Return the scale ``k`` and the tempo terms ``t`` (per key) of ``softmax(k * margin + t
    * is_mover)`` that best predict the shares (maximum likelihood; one row per position,
    one column per seat; solo's columns: the mastermind's negated margin and the player's)."""
    from scipy.optimize import minimize

    names = sorted(set(keys))
    index = np.asarray([names.index(k) for k in keys])
    start = np.zeros(1 + len(names))
    start[0] = 0.1

    def mean_loss(params: np.ndarray) -> float:  # per position: well scaled for the search
        return _loss(params, margins, shares, mover, index) / len(margins)

    fit = minimize(
        mean_loss,
        start,
        method="L-BFGS-B",
        bounds=[(1e-4, 5.0)] + [(-5.0, 5.0)] * len(names),
    )
    return float(fit.x[0]), {k: float(v) for k, v in zip(names, fit.x[1:], strict=True)}


def _as_softmax(
    states: Sequence[GameState], final: GameState, margins: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[str]]:
    """Return a game's positions as softmax columns: margins, outcome, the seat to move (one
    hot) and its tempo key (solo: the mastermind, then the player, always to move)."""
    shares = np.asarray(result_shares(final))
    keys = [tempo_key(s) for s in states]
    if final.rules.solo:
        m = np.stack([-margins[:, 0], margins[:, 0]], axis=1)
        y = np.array([[1.0 - shares[0], shares[0]]] * len(margins))
        mover = np.tile([0.0, 1.0], (len(margins), 1))
        # solo's scale multiplies 2m (the player's margin against its negation)
        return m, y, mover, keys
    mover = np.zeros_like(margins)
    mover[np.arange(len(states)), [s.current for s in states]] = 1.0
    return margins, np.tile(shares, (len(margins), 1)), mover, keys


def _rules_of(players: int) -> Rules:
    """Return the rules of a calibration game (1: solo)."""
    return Rules(players=1, variant="solo") if players == 1 else Rules(players=players)


def calibrate(
    model: ValueModel,
    games: int = 600,
    seed: int = 54,
    players: Sequence[int] = (1, 2, 3, 4),
    bot: str = "greedy",
) -> Calibration:
    """Fit the margin-to-chance scale of each player count (1: solo) on ``games`` self-play
    games of ``bot`` (dealt from ``seed``, spread over ``players``): every position of each
    game, labelled with its result."""
    kinds: dict[str, list[tuple[np.ndarray, np.ndarray, np.ndarray, list[str]]]] = {}
    seeds = np.random.SeedSequence(seed).generate_state(games).tolist()
    for g in range(games):
        n = players[g % len(players)]
        rules = _rules_of(n)
        states: list[GameState] = []
        keep = states.append
        out = play_game(
            rules,
            [make_bot(bot)] * n,
            int(seeds[g]),
            record=False,
            on_start=lambda s, keep=keep: keep(s.copy()),
            on_step=lambda s, _p, _a, keep=keep: keep(s.copy()) if s.phase != OVER else None,
        )
        if out.state.phase != OVER:
            continue
        key = "solo" if rules.solo else str(n)
        kinds.setdefault(key, []).append(
            _as_softmax(states, out.state, predicted_margins(model, states))
        )
    scales: dict[str, float] = {}
    tempo: dict[str, dict[str, float]] = {}
    loss = uniform = brier = 0.0
    positions = 0
    for key, parts in sorted(kinds.items()):
        m = np.concatenate([p[0] for p in parts])
        y = np.concatenate([p[1] for p in parts])
        mover = np.concatenate([p[2] for p in parts])
        keys = [k for p in parts for k in p[3]]
        k, t = fit_calibration(m, y, mover, keys)
        scales[key] = round(k, 6)
        tempo[key] = {name: round(v, 6) for name, v in t.items()}
        params = np.asarray([k, *(t[name] for name in sorted(t))])
        index = np.asarray([sorted(t).index(name) for name in keys])
        loss += _loss(params, m, y, mover, index)
        uniform += float(-(y * np.log(1.0 / y.shape[1])).sum())
        z = k * m + params[1:][index][:, None] * mover
        p = np.exp(z - z.max(axis=1, keepdims=True))
        p /= p.sum(axis=1, keepdims=True)
        brier += float(((p - y) ** 2).sum())
        positions += len(m)
    if not scales:
        raise UsageError("calibration: no self-play game ended (nothing to fit)")
    return Calibration(
        model.hash,
        scales,
        tempo,
        games,
        positions,
        round(loss / positions, 6),
        round(uniform / positions, 6),
        round(brier / positions, 6),
    )


def write_calibration(cal: Calibration, path: Path = CALIBRATION) -> None:
    """Write a calibration file."""
    data = {"format": CALIBRATION_FORMAT, **asdict(cal)}
    path.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")


def read_calibration(path: Path) -> Calibration:
    """Read a calibration file; one line naming the file when it is not one."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise UsageError(f"calibration {path}: cannot read it ({exc})") from None
    if not isinstance(data, dict) or data.get("format") != CALIBRATION_FORMAT:
        raise UsageError(f'calibration {path}: not a calibration file (no "format")')
    try:
        cal = Calibration(**{k: v for k, v in data.items() if k != "format"})
    except TypeError:
        fields = sorted(set(Calibration.__dataclass_fields__) ^ (set(data) - {"format"}))
        raise UsageError(
            f"calibration {path}: not this version's (its fields differ: {', '.join(fields)}); "
            "write one: projectl-sim analyse --calibrate"
        ) from None
    if not isinstance(cal.scales, dict) or not cal.scales:
        raise UsageError(f"calibration {path}: scales must map a player count to a number")
    if not isinstance(cal.tempo, dict) or not all(
        isinstance(t, dict) and all(isinstance(v, (int, float)) for v in t.values())
        for t in cal.tempo.values()
    ):
        raise UsageError(f"calibration {path}: tempo must map a kind to its terms (numbers)")
    for key, k in cal.scales.items():
        if (
            not (key == "solo" or key.isdigit())
            or not isinstance(k, (int, float))
            or not 0 < k < 10
        ):
            raise UsageError(
                f"calibration {path}: scale {key!r}: {k!r} (a player count or solo, and a "
                "number in (0, 10))"
            )
    return cal


_FITTED: dict[str, Calibration] = {}


def calibration_for(
    model: ValueModel, path: Path | None = None, note: Callable[[str], None] | None = None
) -> Calibration:
    """Return the calibration of ``model``: the file's (default: the shipped one) when it names
    the model's hash, else one fitted now on 120 self-play games (``note`` is told)."""
    if path is not None and not path.exists():
        raise UsageError(f"calibration {path}: no such file")
    path = CALIBRATION if path is None else path
    if path.exists():
        cal = read_calibration(path)
        if cal.model_hash == model.hash:
            return cal
    if model.hash not in _FITTED:
        if note is not None:
            note(
                f"no calibration for model {model.hash} in {path}: fitting one on 120 self-play "
                "games (projectl-sim analyse --calibrate writes one)"
            )
        _FITTED[model.hash] = calibrate(model, games=120)
    return _FITTED[model.hash]


@dataclass
class Step:
    """One position of a replayed game: the state after ``step`` actions and the action that
    led to it (None at the deal) and its seat."""

    step: int
    state: GameState
    seat: int
    action: Action | None


def replay_steps(
    record: dict[str, Any], catalogue: Catalogue | None = None, **named_data: Any
) -> list[Step]:
    """Replay a record (checked) and return every position, the deal first."""
    steps: list[Step] = []

    def keep(state: GameState, seat: int, action: Action | None) -> None:
        steps.append(Step(len(steps), state.copy(), seat, action))

    replay(record, catalogue, on_step=keep, **named_data)
    return steps


def kind_of(action: Action | None) -> str:
    """Return an action's kind in the tables' words (its class name, lower case)."""
    if action is None:
        return "deal"
    inner = getattr(action, "inner", None)
    return type(inner if inner is not None else action).__name__.lower()


def chances_table(
    steps: Sequence[Step], seats: Sequence[str], model: ValueModel, cal: Calibration
) -> list[dict[str, Any]]:
    """Return one row per step and seat: the step, its round, the action and who took it, and
    the seat's predicted margin and win chance (a finished game: its result)."""
    states = [s.state for s in steps]
    margins = predicted_margins(model, states)
    rows: list[dict[str, Any]] = []
    # a turn's end (the deal, a seat's last action before another seat's, the game's last):
    # where every position is scored alike (the evaluation is weakest mid-turn)
    # the turn each action was taken in (the deal: 0), so a solo player's turns part too
    turn = [0] + [steps[k - 1].state.turn for k in range(1, len(steps))]
    ends = [
        s.step == 0 or s.step == len(steps) - 1 or turn[s.step + 1] != turn[s.step] for s in steps
    ]
    for s, m in zip(steps, margins, strict=True):
        state = s.state
        over = state.phase == OVER
        chances = result_shares(state) if over else cal.chances_of(state, m.tolist())
        cat = state.rules.catalogue
        text = label(s.action, cat) if s.action is not None else "deal"
        for p in range(len(chances)):
            rows.append(
                {
                    "step": s.step,
                    "round": state.round,
                    "turn": turn[s.step],
                    "actor": s.seat if s.action is not None else -1,
                    "action": text,
                    "kind": kind_of(s.action),
                    "seat": p,
                    "bot": seats[p] if p < len(seats) else f"seat {p}",
                    "margin": round(float(m[p]), 3),
                    "win_chance": round(chances[p], 4),
                    "turn_end": ends[s.step],
                    "over": over,
                }
            )
    return rows


def rollout_shares(
    state: GameState, bots: Sequence[str], games: int, seed: int | Sequence[int]
) -> tuple[list[float], list[tuple[float, float]]]:
    """Return each seat's mean win share over ``games`` games played to the end from ``state``
    by ``bots`` (the unseen deck cards dealt again each game; game g seeded by the entropy
    ``[*seed, g]``), and its 95% interval (low, high)."""
    key = [seed] if isinstance(seed, int) else list(seed)
    n = state.n
    players = [make_bot(b) for b in bots]
    shares = np.zeros((games, n))
    for g in range(games):
        rng = random.Random(int(np.random.SeedSequence([*key, g]).generate_state(1)[0]))
        world = state.redeal(rng)
        rngs = [random.Random(rng.getrandbits(64)) for _ in range(n)]
        steps = 0
        while world.phase != OVER and steps < MAX_ROLLOUT_ACTIONS:
            seat = world.current
            world.step(seat, players[seat](world.view(seat), rngs[seat]))
            steps += 1
        if world.phase == OVER:
            shares[g] = result_shares(world)
    # Wilson's interval of the wins (a tie's shared win counted as its share): a seat that won
    # every rollout still gets an interval, which a normal one would shrink to nothing
    low, high = wilson(shares.sum(axis=0), games)
    return shares.mean(axis=0).tolist(), list(zip(low.tolist(), high.tolist(), strict=True))


def add_rollouts(
    rows: list[dict[str, Any]],
    steps: Sequence[Step],
    bots: Sequence[str],
    games: int,
    every: int,
    seed: int,
) -> None:
    """Add to ``rows`` each seat's rollout win share and 95% interval at every ``every``-th
    step (and the last before the end); the other rows get none."""
    chosen = {s.step for s in steps if s.step % every == 0 and s.state.phase != OVER}
    live = [s.step for s in steps if s.state.phase != OVER]
    if live:
        chosen.add(live[-1])
    results: dict[int, tuple[list[float], list[tuple[float, float]]]] = {}
    for s in steps:
        if s.step in chosen:
            results[s.step] = rollout_shares(s.state, bots, games, (seed, s.step))
    for row in rows:
        got = results.get(row["step"])
        if got is None or row["seat"] >= len(got[0]):
            row |= {"rollout_win": None, "rollout_low": None, "rollout_high": None}
            continue
        mean, (low, high) = got[0][row["seat"]], got[1][row["seat"]]
        row |= {
            "rollout_win": round(mean, 4),
            "rollout_low": round(low, 4),
            "rollout_high": round(high, 4),
        }
        row["rollouts"] = games


def view_chances(
    rows: Sequence[dict[str, Any]],
    cal: Calibration,
    turning: Sequence[int] = (),
    record: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Return the viewer's graph data (``view.write_view``'s ``chances``): each seat's chance
    at every step, the turning points' steps and where the chances come from; with
    ``record``, the record (its result left out) the page saves positions from."""
    seats = sorted({r["seat"] for r in rows})
    last = max(r["step"] for r in rows)
    series = [[0.0] * (last + 1) for _ in seats]
    ends = [False] * (last + 1)
    for r in rows:
        series[r["seat"]][r["step"]] = r["win_chance"]
        ends[r["step"]] = bool(r["turn_end"])
    return {
        "turn_ends": [k for k, end in enumerate(ends) if end],
        "source": (
            f"learned evaluation {cal.model_hash}: the seats' predicted margins as chances "
            f"(calibrated on {cal.games} self-play games); bold: at each turn's end; marked: "
            "the turning points"
        ),
        "seats": series,
        "turning": list(turning),
    } | ({"record": cut_record(record, last)} if record is not None else {})


def evaluate_record(
    record: dict[str, Any],
    *,
    model: str = "",
    calibration: Path | None = None,
    catalogue: Catalogue | None = None,
    note: Callable[[str], None] | None = None,
    **named_data: Any,
) -> tuple[list[Step], list[dict[str, Any]], Calibration]:
    """Replay a record and return its steps, its win-chance rows and the calibration used."""
    steps = replay_steps(record, catalogue, **named_data)
    vm = load_model(model)
    cal = calibration_for(vm, calibration, note)
    seats = record.get("seats") or [f"seat {p}" for p in range(steps[0].state.n)]
    return steps, chances_table(steps, seats, vm, cal), cal


__all__ = [
    "CALIBRATION",
    "Calibration",
    "Step",
    "add_rollouts",
    "calibrate",
    "calibration_for",
    "chances_table",
    "evaluate_record",
    "fit_calibration",
    "kind_of",
    "label",
    "predicted_margins",
    "read_calibration",
    "replay_steps",
    "result_shares",
    "rollout_shares",
    "tempo_key",
    "view_chances",
    "write_calibration",
]
