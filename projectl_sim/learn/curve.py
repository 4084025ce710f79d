"""How much the learned evaluation gains from more games: learning curves of model families.

``learning_curves`` fits each network shape (a ``Family``: its hidden layers) on nested growing
sets of the training games of one positions file (``train-value``'s ``positions.npz``), the
larger sets holding the smaller ones, and scores every fit on the same held-out games, never
trained on, through the bots' own evaluation (the fit is written as a model file and read back,
as ``train-value`` does). Each line gives the correlation of the predicted margin with the final
margin, with a 95% interval from a bootstrap over the held-out games (a game's positions are
drawn together: they are not independent), the Brier score and log-loss of the win chance.
``group_table`` gives the fits on every training game side by side per player count, expansion
set and variant, beside any reference model (the shipped one).

Everything is seeded: the held-out games (``learn.value.held_out``), the order the training
games are added in, the fits and the bootstrap, so the same command prints the same tables.
"""

from __future__ import annotations

import math
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from projectl_sim.errors import UsageError
from projectl_sim.learn.value import (
    MARGIN_SCALE,
    Positions,
    accuracy,
    fit,
    held_out,
    predict,
)


@dataclass(frozen=True)
class Family:
    """A network shape: its hidden layers' units (``32`` or ``64x32`` in a family list)."""

    hidden: tuple[int, ...]

    @property
    def name(self) -> str:
        return "mlp " + "x".join(str(h) for h in self.hidden)


def parse_families(text: str) -> list[Family]:
    """Return the families of a list such as ``"32,64x32"``; bad text is one line."""
    out = []
    for part in text.split(","):
        units = part.strip().split("x")
        if not part.strip() or not all(u.isdigit() and 1 <= int(u) <= 256 for u in units):
            raise UsageError(
                f"--families: {part.strip()!r} is not a network shape (hidden units 1-256 per "
                "layer, layers joined by x: 32 or 64x32)"
            )
        if len(units) > 4:
            raise UsageError(f"--families: {part.strip()!r} has more than 4 hidden layers")
        out.append(Family(tuple(int(u) for u in units)))
    if len(set(out)) != len(out):
        raise UsageError(f"--families: {text!r} names a shape twice")
    return out


def parse_sizes(text: str) -> list[int]:
    """Return the training-game counts of a list such as ``"640,3200,6400"``, ascending."""
    try:
        sizes = sorted({int(s) for s in text.split(",")})
    except ValueError:
        raise UsageError(f"--sizes: {text!r} is not a list of whole numbers") from None
    if not sizes or sizes[0] < 1:
        raise UsageError(f"--sizes: {text!r}: each size is a number of games, 1 or more")
    return sizes


def game_order(train: Positions, seed: int) -> np.ndarray:
    """Return the training games' ids in the order the curve adds them (seeded)."""
    rng = np.random.default_rng(np.random.SeedSequence([seed, 0xC0]))
    return rng.permutation(np.unique(train.game))


def corr_interval(
    pred: np.ndarray, truth: np.ndarray, game: np.ndarray, seed: int, draws: int = 400
) -> tuple[float, float]:
    """Return a 95% interval of the correlation of ``pred`` with ``truth``, by a bootstrap that
    draws whole games (their positions together) with replacement."""
    ids, inverse = np.unique(game, return_inverse=True)
    rng = np.random.default_rng(np.random.SeedSequence([seed, 0xB007]))
    # a draw's weight of a row is how many times its game was drawn
    counts = rng.multinomial(len(ids), np.full(len(ids), 1 / len(ids)), size=draws)
    out = np.empty(draws)
    for k in range(draws):
        w = counts[k][inverse].astype(float)
        total = w.sum()
        mp, mt = (w @ pred) / total, (w @ truth) / total
        dp, dt = pred - mp, truth - mt
        cov = w @ (dp * dt)
        den = math.sqrt(float((w @ (dp * dp)) * (w @ (dt * dt))))
        out[k] = cov / den if den > 0 else math.nan
    lo, hi = np.nanpercentile(out, [2.5, 97.5])
    return float(lo), float(hi)


def score_model(model: Any, test: Positions, seed: int) -> dict[str, float]:
    """Return a loaded model's held-out correlation (with its interval), Brier and log-loss."""
    win, margin = predict(model, test.x)
    p = np.clip(win, 0.01, 0.99)
    lo, hi = corr_interval(margin, test.margin, test.game, seed)
    return {
        "corr": float(np.corrcoef(margin, test.margin)[0, 1]),
        "corr_low": lo,
        "corr_high": hi,
        "brier": float(np.mean((win - test.win) ** 2)),
        "logloss": float(-np.mean(test.win * np.log(p) + (1 - test.win) * np.log(1 - p))),
    }


def data_summary(pos: Positions) -> dict[str, Any]:
    """Return what rows hold: games, positions, and positions per player count, expansion set
    and variant."""

    def counts(col: np.ndarray) -> dict[str, int]:
        keys, n = np.unique(col.astype(str), return_counts=True)
        return {str(k): int(c) for k, c in zip(keys, n, strict=True)}

    return {
        "games": len(np.unique(pos.game)),
        "positions": len(pos),
        "per_players": counts(pos.players),
        "per_expansions": counts(pos.table),
        "per_variant": counts(pos.variant),
    }


@dataclass
class Curves:
    """The curves' lines, the held-out rows and each family's fit on every training game."""

    rows: list[dict[str, Any]]
    test: Positions
    final: dict[str, Any]  # family name -> the loaded model of its largest fit


