"""Train the learned evaluation: self-play positions, a fit, honest accuracy on held-out games.

``collect`` plays self-play games of greedy (and its presets), the four policies and MCTS, at 1-4
players (and Line Clear's 5), with and without each expansion, a few seats making a random
candidate move now and then so that unusual positions are seen too. Every ``every``-th Play
position (on average, drawn with the game's own seed) becomes one row per seat: the seat's
features from its own view (``bots.features``), its final win share and margin over the best
rival, the old fitted leaf evaluation's margin and, where an MCTS seat just moved, its search's
root value. The games' seeds are spawned from one root seed in the parent: the same seed gives
the same rows for any number of jobs.

``fit`` standardises the features and fits scikit-learn's ``MLPRegressor`` (ReLU hidden layers,
two outputs: the win share and the margin / 10) on the training games; ``export`` writes it as a
model file that the bots evaluate without scikit-learn (``bots.value_model``). ``accuracy``
scores the exported model (through the bots' own evaluation, as it plays) on held-out games never
trained on, per player count and expansion, beside the old fitted evaluation; ``learning_curve``
refits on growing shares of the training games. The choice of model family is argued in
``docs/reference/bots.md`` with the numbers of ``tools/value_models.py``.
"""

from __future__ import annotations

import contextlib
import math
import os
import random
import warnings
import zlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar
from zipfile import BadZipFile

import numpy as np

from bots import make_bot
from bots.base import Bot
from bots.features import (
    FEATURE_NAMES,
    FEATURE_VERSION,
    hidden_piles,
    mean_unseen_points,
    position_features,
)
from bots.heuristics import Weights, candidate_actions, cost_model
from bots.mcts import score_estimate
from projectl_sim.engine import OVER, PLAY, GameState
from projectl_sim.engine.actions import Action
from projectl_sim.errors import ProjectLError, UsageError
from projectl_sim.rules import Rules
from projectl_sim.sim.play import play_game

MARGIN_SCALE = 10.0
# The self-play population: a seat's bot is drawn with these weights (MCTS's by ``mcts_share``).
POLICIES: tuple[tuple[str, float], ...] = (
    ("greedy", 0.34),
    ("builder", 0.11),
    ("rusher", 0.13),
    ("setter", 0.1),
    ("recycler", 0.11),
    ("greedy:preset=engine", 0.07),
    ("greedy:preset=rush_black", 0.07),
    ("greedy:preset=cautious", 0.07),
)
MCTS_SPEC = "mcts:iterations=40"
# (players, variant, weight); expansions drawn apart
TABLES: tuple[tuple[int, str, float], ...] = (
    (1, "solo", 0.14),
    (2, "standard", 0.44),
    (3, "standard", 0.2),
    (4, "standard", 0.19),
    (5, "line_clear", 0.03),
)
EXPANSION_SETS: tuple[tuple[tuple[str, ...], float], ...] = (
    ((), 0.5),
    (("finesse",), 0.12),
    (("ghost_piece",), 0.12),
    (("ambassador_pack",), 0.08),
    (("phoenix",), 0.08),
    (("ghost_piece", "finesse"), 0.05),
    (("ghost_piece", "ambassador_pack", "finesse", "phoenix"), 0.05),
)
DEVIATE = 0.08  # a deviating seat plays a random candidate this often


@dataclass(frozen=True)
class GameConfig:
    """One self-play game: its table, its seats' bots, which seats deviate, its seed."""

    players: int
    variant: str
    expansions: tuple[str, ...]
    specs: tuple[str, ...]
    deviate: tuple[bool, ...]
    seed: int

    def rules(self) -> Rules:
        kw: dict[str, Any] = {"players": self.players, "expansions": set(self.expansions)}
        if self.variant != "standard":
            kw["variant"] = self.variant
        return Rules(**kw)

    @property
    def table(self) -> str:
        """Return the expansion label of the game's rows ("base" for none)."""
        return "+".join(self.expansions) or "base"


def _draw(rng: np.random.Generator, items: Sequence[Any], weights: Sequence[float]) -> Any:
    w = np.asarray(weights, dtype=float)
    return items[int(rng.choice(len(items), p=w / w.sum()))]


