"""Learning curves of the learned evaluation's families (``projectl_sim.learn.curve``)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sklearn")

from bots.features import FEATURE_NAMES
from bots.value_model import load_model
from projectl_sim.errors import UsageError
from projectl_sim.learn.curve import (
    Family,
    corr_interval,
    data_summary,
    format_curve,
    format_groups,
    group_table,
    learning_curves,
    parse_families,
    parse_sizes,
)
from projectl_sim.learn.value import Positions


def synthetic(games: int, per_game: int = 30, seed: int = 0) -> Positions:
    """Rows whose margin is a noisy linear function of the features (a game shares its noise)."""
    rng = np.random.default_rng(seed)
    n = games * per_game
    x = rng.normal(size=(n, len(FEATURE_NAMES)))
    game = np.repeat(np.arange(games), per_game)
    margin = 3 * x[:, 0] - 2 * x[:, 1] + rng.normal(size=games)[game] * 2 + rng.normal(size=n)
    players = np.where(game % 2, 2, 3)
    return Positions(
        x=x,
        game=game,
        players=players,
        margin=margin,
        win=(margin > 0).astype(float),
        old_margin=margin + rng.normal(size=n) * 5,
        root_value=np.full(n, np.nan),
        table=np.where(game % 3 == 0, "finesse", "base"),
        variant=np.full(n, "standard"),
    )


def test_families_and_sizes_are_parsed_and_bad_ones_are_one_line() -> None:
    assert parse_families("32,64x32") == [Family((32,)), Family((64, 32))]
    assert Family((64, 32)).name == "mlp 64x32"
    for bad in ("32,,64", "0", "32x", "a", "300", "1x2x3x4x5", "32,32"):
        with pytest.raises(UsageError, match="--families"):
            parse_families(bad)
    assert parse_sizes("800,200,800") == [200, 800]
    for bad in ("0,5", "x", ""):
        with pytest.raises(UsageError, match="--sizes"):
            parse_sizes(bad)


def test_the_correlation_interval_holds_the_estimate_and_narrows_with_games() -> None:
    rng = np.random.default_rng(1)

    def width(games: int) -> tuple[float, float, float]:
        game = np.repeat(np.arange(games), 20)
        truth = rng.normal(size=len(game)) + rng.normal(size=games)[game]
        pred = truth + rng.normal(size=len(game)) * 1.5
        lo, hi = corr_interval(pred, truth, game, seed=3)
        return lo, float(np.corrcoef(pred, truth)[0, 1]), hi

    lo, est, hi = width(40)
    assert lo < est < hi
    lo2, est2, hi2 = width(640)
    assert lo2 < est2 < hi2
    assert hi2 - lo2 < (hi - lo) / 2  # 16x the games: about a quarter the width
    game = np.repeat(np.arange(40), 20)
    truth = rng.normal(size=len(game))
    assert corr_interval(truth, truth, game, seed=3) == pytest.approx((1.0, 1.0))


def test_curves_fit_nested_sets_score_the_same_held_out_games_and_reproduce(
    tmp_path: Path,
) -> None:
    pos = synthetic(100)
    kw = {"seed": 4, "test_share": 0.2, "training": {"command": "the command"}}
    a = learning_curves(pos, [Family((8,))], [20, 80], export=tmp_path / "a", **kw)
    learning_curves(pos, [Family((8,))], [20, 80], export=tmp_path / "b", **kw)
    assert [r["train_games"] for r in a.rows] == [20, 80]
    assert a.rows[0]["train_positions"] == 20 * 30 and a.rows[1]["train_positions"] == 80 * 30
    assert len(np.unique(a.test.game)) == 20
    # learnable rows: more games fit better, and each interval holds its estimate
    assert a.rows[1]["corr"] > max(0.5, a.rows[0]["corr"])
    assert all(r["corr_low"] <= r["corr"] <= r["corr_high"] for r in a.rows)
    # the same seed: the same fit, byte for byte; the file says what it was trained on
    fa, fb = tmp_path / "a" / "mlp-8.json", tmp_path / "b" / "mlp-8.json"
    assert fa.read_bytes() == fb.read_bytes()
    training = load_model(str(fa)).training
    assert training["command"] == "the command" and training["seed"] == 4
    assert training["games"] == 80 and training["hidden"] == [8]
    assert training["data"] == data_summary(pos.subset(~np.isin(pos.game, a.test.game)))
    assert sum(training["data"]["per_players"].values()) == 80 * 30
    assert a.final["mlp 8"].hash == load_model(str(fa)).hash
    # extra rows join every fit and are never held out
    extra = synthetic(10, seed=9)
    c = learning_curves(pos, [Family((8,))], [20], seed=4, extra=extra, extra_weight=2)
    assert c.final["mlp 8"].training["extra_rows"] == 2 * len(extra)
    assert len(c.test) == len(a.test)
    with pytest.raises(UsageError, match="81 training games asked, the positions hold 80"):
        learning_curves(pos, [Family((8,))], [81], seed=4)


def test_the_tables_name_every_model_and_group() -> None:
    pos = synthetic(60)
    curves = learning_curves(pos, [Family((4,)), Family((4, 4))], [30, 48], seed=2)
    text = format_curve(curves.rows)
    assert text.splitlines()[0].split()[:3] == ["family", "games", "positions"]
    assert len(text.splitlines()) == 5 and "mlp 4x4" in text
    rows = group_table(curves.final, curves.test)
    assert [r["group"] for r in rows] == [
        "all",
        "players=2",
        "players=3",
        "expansions=base",
        "expansions=finesse",
    ]
    assert sum(r["positions"] for r in rows[1:3]) == rows[0]["positions"]
    table = format_groups(rows, list(curves.final))
    assert "mlp 4x4" in table.splitlines()[0] and len(table.splitlines()) == 2 + len(rows)


def test_the_tool_refuses_bad_input_in_one_line(tmp_path: Path) -> None:
    import subprocess
    import sys

    path = tmp_path / "p.npz"
    synthetic(30).save(path)
    tool = Path(__file__).resolve().parents[2] / "tools" / "value_models.py"
    for args, why in (
        (["--families", "3y"], "is not a network shape"),
        (["--sizes", "100"], "100 training games asked"),
        (["--extra-weight", "0"], "--extra-weight"),
    ):
        done = subprocess.run(
            [sys.executable, str(tool), str(path), "--curve", *args],
            capture_output=True,
            text=True,
        )
        assert done.returncode != 0
        assert why in done.stderr and len(done.stderr.strip().splitlines()) == 1, done.stderr
    bad = tmp_path / "m.json"
    bad.write_text(json.dumps({"format": "x"}))
    done = subprocess.run(
        [sys.executable, str(tool), str(bad), "--curve"], capture_output=True, text=True
    )
    assert done.returncode != 0 and "not a positions file" in done.stderr