def learning_curves(
    pos: Positions,
    families: Sequence[Family],
    sizes: Sequence[int],
    *,
    seed: int,
    test_share: float = 0.2,
    extra: Positions | None = None,
    extra_weight: int = 1,
    export: Path | None = None,
    training: dict[str, Any] | None = None,
    say: Any = None,
) -> Curves:
    """Fit every family on each of ``sizes`` training games (nested sets, seeded order; the
    ``extra`` rows, each counted ``extra_weight`` times, join every fit and are never held
    out); score each fit on the held-out games. With ``export``, write each family's fit on the
    largest set there as ``mlp-SHAPE.json``, its ``training`` naming what it was trained on."""
    from bots.value_model import load_model, write_model

    echo = say or (lambda line: None)
    test_mask = held_out(pos, test_share, seed)
    train, test = pos.subset(~test_mask), pos.subset(test_mask)
    order = game_order(train, seed)
    sizes = sorted(sizes)
    if sizes[-1] > len(order):
        raise UsageError(
            f"--sizes: {sizes[-1]} training games asked, the positions hold {len(order)} "
            f"after {len(np.unique(test.game))} are held out"
        )
    if extra is not None and extra_weight > 1:
        extra = extra.subset(np.repeat(np.arange(len(extra)), extra_weight))
    rows: list[dict[str, Any]] = []
    final: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for family in families:
            # the largest set first: its fit (the one exported) is ready soonest
            for size in sorted(sizes, reverse=True):
                part = train.subset(np.isin(train.game, order[:size]))
                # a diverged fit is refused when its file is read back (the model's limits)
                mean, scale, layers = fit(_join(part, extra), family.hidden, seed)
                last = size == sizes[-1]
                meta = {
                    **(training or {}),
                    "games": size,
                    "positions": len(part),
                    "held_out_games": len(np.unique(test.game)),
                    "seed": seed,
                    "hidden": list(family.hidden),
                    "data": data_summary(part),
                }
                if extra is not None:
                    meta["extra_rows"] = len(extra)
                    meta["extra_weight"] = extra_weight
                path = Path(tmp) / "fit.json"
                if last and export is not None:
                    path = export / f"mlp-{'x'.join(map(str, family.hidden))}.json"
                write_model(path, mean, scale, layers, MARGIN_SCALE, meta)
                model = load_model(str(path))
                line = {
                    "family": family.name,
                    "train_games": size,
                    "train_positions": len(part),
                    **score_model(model, test, seed),
                }
                rows.append(line)
                if last:
                    final[family.name] = model
                echo(format_curve([line], header=not rows[:-1]))
    order_of = {f.name: k for k, f in enumerate(families)}
    rows.sort(key=lambda r: (order_of[r["family"]], r["train_games"]))
    return Curves(rows, test, final)


def _join(pos: Positions, extra: Positions | None) -> Positions:
    """Return ``pos`` with the ``extra`` rows after them, their game ids kept apart."""
    if extra is None or not len(extra):
        return pos
    fields = pos.__dataclass_fields__
    cols = {f: np.concatenate([getattr(pos, f), getattr(extra, f)]) for f in fields}
    cols["game"] = np.concatenate([pos.game, extra.game + int(pos.game.max()) + 1])
    return Positions(**cols)


CURVE_COLUMNS = ("family", "train_games", "train_positions", "corr", "brier", "logloss")


def format_curve(rows: Sequence[dict[str, Any]], header: bool = True) -> str:
    """Return curve lines as an aligned table (the correlation with its 95% interval)."""
    out = []
    if header:
        out.append(
            f"{'family':12s} {'games':>6s} {'positions':>9s}  {'corr. [95%]':22s} "
            f"{'Brier':>6s} {'log-loss':>8s}"
        )
    for r in rows:
        corr = f"{r['corr']:.3f} [{r['corr_low']:.3f}, {r['corr_high']:.3f}]"
        out.append(
            f"{r['family']:12s} {r['train_games']:6d} {r['train_positions']:9d}  {corr:22s} "
            f"{r['brier']:6.4f} {r['logloss']:8.4f}"
        )
    return "\n".join(out)


def group_table(models: dict[str, Any], test: Positions) -> list[dict[str, Any]]:
    """Return per held-out group (all, each player count, expansion set, variant) the
    positions, games and each model's correlation and Brier score."""
    out: dict[str, dict[str, Any]] = {}
    for name, model in models.items():
        for r in accuracy(model, test):
            row = out.setdefault(
                r["group"], {"group": r["group"], "positions": r["positions"], "games": r["games"]}
            )
            row[f"{name} corr"] = r["corr"]
            row[f"{name} brier"] = r["brier"]
    return list(out.values())


def format_groups(rows: Sequence[dict[str, Any]], names: Sequence[str]) -> str:
    """Return ``group_table``'s rows as an aligned table: per model, corr. / Brier."""
    width = max(14, *(len(n) for n in names))
    head = f"{'held-out group':34s} {'positions':>9s} {'games':>5s}  " + "  ".join(
        f"{n:>{width}s}" for n in names
    )
    out = [
        head,
        f"{'':34s} {'':>9s} {'':>5s}  " + "  ".join(f"{'corr. / Brier':>{width}s}" for _ in names),
    ]
    for r in rows:
        cells = [
            f"{r[f'{n} corr']:.3f} / {r[f'{n} brier']:.4f}" if f"{n} corr" in r else "-"
            for n in names
        ]
        out.append(
            f"{r['group']:34s} {r['positions']:9d} {r['games']:5d}  "
            + "  ".join(f"{c:>{width}s}" for c in cells)
        )
    return "\n".join(out)


__all__ = [
    "Curves",
    "Family",
    "corr_interval",
    "data_summary",
    "format_curve",
    "format_groups",
    "game_order",
    "group_table",
    "learning_curves",
    "parse_families",
    "parse_sizes",
    "score_model",
]