def draw_configs(games: int, seed: int, mcts_share: float = 0.04) -> list[GameConfig]:
    """Return ``games`` self-play game configurations drawn from the root ``seed``."""
    root = np.random.SeedSequence(seed)
    draw_ss, games_ss = root.spawn(2)
    rng = np.random.default_rng(draw_ss)
    seeds = games_ss.generate_state(games, dtype=np.uint64)
    specs = [s for s, _ in POLICIES] + [MCTS_SPEC]
    weights = [w * (1 - mcts_share) / sum(w for _, w in POLICIES) for _, w in POLICIES]
    weights.append(mcts_share)
    out = []
    for k in range(games):
        players, variant, _ = _draw(rng, TABLES, [t[2] for t in TABLES])
        exps = _draw(rng, [e for e, _ in EXPANSION_SETS], [w for _, w in EXPANSION_SETS])
        if variant == "solo" and "phoenix" in exps:
            exps = tuple(e for e in exps if e != "phoenix")  # not a solo expansion
        seats = tuple(_draw(rng, specs, weights) for _ in range(players))
        deviate = tuple(bool(rng.random() < 0.3) for _ in range(players))
        out.append(GameConfig(players, variant, exps, seats, deviate, int(seeds[k])))
    return out


class _Deviating(Bot):
    """A seat that plays its bot, and now and then a random candidate (unusual positions)."""

    name = "deviating"

    def __init__(self, bot: Bot, rate: float) -> None:
        super().__init__()
        self.bot = bot
        self.rate = rate

    def __call__(self, view: GameState, rng: random.Random) -> Action:
        if view.phase == PLAY and rng.random() < self.rate:
            cands = candidate_actions(view, Weights(), cost_model(view))
            legal = [a for a in cands if _legal(view, a)]
            if legal:
                return rng.choice(legal)
        return self.bot(view, rng)


def _legal(view: GameState, action: Action) -> bool:
    try:
        view.check(view.current, action)
    except Exception:
        return False
    return True


COLUMNS = ("game", "players", "seat", "margin", "win", "old_margin", "root_value")


def seat_rows(state: GameState) -> list[tuple[list[float], float]]:
    """Return each seat's row of a position: its features (from its own view) and the
    heuristic's margin for it (``old_margin``: its estimated score less the best rival's, or the
    mastermind's in solo)."""
    model = cost_model(state)
    est = [score_estimate(state, q, model) for q in range(state.n)]
    rows = []
    for q in range(state.n):
        view = state.view(q)
        hidden = hidden_piles(view)
        per_card = mean_unseen_points(view) if hidden else 0.0
        if state.rules.solo:
            old = est[q] - float(state.opponent_score())
        else:
            old = est[q] - max(est[r] for r in range(state.n) if r != q)
        rows.append((position_features(view, q, hidden, per_card), old))
    return rows


def play_positions(cfg: GameConfig, every: int) -> tuple[np.ndarray, np.ndarray, str, str]:
    """Play one game; return its rows' features, their label columns (``COLUMNS``), the game's
    expansion label and variant (empty arrays for a game not ended by the rules)."""
    rules = cfg.rules()
    bots: list[Any] = []
    for spec, dev in zip(cfg.specs, cfg.deviate, strict=True):
        bot = make_bot(spec)
        bots.append(_Deviating(bot, DEVIATE) if dev else bot)
    pick = random.Random(cfg.seed ^ 0x5EED)
    feats: list[list[float]] = []
    meta: list[list[float]] = []

    def on_step(state: GameState, seat: int, action: Action) -> None:
        if state.phase != PLAY or pick.random() * every >= 1.0:
            return
        root = getattr(_inner(bots[seat]), "root_value", -1.0)
        for q, (row, old) in enumerate(seat_rows(state)):
            feats.append(row)
            value = float(root) if q == seat and root >= 0 else math.nan
            meta.append([0.0, state.n, q, 0.0, 0.0, old, value])

    outcome = play_game(rules, bots, cfg.seed, record=False, on_step=on_step)
    state = outcome.state
    if state.phase != OVER or state.truncated or not feats:
        return np.zeros((0, len(FEATURE_NAMES))), np.zeros((0, len(COLUMNS))), cfg.table, ""
    final = state.final_scores()
    winners = state.winners()
    for row in meta:
        q = int(row[2])
        if state.rules.solo:
            margin = final[q] - state.opponent_score()
        else:
            margin = final[q] - max(final[r] for r in range(state.n) if r != q)
        row[3] = float(margin)
        row[4] = (1.0 / len(winners)) if q in winners else 0.0
    return np.asarray(feats), np.asarray(meta), cfg.table, cfg.variant


