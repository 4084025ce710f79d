"""Compare model families for the learned evaluation on the same positions: accuracy and cost.

Run: ``.venv/bin/python tools/value_models.py POSITIONS.npz [--seed S] [--test-share X]``
(the positions of ``projectl-sim train-value``; LightGBM lines need ``pip install lightgbm``),
or with ``--curve`` the learning curves (``projectl_sim.learn.curve``):
``tools/value_models.py POSITIONS.npz --curve --families 32,64x32 --sizes 400,1600,6400
[--extra-positions ROWS.npz ... --extra-weight K] [--reference MODEL ...] [--export DIR]``
prints each family's held-out accuracy at each number of training games (the correlation with
its 95% interval over games), then the fits on every training game per player count, expansion
set and variant beside the reference models (default: the shipped one); ``--export`` keeps
those fits as model files that carry this command, the seed and their data.

Each family is fitted on the same training games and scored on the same held-out games: the
correlation of its margin with the final margin, the Brier score and log-loss of its win chance
(clipped to [0.01, 0.99]), and what one evaluation costs as the bots would run it: the MLPs
through ``bots.value_net.Net`` (compiled when the build is), the linear model as one dot product,
the tree ensembles as plain-Python tree walks over lists (a lower bound of a compiled walk's cost
is not measured: the walk is branchy, per tree and level, where the MLP is a dense loop).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]

import numpy as np  # noqa: E402

from bots.value_net import Net  # noqa: E402
from projectl_sim._native import compiled  # noqa: E402
from projectl_sim.errors import UsageError  # noqa: E402
from projectl_sim.learn.value import MARGIN_SCALE, Positions, fit, held_out  # noqa: E402


def scores(win: np.ndarray, margin: np.ndarray, pos: Positions) -> tuple[float, float, float]:
    p = np.clip(win, 0.01, 0.99)
    ll = float(-np.mean(pos.win * np.log(p) + (1 - pos.win) * np.log(1 - p)))
    return float(np.corrcoef(margin, pos.margin)[0, 1]), float(np.mean((win - pos.win) ** 2)), ll


def time_per_call(fn, rows: list[list[float]]) -> float:
    start = time.process_time()
    for r in rows:
        fn(r)
    return (time.process_time() - start) / len(rows) * 1e6


def mlp_line(name: str, tr: Positions, te: Positions, hidden: tuple[int, ...], seed: int) -> str:
    mean, scale, layers = fit(tr, hidden, seed)
    sizes = [len(mean), *(len(b) for _, b in layers)]
    first = [[w / scale[i] for w in row] for i, row in enumerate(layers[0][0])]
    b0 = list(layers[0][1])
    for i, row in enumerate(first):
        for j, w in enumerate(row):
            b0[j] -= w * mean[i]
    mats = [first] + [w for w, _ in layers[1:]]
    biases = [b0] + [b for _, b in layers[1:]]
    net = Net(
        sizes, [[m[i][j] for j in range(len(m[0])) for i in range(len(m))] for m in mats], biases
    )
    rows = te.x.tolist()
    out = np.array([net.evaluate(r) for r in rows])
    c, b, ll = scores(np.clip(out[:, 0], 0, 1), out[:, 1] * MARGIN_SCALE, te)
    us = time_per_call(net.evaluate, rows[:20000])
    return f"{name:28s} corr {c:.3f}  brier {b:.4f}  logloss {ll:.4f}  {us:7.2f} us/eval"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("positions")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--test-share", type=float, default=0.2)
    parser.add_argument("--curve", action="store_true", help="learning curves per family")
    parser.add_argument("--families", default="32,64x32", help="network shapes: 32,64x32")
    parser.add_argument("--sizes", default="400,800,1600,3200,6400", help="training games")
    parser.add_argument("--extra-positions", action="append", default=[], type=Path)
    parser.add_argument("--extra-weight", type=int, default=1)
    parser.add_argument("--reference", action="append", default=[], help="model files to score")
    parser.add_argument("--export", type=Path, help="folder for the largest fits' model files")
    args = parser.parse_args()
    pos = Positions.load(Path(args.positions))
    if args.curve:
        curve_main(args, pos)
        return
    test = held_out(pos, args.test_share, args.seed)
    tr, te = pos.subset(~test), pos.subset(test)
    print(
        f"{len(tr)} training, {len(te)} held-out positions; build: "
        f"{'compiled' if compiled() else 'pure'}"
    )
    c, b, ll = scores(1 / (1 + np.exp(-np.clip(te.old_margin / 2, -30, 30))), te.old_margin, te)
    print(f"{'old fitted evaluation':28s} corr {c:.3f}  brier {b:.4f}  logloss {ll:.4f}")
    from sklearn.linear_model import Ridge

    mean, scale = tr.x.mean(0), tr.x.std(0) + 1e-9
    y = np.column_stack([tr.win, tr.margin / MARGIN_SCALE])
    lin = Ridge(alpha=1.0).fit((tr.x - mean) / scale, y)
    out = lin.predict((te.x - mean) / scale)
    c, b, ll = scores(np.clip(out[:, 0], 0, 1), out[:, 1] * MARGIN_SCALE, te)
    w = (lin.coef_[0] / scale).tolist()
    rows = te.x.tolist()
    us = time_per_call(lambda r: sum(a * x for a, x in zip(w, r, strict=True)), rows[:20000])
    print(
        f"{'linear (ridge)':28s} corr {c:.3f}  brier {b:.4f}  logloss {ll:.4f}  {us:7.2f} us/eval"
    )
    for hidden in ((16,), (32,), (64,), (32, 16)):
        print(mlp_line(f"MLP {hidden}", tr, te, hidden, args.seed))
    from sklearn.ensemble import HistGradientBoostingRegressor

    for iters, leaves in ((100, 15), (300, 31)):
        win_m = HistGradientBoostingRegressor(
            max_iter=iters, max_leaf_nodes=leaves, random_state=args.seed
        ).fit(tr.x, tr.win)
        mar_m = HistGradientBoostingRegressor(
            max_iter=iters, max_leaf_nodes=leaves, random_state=args.seed
        ).fit(tr.x, tr.margin)
        c, b, ll = scores(np.clip(win_m.predict(te.x), 0, 1), mar_m.predict(te.x), te)
        # a plain-Python walk of the same number of trees and depth: the cost per evaluation
        depth = max(1, int(np.ceil(np.log2(leaves))))
        walk = _walker(2 * iters, depth, len(rows[0]))
        us = time_per_call(walk, rows[:2000])
        print(
            f"{f'GBDT {iters}x{leaves} (sklearn)':28s} corr {c:.3f}  brier {b:.4f}  "
            f"logloss {ll:.4f}  {us:7.2f} us/eval (2 x {iters} trees, depth ~{depth}, walked)"
        )
    try:
        import lightgbm as lgb
    except ImportError:
        print("lightgbm not installed: its lines are skipped")
        return
    for iters, leaves in ((100, 15), (300, 31)):
        kw = {"n_estimators": iters, "num_leaves": leaves, "random_state": args.seed, "verbose": -1}
        wm = lgb.LGBMRegressor(**kw).fit(tr.x, tr.win)
        mm = lgb.LGBMRegressor(**kw).fit(tr.x, tr.margin)
        c, b, ll = scores(np.clip(wm.predict(te.x), 0, 1), mm.predict(te.x), te)
        print(f"{f'LightGBM {iters}x{leaves}':28s} corr {c:.3f}  brier {b:.4f}  logloss {ll:.4f}")


def curve_main(args: argparse.Namespace, pos: Positions) -> None:
    """Print the learning curves and the per-group table of ``--curve``."""
    import hashlib
    import shlex

    import sklearn

    from bots.value_model import load_model
    from projectl_sim.learn.curve import (
        format_groups,
        group_table,
        learning_curves,
        parse_families,
        parse_sizes,
    )

    families, sizes = parse_families(args.families), parse_sizes(args.sizes)
    if not 1 <= args.extra_weight <= 100:
        raise UsageError("--extra-weight: a whole number from 1 to 100")
    extra = None
    for path in args.extra_positions:
        rows = Positions.load(path, "--extra-positions")
        extra = rows if extra is None else _join_extra(extra, rows)
    refs = {}
    for name in args.reference or [""]:
        model = load_model(name)
        refs[f"ref {model.hash}"] = model

    def digest(path: Path) -> str:
        return hashlib.sha256(path.read_bytes()).hexdigest()[:12]

    training = {
        "command": "python tools/value_models.py " + shlex.join(sys.argv[1:]),
        "positions_from": Path(args.positions).name,
        "positions_sha256": digest(Path(args.positions)),
        "test_share": args.test_share,
        **(
            {
                "extra_positions": [p.name for p in args.extra_positions],
                "extra_sha256": [digest(p) for p in args.extra_positions],
            }
            if args.extra_positions
            else {}
        ),
        "library": f"scikit-learn {sklearn.__version__} MLPRegressor",
    }
    if args.export:
        args.export.mkdir(parents=True, exist_ok=True)
    print(
        f"{len(np.unique(pos.game))} games in {args.positions}; seed {args.seed}, "
        f"{args.test_share:g} of the games held out; build: "
        f"{'compiled' if compiled() else 'pure'}"
    )
    curves = learning_curves(
        pos,
        families,
        sizes,
        seed=args.seed,
        test_share=args.test_share,
        extra=extra,
        extra_weight=args.extra_weight,
        export=args.export,
        training=training,
        say=print,
    )
    models = {**{f"{k} @{sizes[-1]}": m for k, m in curves.final.items()}, **refs}
    print(f"\nheld-out accuracy by group ({len(np.unique(curves.test.game))} games):")
    print(format_groups(group_table(models, curves.test), list(models)))
    if args.export:
        for name, model in curves.final.items():
            print(f"{name}: {model.path} (hash {model.hash})")


def _join_extra(a: Positions, b: Positions) -> Positions:
    cols = {f: np.concatenate([getattr(a, f), getattr(b, f)]) for f in a.__dataclass_fields__}
    cols["game"] = np.concatenate([a.game, b.game + int(a.game.max()) + 1])
    return Positions(**cols)


def _walker(trees: int, depth: int, n: int):
    """Return a function walking ``trees`` complete trees of ``depth`` over a feature list."""
    rng = np.random.default_rng(0)
    nodes = (1 << depth) - 1
    feat = rng.integers(0, n, size=(trees, nodes)).tolist()
    thr = rng.normal(size=(trees, nodes)).tolist()
    leaf = rng.normal(size=(trees, 1 << depth)).tolist()

    def walk(x: list[float]) -> float:
        total = 0.0
        for t in range(trees):
            f, th = feat[t], thr[t]
            i = 0
            for _ in range(depth):
                i = 2 * i + (2 if x[f[i]] > th[i] else 1)
            total += leaf[t][i - nodes]
        return total

    return walk


if __name__ == "__main__":
    try:
        main()
    except UsageError as exc:
        raise SystemExit(f"value_models: {exc}") from None