def _inner(bot: Any) -> Any:
    return bot.bot if isinstance(bot, _Deviating) else bot


@dataclass
class Positions:
    """Self-play rows: features ``x`` and the label columns, with each row's game."""

    x: np.ndarray
    game: np.ndarray
    players: np.ndarray
    margin: np.ndarray
    win: np.ndarray
    old_margin: np.ndarray
    root_value: np.ndarray
    table: np.ndarray  # expansion label per row
    variant: np.ndarray

    def __len__(self) -> int:
        return len(self.win)

    def subset(self, mask: np.ndarray) -> Positions:
        return Positions(*(getattr(self, f)[mask] for f in self.__dataclass_fields__))

    def save(self, path: Path) -> None:
        """Write the rows to ``path`` (an ``.npz`` archive), with the features' version."""
        columns = {f: getattr(self, f) for f in self.__dataclass_fields__}
        np.savez_compressed(path, feature_version=np.int64(FEATURE_VERSION), **columns)

    @classmethod
    def load(cls, path: Path, flag: str = "") -> Positions:
        """Return the rows of a positions file (``save``'s), every column checked: a file that
        is not one (a model file, garbage, Python objects), or whose rows no game gives (NaN, a
        width other than the features', columns of different lengths, none), is one line
        naming the file (after ``flag``, the option that named it) and what is wrong."""
        name = f"{flag} {path}" if flag else str(path)

        def alien(why: str) -> UsageError:
            return UsageError(f"{name} is not a positions file ({why})")

        try:
            with open(path, "rb") as f:
                head = f.read(64)
        except OSError as exc:
            raise UsageError(f"{name}: cannot read it ({exc.strerror})") from None
        if not head:
            raise alien("an empty file")
        if not head.startswith(b"PK"):  # an .npz is a zip archive
            if head.lstrip().startswith(b"{") and b"value model" in head:
                raise alien("it is a value model file; positions are train-value's positions.npz")
            raise alien("not a NumPy .npz archive, as train-value writes OUT/positions.npz")
        try:
            with np.load(path, allow_pickle=False) as data:
                missing = [f for f in cls.__dataclass_fields__ if f not in data.files]
                if missing:
                    raise alien(f"no {missing[0]!r} column")
                version = int(data["feature_version"]) if "feature_version" in data else None
                columns = {f: data[f] for f in cls.__dataclass_fields__}
        except UsageError:
            raise
        except (OSError, ValueError, TypeError, KeyError, EOFError, BadZipFile, zlib.error) as exc:
            if "allow_pickle" in str(exc):
                raise alien("a column holds pickled Python objects, not numbers") from None
            raise alien(f"a damaged archive: {type(exc).__name__}: {exc}") from None
        if version is not None and version != FEATURE_VERSION:
            raise UsageError(
                f"{name}: positions of features version {version}; this build computes "
                f"version {FEATURE_VERSION} (play them again: train-value without --positions)"
            )
        why = _rows_problem(columns)
        if why:
            raise UsageError(f"{name}: {why}")
        return cls(**columns)


# The largest feature or margin a game gives is a few hundred: a value beyond this is no game's
# (a damaged or hand-made file) and would only bend the fit.
ROW_LIMIT = 1e6


def _rows_problem(columns: dict[str, np.ndarray]) -> str:
    """Return what is wrong with a positions file's columns ("" when they are rows a game
    gives): the shapes, the types, then the values."""
    x = columns["x"]
    if x.ndim != 2 or x.shape[1] != len(FEATURE_NAMES) or x.dtype.kind not in "iuf":
        return (
            f"its x is {x.dtype} of shape {x.shape}; a position has {len(FEATURE_NAMES)} "
            f"features (version {FEATURE_VERSION}), as numbers"
        )
    if not len(x):
        return "it holds no positions"
    for name, col in columns.items():
        if name == "x":
            continue
        kind = "U" if name in ("table", "variant") else "iuf"
        if col.ndim != 1 or col.dtype.kind not in kind:
            what = "a text" if kind == "U" else "a number"
            return f"its {name} is {col.dtype} of shape {col.shape}; it holds {what} per position"
        if len(col) != len(x):
            return f"its {name} has {len(col)} rows and its x {len(x)} (columns of unequal length)"
    for name in ("x", "margin", "win", "old_margin", "root_value", "game", "players"):
        col = columns[name].astype(np.float64)
        bad = ~np.isfinite(col)
        if name == "root_value":
            bad &= ~np.isnan(col)  # NaN: no MCTS search at that position
        bad |= np.abs(np.nan_to_num(col)) > ROW_LIMIT
        if bad.any():
            at = np.argwhere(bad)[0]
            where = f"row {at[0]}" + (f", feature {FEATURE_NAMES[at[1]]}" if name == "x" else "")
            value = "NaN" if np.isnan(col[tuple(at)]) else f"{col[tuple(at)]:g}"
            return f"its {name} holds {value} ({where}): no game gives it"
    win, game, players = columns["win"], columns["game"], columns["players"]
    if win.min() < 0 or win.max() > 1:
        return f"its win holds {win[(win < 0) | (win > 1)][0]:g}: a win share is 0 to 1"
    if (game < 0).any() or (game != np.round(game)).any():
        return "its game holds a value that is not a whole number >= 0 (a game id)"
    if (players < 1).any() or (players != np.round(players)).any():
        return "its players holds a value that is not a whole number >= 1"
    return ""


def collect(
    games: int,
    seed: int,
    *,
    every: int = 4,
    jobs: int = 1,
    mcts_share: float = 0.04,
    progress: Any = None,
) -> Positions:
    """Play ``games`` self-play games from ``seed``; return their positions (game order)."""
    from joblib import Parallel, delayed

    configs = draw_configs(games, seed, mcts_share)
    chunk = max(1, min(200, games // (4 * max(1, jobs)) or 1))
    parts: list[tuple[np.ndarray, np.ndarray, str, str]] = []
    with Parallel(n_jobs=jobs) as pool:
        for i in range(0, len(configs), chunk):
            batch = configs[i : i + chunk]
            for done in pool(delayed(_play_batch)(b, every) for b in split_evenly(batch, jobs)):
                parts += done
            if progress is not None:
                progress(min(len(configs), i + chunk), len(configs))
    xs, metas, tables, variants = [], [], [], []
    for k, (x, meta, table, variant) in enumerate(parts):
        if not len(x):
            continue
        meta[:, 0] = k
        xs.append(x)
        metas.append(meta)
        tables += [table] * len(x)
        variants += [variant] * len(x)
    x = np.concatenate(xs) if xs else np.zeros((0, len(FEATURE_NAMES)))
    meta = np.concatenate(metas) if metas else np.zeros((0, len(COLUMNS)))
    return Positions(
        x=x.astype(np.float64),
        game=meta[:, 0].astype(np.int64),
        players=meta[:, 1].astype(np.int64),
        margin=meta[:, 3],
        win=meta[:, 4],
        old_margin=meta[:, 5],
        root_value=meta[:, 6],
        table=np.asarray(tables, dtype=str),
        variant=np.asarray(variants, dtype=str),
    )


T = TypeVar("T")


def split_evenly(batch: Sequence[T], jobs: int) -> list[list[T]]:
    """Split ``batch`` into at most ``jobs`` runs of consecutive items of near-equal length."""
    batch = list(batch)
    k = max(1, jobs)
    size = max(1, math.ceil(len(batch) / k))
    return [batch[i : i + size] for i in range(0, len(batch), size)]


def _play_batch(batch: list[GameConfig], every: int) -> list[tuple[Any, ...]]:
    return [play_positions(cfg, every) for cfg in batch]


# -- the fit ---------------------------------------------------------------------------------------
def held_out(pos: Positions, share: float, seed: int) -> np.ndarray:
    """Return the mask of the rows of the held-out games (``share`` of the games, by seed)."""
    games = np.unique(pos.game)
    rng = np.random.default_rng(np.random.SeedSequence([seed, 0x4E1D]))
    test = rng.choice(games, size=max(1, round(share * len(games))), replace=False)
    return np.isin(pos.game, test)


def fit(
    pos: Positions, hidden: tuple[int, ...] = (32,), seed: int = 0, max_iter: int = 60
) -> tuple[list[float], list[float], list[tuple[list[list[float]], list[float]]]]:
    """Fit the MLP on ``pos``; return the standardisation and the layers (plain lists)."""
    try:
        from sklearn.exceptions import ConvergenceWarning
        from sklearn.neural_network import MLPRegressor
        from threadpoolctl import threadpool_limits
    except ImportError:
        raise UsageError(
            "train-value needs scikit-learn: pip install 'projectl-sim[train]'"
        ) from None
    if len(pos) < 50:
        raise UsageError(f"only {len(pos)} training positions: play more games (--games)")
    x = pos.x
    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    scale[scale < 1e-9] = 1.0
    y = np.column_stack([pos.win, pos.margin / MARGIN_SCALE])
    net = MLPRegressor(
        hidden_layer_sizes=hidden,
        activation="relu",
        alpha=1e-4,
        batch_size=256,
        learning_rate_init=1e-3,
        max_iter=max_iter,
        early_stopping=True,
        validation_fraction=0.1,
        n_iter_no_change=6,
        random_state=seed,
    )
    with threadpool_limits(1), warnings.catch_warnings():
        # one BLAS thread: the same fit on any machine; a capped fit is the fit asked for
        warnings.simplefilter("ignore", ConvergenceWarning)
        net.fit((x - mean) / scale, y)
    layers = [(w.tolist(), b.tolist()) for w, b in zip(net.coefs_, net.intercepts_, strict=True)]
    return mean.tolist(), scale.tolist(), layers


def predict(model: Any, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Return the win chances and margins a loaded model (``bots.value_model``) gives rows
    ``x``, through the bots' own evaluation."""
    wins = np.empty(len(x))
    margins = np.empty(len(x))
    for i, row in enumerate(x.tolist()):
        wins[i], margins[i] = model.evaluate(row)
    return wins, margins


def _scores(win: np.ndarray, margin: np.ndarray, y_win: np.ndarray, y_margin: np.ndarray) -> dict:
    p = np.clip(win, 0.01, 0.99)
    logloss = -np.mean(y_win * np.log(p) + (1 - y_win) * np.log(1 - p))
    both = np.std(margin) > 0 and np.std(y_margin) > 0
    corr = float(np.corrcoef(margin, y_margin)[0, 1]) if both else math.nan
    return {"corr": corr, "brier": float(np.mean((win - y_win) ** 2)), "logloss": float(logloss)}


def old_win(old_margin: np.ndarray) -> np.ndarray:
    """Return the old leaf evaluation's win chance: the logistic of its margin / 2 (MCTS's)."""
    return 1.0 / (1.0 + np.exp(-np.clip(old_margin / 2.0, -30, 30)))


ACCURACY_COLUMNS = (
    "group",
    "positions",
    "games",
    "corr",
    "brier",
    "logloss",
    "old_corr",
    "old_brier",
    "old_logloss",
    "base_brier",
)


def accuracy(model: Any, pos: Positions) -> list[dict[str, Any]]:
    """Return the model's accuracy on ``pos`` (held-out rows): all, per player count, per
    expansion set, per variant; beside the old fitted evaluation and the base rate's Brier."""
    win, margin = predict(model, pos.x)
    groups: list[tuple[str, np.ndarray]] = [("all", np.ones(len(pos), dtype=bool))]
    for n in sorted(set(pos.players.tolist())):
        groups.append((f"players={n}", pos.players == n))
    for t in sorted(set(pos.table.tolist())):
        groups.append((f"expansions={t}", pos.table == t))
    for v in sorted(set(pos.variant.tolist()) - {"standard"}):
        groups.append((f"variant={v}", pos.variant == v))
    rows = []
    for name, m in groups:
        if m.sum() < 10:
            continue
        new = _scores(win[m], margin[m], pos.win[m], pos.margin[m])
        old = _scores(old_win(pos.old_margin[m]), pos.old_margin[m], pos.win[m], pos.margin[m])
        base = float(np.mean((pos.win[m] - pos.win[m].mean()) ** 2))
        rows.append(
            {
                "group": name,
                "positions": int(m.sum()),
                "games": len(np.unique(pos.game[m])),
                **new,
                **{f"old_{k}": v for k, v in old.items()},
                "base_brier": base,
            }
        )
    return rows


def format_rows(rows: list[dict[str, Any]], columns: Sequence[str]) -> str:
    """Return rows as an aligned text table."""
    out = ["  ".join(f"{c:>11s}" if i else f"{c:24s}" for i, c in enumerate(columns))]
    for r in rows:
        cells = []
        for i, c in enumerate(columns):
            v = r[c]
            text = f"{v:.4f}" if isinstance(v, float) else str(v)
            cells.append(f"{text:>11s}" if i else f"{text:24s}")
        out.append("  ".join(cells))
    return "\n".join(out)


__all__ = [
    "ACCURACY_COLUMNS",
    "GameConfig",
    "Positions",
    "accuracy",
    "check_fit",
    "collect",
    "draw_configs",
    "fit",
    "fit_library",
    "held_out",
    "joined",
    "play_positions",
    "predict",
    "require_fit_library",
    "sole_writer",
    "split_evenly",
    "write_csv",
]


# -- the whole training, as the command runs it ----------------------------------------------------
CURVE_SHARES = (1 / 16, 1 / 8, 1 / 4, 1 / 2, 1.0)


def train(
    out: Path,
    *,
    games: int,
    seed: int,
    every: int = 4,
    jobs: int = 1,
    mcts_share: float = 0.04,
    hidden: tuple[int, ...] = (32,),
    test_share: float = 0.2,
    curve: bool = False,
    positions: Path | None = None,
    extra: Sequence[Path] = (),
    extra_weight: int = 1,
    echo: Any = None,
) -> dict[str, Any]:
    """Collect (or read) positions, fit on the training games, export ``out/model.json``, and
    write the accuracy on the held-out games (and the learning curve); return a summary.

    ``extra``: more training rows (positions files, e.g. ``tools/value_oracle.py --out``'s
    candidate positions labelled by the mean of greedy rollouts, joined in the order given),
    added to the training games only (each ``extra_weight`` times: a row labelled by rollouts
    is worth more than one final outcome): the accuracy is still measured on the held-out
    games' final outcomes.

    Every output is written under a temporary name in ``out`` and renamed into place once all
    of them are written, under the folder's writer lock (``sim.tables.writer_lock``, the lock a
    run holds): a training that fails or is interrupted leaves the folder's files as they were
    (the positions it played kept as ``positions.unused.npz``, named in its error), and a
    second writer of the folder is refused in one line while the first goes on."""
    require_fit_library()  # before hours of self-play, not after them
    say = echo or (lambda line: None)
    # the files read first: a bad one is refused before the folder is touched (or hours played)
    read = None if positions is None else Positions.load(positions, "--positions")
    if read is not None:
        say(f"read {len(read)} positions of {len(np.unique(read.game))} games from {positions}")
    more = None
    for path in extra:
        rows = Positions.load(path, "--extra-positions")
        more = joined(more, rows) if more is not None else rows
    out.mkdir(parents=True, exist_ok=True)
    with sole_writer(out):
        staged = _Staged(out)
        try:
            result = _train(
                staged,
                read,
                more,
                games=games,
                seed=seed,
                every=every,
                jobs=jobs,
                mcts_share=mcts_share,
                hidden=hidden,
                test_share=test_share,
                curve=curve,
                positions=positions,
                extra=extra,
                extra_weight=extra_weight,
                say=say,
            )
            staged.commit()
        except BaseException as exc:
            note = staged.abandon()
            if not note:
                raise
            if isinstance(exc, ProjectLError):
                raise type(exc)(f"{exc}; {note}") from None
            if isinstance(exc, KeyboardInterrupt):
                raise KeyboardInterrupt(f"interrupted; {note}") from None
            raise
    return result


def _train(
    staged: _Staged,
    read: Positions | None,
    more: Positions | None,
    *,
    games: int,
    seed: int,
    every: int,
    jobs: int,
    mcts_share: float,
    hidden: tuple[int, ...],
    test_share: float,
    curve: bool,
    positions: Path | None,
    extra: Sequence[Path],
    extra_weight: int,
    say: Any,
) -> dict[str, Any]:
    import csv

    from bots.value_model import load_model, write_model

    out = staged.out
    if read is not None:
        pos = read
    else:
        pos = collect(
            games,
            seed,
            every=every,
            jobs=jobs,
            mcts_share=mcts_share,
            progress=lambda d, n: say(f"played {d}/{n} games"),
        )
        if not len(pos):
            raise UsageError(
                f"the {games} games gave no positions to fit (one Play position in --every "
                f"{every} is noted, and none of a game that did not end): play more --games, or "
                "lower --every"
            )
        pos.save(staged.path("positions.npz"))
        staged.played = len(pos)
        say(f"{len(pos)} positions of {len(np.unique(pos.game))} games")
    test = held_out(pos, test_share, seed)
    train_pos, test_pos = pos.subset(~test), pos.subset(test)
    more = weighted(more, extra_weight)
    training = {
        "games": len(np.unique(train_pos.game)),
        "positions": len(train_pos),
        "held_out_games": len(np.unique(test_pos.game)),
        "seed": seed,
        **(
            {"every": every, "mcts_share": mcts_share}
            if positions is None
            else {"positions_from": positions.name}  # how they were played: in that run's model
        ),
        **(
            {
                "extra_positions": [path.name for path in extra],
                "extra_rows": len(more),
                "extra_weight": extra_weight,
            }
            if more is not None
            else {}
        ),
        "hidden": list(hidden),
        "library": fit_library(),
    }
    mean, scale, layers = fit(joined(train_pos, more), hidden, seed)
    check_fit(layers)
    digest = write_model(staged.path("model.json"), mean, scale, layers, MARGIN_SCALE, training)
    model = load_model(str(staged.path("model.json")))
    rows = accuracy(model, test_pos)
    write_csv(staged.path("accuracy.csv"), rows, ACCURACY_COLUMNS, csv)
    say(format_rows(rows, ACCURACY_COLUMNS))
    curve_rows: list[dict[str, Any]] = []
    if curve:
        games_ids = np.unique(train_pos.game)
        order = np.random.default_rng(np.random.SeedSequence([seed, 0xC0]))
        shuffled = order.permutation(games_ids)
        for share in CURVE_SHARES:
            keep = shuffled[: max(1, round(share * len(shuffled)))]
            part = train_pos.subset(np.isin(train_pos.game, keep))
            m, s, ls = fit(joined(part, more), hidden, seed)
            check_fit(ls)
            tmp = staged.scratch(f"curve-{len(keep)}.json")
            write_model(tmp, m, s, ls, MARGIN_SCALE, {"games": len(keep)})
            r = accuracy(load_model(str(tmp)), test_pos)[0]
            tmp.unlink()
            # the training games and rows beside the held-out group's own (games, positions)
            curve_rows.append({"train_games": len(keep), "train_positions": len(part), **r})
            say(
                f"curve: {len(keep):6d} games {len(part):8d} positions: corr {r['corr']:.3f} "
                f"brier {r['brier']:.4f} logloss {r['logloss']:.4f}"
            )
        write_csv(
            staged.path("learning_curve.csv"),
            curve_rows,
            ["train_games", "train_positions", *ACCURACY_COLUMNS],
            csv,
        )
    return {"hash": digest, "model": out / "model.json", "accuracy": rows, "curve": curve_rows}


# the files a training writes in its folder (each staged under a temporary name first)
OUTPUTS = ("positions.npz", "model.json", "accuracy.csv", "learning_curve.csv")
UNUSED = "positions.unused.npz"  # the positions of a training that failed after playing them


class _Staged:
    """A training's outputs, written as ``.PID.NAME`` in its folder and renamed into place
    together at the end (``commit``), or removed (``abandon``: the positions played are kept)."""

    def __init__(self, out: Path) -> None:
        self.out = out
        self.staged: dict[str, Path] = {}
        self.played = 0  # positions played by this training (0: read from a file)
        # under the writer lock nobody else writes here: a staged file is a killed training's
        for old in out.glob(".*.*"):
            pid, _, name = old.name[1:].partition(".")
            if pid.isdigit() and (name in OUTPUTS or name.startswith("curve-")):
                old.unlink(missing_ok=True)

    def path(self, name: str) -> Path:
        """Return the temporary name of output ``name`` (it keeps the name's ending: numpy adds
        ``.npz`` to a name without it)."""
        tmp = self.scratch(name)
        self.staged[name] = tmp
        return tmp

    def scratch(self, name: str) -> Path:
        """Return a temporary name for a file the training removes itself."""
        return self.out / f".{os.getpid()}.{name}"

    def commit(self) -> None:
        """Rename every staged output into place (the model last: its hash names the set)."""
        for name in sorted(self.staged, key=lambda n: n == "model.json"):
            os.replace(self.staged[name], self.out / name)
        self.staged.clear()

    def abandon(self) -> str:
        """Remove the staged outputs, keeping the positions this training played; return the
        note that says where they are ("" when there are none)."""
        note = ""
        tmp = self.staged.pop("positions.npz", None)
        if tmp is not None and self.played and tmp.is_file():
            kept = self.out / UNUSED
            os.replace(tmp, kept)
            note = (
                f"the {self.played} positions it played are kept in {kept} (--positions reads them)"
            )
        for tmp in self.staged.values():
            tmp.unlink(missing_ok=True)
        self.staged.clear()
        return note


@contextlib.contextmanager
def sole_writer(out: Path) -> Iterator[None]:
    """Hold ``out``'s writer lock (a run's) while the training writes there."""
    from projectl_sim.sim.tables import lock_holder, writer_lock

    with contextlib.ExitStack() as stack:
        try:
            stack.enter_context(writer_lock(out))
        except UsageError:
            holder = lock_holder(out) or "another process"
            raise UsageError(
                f"--out {out} is being written by {holder}: one folder has one writer; wait for "
                "it to end, or train into another --out"
            ) from None
        yield


def check_fit(layers: list[tuple[list[list[float]], list[float]]]) -> None:
    """Refuse a fit whose weights a model file may not hold (``bots.value_model.LIMITS``): a
    diverged fit is one line, not a model that loads nowhere."""
    from bots.value_model import LIMITS

    values = np.concatenate(
        [np.ravel(np.asarray(a, dtype=float)) for w, b in layers for a in (w, b)]
    )
    high = LIMITS["weight"][1]
    if not np.all(np.isfinite(values)) or np.abs(values).max() > high:
        top = np.nanmax(np.abs(values)) if np.isfinite(values).any() else math.nan
        raise UsageError(
            f"the fit diverged (its weights reach {top:g}, or are not finite; a model holds "
            f"weights within ±{high:g}): are the positions' features and labels a game's?"
        )


def require_fit_library() -> None:
    """Refuse the training in one line when scikit-learn (the ``train`` extra) is missing."""
    try:
        import sklearn.neural_network  # noqa: F401
        import threadpoolctl  # noqa: F401
    except ImportError:
        raise UsageError(
            "train-value needs scikit-learn: pip install 'projectl-sim[train]'"
        ) from None


def weighted(more: Positions | None, weight: int) -> Positions | None:
    """Return ``more`` with each row repeated ``weight`` times in place (how ``--extra-weight``
    counts the added rows in the fit)."""
    if more is None or weight <= 1:
        return more
    return more.subset(np.repeat(np.arange(len(more)), weight))


def joined(pos: Positions, more: Positions | None) -> Positions:
    """Return ``pos`` with the rows of ``more`` after them (their game ids kept apart)."""
    if more is None or not len(more):
        return pos
    offset = int(pos.game.max()) + 1 if len(pos) else 0
    parts = {
        f: np.concatenate([getattr(pos, f), getattr(more, f)]) for f in pos.__dataclass_fields__
    }
    parts["game"] = np.concatenate([pos.game, more.game + offset])
    return Positions(**parts)


def fit_library() -> str:
    """Return the library (and its version) that fits a model, as a model file records it."""
    import sklearn

    return f"scikit-learn {sklearn.__version__} MLPRegressor"


def write_csv(path: Path, rows: list[dict[str, Any]], columns: Sequence[str], csv: Any) -> None:
    """Write ``rows`` to ``path`` as CSV with these columns (others dropped)."""
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(columns), extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)
