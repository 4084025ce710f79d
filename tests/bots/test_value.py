"""The learned evaluation: its model file (hash in the spec, one-line errors), both builds'
values, the value bots' contract, and a tiny training run's reproducibility."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from bots import make_bot
from bots.features import FEATURE_NAMES, N_FEATURES, position_features
from bots.value_model import SHIPPED, load_model, write_model
from projectl_sim import Rules, play_game
from projectl_sim.errors import UsageError


def _model(path: Path, bias: float = 0.0, hidden: int = 3) -> str:
    """Write a small random model (``bias`` on its win output); return its hash."""
    rng = np.random.default_rng(7)
    w1 = rng.normal(size=(N_FEATURES, hidden)).tolist()
    w2 = rng.normal(size=(hidden, 2)).tolist()
    return write_model(
        path,
        [0.0] * N_FEATURES,
        [1.0] * N_FEATURES,
        [(w1, [0.1] * hidden), (w2, [0.5 + bias, 0.0])],
        10.0,
        {"test": True},
    )


def test_the_spec_names_the_model_hash_and_refuses_another(tmp_path: Path) -> None:
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    ha, hb = _model(a), _model(b, bias=0.25)
    assert ha != hb
    bot_a, bot_b = make_bot(f"value:model={a}"), make_bot(f"value:model={b}")
    assert repr(bot_a) == f"value:model={a.resolve()},hash={ha}"
    assert repr(bot_b).endswith(f"hash={hb}")
    assert repr(make_bot(repr(bot_a))) == repr(bot_a)  # a table's spec rebuilds the same bot
    shipped = make_bot("value")
    assert repr(shipped) == f"value:hash={load_model().hash}"
    assert "hash=" in repr(make_bot("mcts:leaf=value"))
    assert "hash=" not in repr(make_bot("mcts"))  # rollouts: no model
    with pytest.raises(UsageError, match=f"hash={hb} names another model.*its hash is {ha}"):
        make_bot(f"value:model={a},hash={hb}")


@pytest.mark.parametrize(
    ("content", "why"),
    [
        (None, "no such file"),
        ("truncated", "not a value model file \\(truncated or not JSON"),
        ("version", "trained on features version 999; this build computes version"),
        ("shape", "layer 1's weights do not fit"),
        ("other", "not a value model file"),
    ],
)
def test_a_bad_model_file_is_one_clear_line(tmp_path: Path, content: str | None, why: str) -> None:
    path = tmp_path / "m.json"
    if content is not None:
        _model(path)
        text = path.read_text()
        data = json.loads(text)
        if content == "truncated":
            path.write_text(text[: len(text) // 2])
        elif content == "version":
            data["feature_version"] = 999
            path.write_text(json.dumps(data))
        elif content == "shape":
            data["layers"][0]["weights"] = data["layers"][0]["weights"][:-1]
            path.write_text(json.dumps(data))
        else:
            path.write_text(json.dumps({"layers": []}))
    for spec in (f"value:model={path}", f"mcts:leaf=value,model={path}"):
        with pytest.raises(UsageError, match=why) as err:
            make_bot(spec)
        assert "\n" not in str(err.value) and str(path) in str(err.value)
    if content != "truncated":
        return  # the command line's answer once (a process start costs 2 s)
    out = subprocess.run(
        [sys.executable, "-m", "projectl_sim", "play", "--bots", f"value:model={path},greedy"],
        capture_output=True,
        text=True,
    )
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1 and why.split("\\")[0] in out.stderr


def test_the_features_come_from_the_public_view_only() -> None:
    """Two games that differ only in what a seat cannot see (the deck order, the other's pile)
    give that seat the same features."""
    rules = Rules(players=2)
    state = play_game(rules, [make_bot("greedy"), make_bot("greedy")], 3, record=False).state
    # replay to a mid-game position, then hide and re-deal what seat 0 cannot see
    outcome = play_game(rules, [make_bot("greedy"), make_bot("greedy")], 3, record=True)
    assert state.final_scores() == outcome.state.final_scores()
    import random

    from bots._state import determinize
    from bots.features import hidden_piles, mean_unseen_points

    g = outcome.state
    view = g.view(0)
    hidden = hidden_piles(view)
    assert hidden == 0b10  # the other's pile is face down
    per_card = mean_unseen_points(view)
    a = position_features(view, 0, hidden, per_card)
    for seed in range(3):
        world = determinize(view, random.Random(seed))  # guessed piles, re-dealt decks
        assert position_features(world, 0, hidden, per_card) == a
    assert position_features(g, 0, hidden, per_card) == a
    assert len(a) == len(FEATURE_NAMES)


@pytest.mark.parametrize(
    "rules",
    [Rules(players=2), Rules(players=3, expansions=("finesse", "ghost_piece")), Rules(players=4)],
)
def test_a_shared_plan_memo_gives_every_position_its_own_features(rules: Rules) -> None:
    """A decision's candidates share one memo of the seats' plans: every position reached by
    a candidate (its turn finished the greedy way) gets the features it gets alone."""
    import random

    from bots._state import determinize
    from bots.features import hidden_piles, mean_unseen_points
    from bots.heuristics import cost_model
    from bots.value import candidates, turn_after

    greedy = make_bot("greedy")
    checked = []

    def check(state, seat, action):  # type: ignore[no-untyped-def]
        if state.phase != "play" or len(checked) > 60:
            return
        view = state.view(state.current)
        hidden = hidden_piles(view)
        per_card = mean_unseen_points(view) if hidden else 0.0
        world = determinize(view, random.Random(len(checked)))
        memo: dict = {}
        for a in candidates(view, greedy, cost_model(view)):
            after = turn_after(world, a, greedy, random.Random(1))
            if after.phase == "over":
                continue
            for p in range(after.n):
                alone = position_features(after, p, hidden & ~(1 << p), per_card)
                shared = position_features(after, p, hidden & ~(1 << p), per_card, memo)
                assert shared == alone
                checked.append(a)

    play_game(rules, [make_bot("greedy") for _ in range(rules.players)], 11, on_step=check)
    assert len(checked) > 60


BOTH_BUILDS = """
import json
from bots import make_bot
from bots.features import hidden_piles, mean_unseen_points, position_features
from bots.value_model import load_model
from projectl_sim import Rules, play_game
from projectl_sim._native import compiled

model = load_model()
values = []
def note(state, seat, action):
    if state.phase == "play":
        view = state.view(seat)
        h = hidden_piles(view)
        x = position_features(view, seat, h, mean_unseen_points(view) if h else 0.0)
        values.append([x, list(model.evaluate(x))])
records = []
for rules, bots, seed in [
    (Rules(players=2), ["value", "greedy"], 1),
    (Rules(players=3, expansions=("finesse", "ghost_piece")),
     ["value", "greedy", "mcts:leaf=value,iterations=8"], 2),
    (Rules(players=1, variant="solo"), ["value"], 3),
    (Rules(players=2), ["value:rollouts=1,top=2,base=rusher", "greedy"], 4),
]:
    out = play_game(rules, [make_bot(b) for b in bots], seed, on_step=note)
    records.append(out.record_json())
print(json.dumps({"compiled": compiled(), "records": records, "values": values}))
"""


def test_both_builds_give_the_same_values_and_games() -> None:
    def run(pure: bool) -> dict:
        env = {k: v for k, v in os.environ.items() if k != "PROJECTL_SIM_PURE"}
        if pure:
            env["PROJECTL_SIM_PURE"] = "1"
        out = subprocess.run(
            [sys.executable, "-c", BOTH_BUILDS], env=env, capture_output=True, text=True
        )
        assert out.returncode == 0, out.stderr
        return json.loads(out.stdout)

    default, pure = run(False), run(True)
    assert pure["compiled"] is False
    assert len(default["values"]) > 50
    assert default["values"] == pure["values"]
    assert default["records"] == pure["records"]


def test_the_shipped_model_is_in_the_package() -> None:
    assert SHIPPED.is_file()
    model = load_model()
    assert model.path == SHIPPED and len(model.hash) == 12
    # what it was trained on is in the file
    assert model.training["games"] > 500 and "scikit-learn" in model.training["library"]


def test_a_tiny_training_run_is_reproducible(tmp_path: Path) -> None:
    pytest.importorskip("sklearn")
    from projectl_sim.learn.value import collect, fit

    a = collect(4, 11, every=3, mcts_share=0.0)
    b = collect(4, 11, every=3, mcts_share=0.0)
    assert len(a) > 50
    for field in ("x", "game", "margin", "win", "old_margin", "table"):
        assert np.array_equal(getattr(a, field), getattr(b, field))
    assert set(a.players.tolist()) and np.all((a.win >= 0) & (a.win <= 1))
    fa, fb = fit(a, (4,), seed=3, max_iter=5), fit(b, (4,), seed=3, max_iter=5)
    assert fa == fb
    assert fit(a, (4,), seed=4, max_iter=5) != fa  # the seed is what decides


def test_extra_rows_train_but_are_never_held_out(tmp_path: Path) -> None:
    """train-value --extra-positions: the rows join the fit (each --extra-weight times), the
    accuracy is still that of the held-out games, and the model file says what it saw."""
    pytest.importorskip("sklearn")
    from projectl_sim.learn.value import collect, train

    rows = collect(6, 12, every=2, mcts_share=0.0)
    rows.save(tmp_path / "rows.npz")
    extra = collect(3, 13, every=2, mcts_share=0.0)
    extra.save(tmp_path / "extra.npz")
    second = collect(2, 14, every=2, mcts_share=0.0)
    second.save(tmp_path / "second.npz")
    plain = train(tmp_path / "a", games=0, seed=1, positions=tmp_path / "rows.npz")

    def with_extra(out: str, *names: str) -> dict:
        paths = [tmp_path / name for name in names]
        return train(
            tmp_path / out,
            games=0,
            seed=1,
            positions=tmp_path / "rows.npz",
            extra=paths,
            extra_weight=2,
        )

    more = with_extra("b", "extra.npz")
    assert more["hash"] != plain["hash"]
    assert [r["positions"] for r in more["accuracy"]] == [r["positions"] for r in plain["accuracy"]]
    training = load_model(str(more["model"])).training
    assert training["extra_rows"] == 2 * len(extra) and training["extra_weight"] == 2
    both = with_extra("d", "extra.npz", "second.npz")
    training = load_model(str(both["model"])).training
    assert training["extra_positions"] == ["extra.npz", "second.npz"]
    assert training["extra_rows"] == 2 * (len(extra) + len(second))
    assert both["hash"] != more["hash"]
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "projectl_sim",
            "train-value",
            "--out",
            str(tmp_path / "c"),
            "--positions",
            str(tmp_path / "rows.npz"),
            "--extra-positions",
            str(tmp_path / "none"),
        ],
        capture_output=True,
        text=True,
    )
    assert out.returncode != 0 and out.stderr.strip().count("\n") == 0
    assert "--extra-positions" in out.stderr and "no such file" in out.stderr


def test_the_ladder_rates_bots_on_one_scale_with_their_cost(tmp_path: Path) -> None:

    from projectl_sim.experiments.ladder import ladder
    from projectl_sim.sim.runner import RunOptions

    table = ladder(
        tmp_path,
        ("random", "greedy", "value"),
        games=4,
        seed=2,
        options=RunOptions(jobs=1, quiet=True),
    )
    assert list(table["bot"])[-1] == "random"  # best first; random loses to both
    rated = table.set_index("bot")
    assert rated.loc["greedy", "rating"] == 0.0  # the anchor
    assert (table["cpu_ms"] > 0).all() and (table["games"] == 8).all()
    assert (tmp_path / "ladder.csv").is_file() and (tmp_path / "ladder.png").is_file()
    again = ladder(
        tmp_path,
        ("random", "greedy", "value"),
        games=4,
        seed=2,
        options=RunOptions(jobs=1, quiet=True),
    )  # resumed: nothing more to play
    assert again["rating"].tolist() == table["rating"].tolist()
    _, fig = _drawn_ladder(table)
    _assert_inside(fig)


def test_the_learning_curve_says_how_many_games_each_fit_trained_on(tmp_path: Path) -> None:
    """--curve: one line a fit on a growing share of the training games, each scored on the
    same held-out games; the last fit is the model's own."""
    pytest.importorskip("sklearn")
    import csv

    from projectl_sim.learn.value import collect, train

    collect(30, 21, every=1, mcts_share=0.0).save(tmp_path / "rows.npz")
    out = train(tmp_path / "m", games=0, seed=1, positions=tmp_path / "rows.npz", curve=True)
    with open(tmp_path / "m" / "learning_curve.csv") as f:
        lines = list(csv.DictReader(f))
    trained = [int(r["train_games"]) for r in lines]
    assert trained == sorted(trained) and trained[0] < trained[-1] == 24  # 30 games, 6 held out
    assert {r["games"] for r in lines} == {str(out["accuracy"][0]["games"])}
    assert {int(r["positions"]) for r in lines} == {out["accuracy"][0]["positions"]}
    assert float(lines[-1]["corr"]) == pytest.approx(out["accuracy"][0]["corr"])


# the docs' ladder (docs/data/ladder.csv, rounded): bot, rating, its interval, CPU ms a decision
NEW, OLD = "9271b03f1f1c", "1f4245d84f5c"  # the shipped model's hash and the previous one's
FLAT = "mcts:iterations=128,tree=turn,leaf=value"
DOCS_LADDER = [
    (f"mcts:iterations=100,leaf=value,hash={NEW}", 446, 399, 494, 10.1),
    (f"{FLAT},hash={NEW}", 436, 389, 484, 9.42),
    (f"mcts:leaf=value,hash={NEW}", 426, 380, 474, 2.44),
    (f"{FLAT},model=previous-{OLD},hash={OLD}", 366, 320, 412, 9.34),
    (f"value:places=0,hash={NEW}", 312, 267, 358, 0.70),
    (f"value:hash={NEW}", 274, 229, 320, 0.36),
    ("rusher", 99, 54, 144, 0.040),
    ("greedy", 0, 0, 0, 0.018),
]


def test_every_bot_on_the_ladder_chart_is_named_beside_its_point_or_in_its_key() -> None:
    """The docs' ladder: six bots, two of them close in cost; a name that fits nowhere beside
    its point gets a number there and its name in the key under the axis; the one model hash is
    in the title, not in every name; nothing drawn leaves the figure."""
    import pandas as pd

    h = "1f4245d84f5c"
    rows = [
        ("mcts:leaf=value,hash=" + h, 290, 244, 337, 5.57),
        ("mcts:iterations=200,leaf=value,hash=" + h, 223, 179, 268, 43.2),
        ("value:rollouts=2,hash=" + h, 217, 173, 263, 6.26),
        ("value:hash=" + h, 204, 160, 250, 0.88),
        ("rusher", 122, 78, 166, 0.079),
        ("greedy", 0, 0, 0, 0.034),
    ]
    table = pd.DataFrame(rows, columns=["bot", "rating", "ci_low", "ci_high", "cpu_ms"])
    ax, fig = _drawn_ladder(table)
    beside = {t.get_text() for t in ax.texts}
    key = ax.get_xlabel()
    assert h in ax.get_title() and not any(h in name for name in beside) and h not in key
    numbered = dict(_key(ax))
    for spec, *_rest in rows:
        name = spec.replace(":hash=" + h, "").replace(",hash=" + h, "")
        assert name in beside or (name in numbered and numbered[name] in beside), name
    _assert_inside(fig)


def test_the_ladder_chart_s_key_numbers_the_points_it_names_1_2_3() -> None:
    """The docs' ladder and two rows the chart leaves out (no rating, no CPU time): the key
    numbers the points without a name beside them 1, 2, 3 strongest first, though a named point
    sits among them, and each number is drawn at its own bot's point."""
    import pandas as pd

    rows = [
        *DOCS_LADDER,
        (f"mcts:iterations=400,leaf=value,hash={NEW}", np.nan, np.nan, np.nan, 40.0),
        ("random", -400, -500, -300, 0.0),
    ]
    table = pd.DataFrame(rows, columns=["bot", "rating", "ci_low", "ci_high", "cpu_ms"])
    ax, fig = _drawn_ladder(table)
    key = _key(ax)
    assert [number for _, number in key] == [str(i) for i in range(1, len(key) + 1)]
    drawn = [(t.get_text(), tuple(t.xy)) for t in ax.texts]
    names = [text for text, _ in drawn]
    # each bot's name on the chart (the one model's hash in the title) and its point
    point = {re.sub(r"[:,]hash=\w+", "", spec): (cpu, rating) for spec, rating, *_, cpu in rows}
    ranked = list(point)[:4]  # the four strongest, close in cost: not all named beside
    assert len(key) >= 2 and ranked[2] in names  # a named point among the numbered ones
    assert [name for name, _ in key] == [name for name in ranked if name not in names]
    for name, number in key:
        assert [xy for text, xy in drawn if text == number] == [point[name]], (name, number)
    shown = " ".join(names) + ax.get_xlabel()
    assert "iterations=400" not in shown and "random" not in shown  # the rows left out
    _assert_inside(fig)


def test_a_ladder_chart_with_a_bot_on_another_model_names_it_by_its_model() -> None:
    """The shipped model's hash once, in the title; a bot that names its model keeps that name
    (not its hash) beside its point or in the key, one key line a name, inside the figure."""
    import pandas as pd

    rows = [DOCS_LADDER[i] for i in (0, 1, 3, 5, 7)]
    table = pd.DataFrame(rows, columns=["bot", "rating", "ci_low", "ci_high", "cpu_ms"])
    ax, fig = _drawn_ladder(table)
    shown = " ".join(t.get_text() for t in ax.texts) + " " + ax.get_xlabel()
    assert f"#{NEW} unless named" in ax.get_title() and NEW not in shown and OLD + "," not in shown
    assert f"{FLAT},model=previous-{OLD}" in shown and "#" not in shown
    _assert_inside(fig)


def test_solo_features_see_the_mastermind_s_coming_takes_from_the_public_table() -> None:
    """Solo: the rival block holds the mastermind's next take (held_value: the points of the
    puzzle the rules' mastermind takes next, ``mastermind_choice``) and its takes over the
    player's turns left (reachable_points), also after the player takes the puzzle it wanted;
    a determinized world gives the same features as the view."""
    import random

    from bots._state import determinize, solo_table
    from bots.heuristics import cost_model
    from projectl_sim.engine import PLAY, GameState
    from projectl_sim.engine.actions import Take
    from projectl_sim.variants.solo import mastermind_choice

    next_take = FEATURE_NAMES.index("rival_held_value")
    coming = FEATURE_NAMES.index("rival_reachable_points")
    rules = Rules(players=1, variant="solo")

    def wanted(state: GameState) -> int | None:
        """The points of the mastermind's next take (None: it unlocks first)."""
        solo = solo_table(state)
        if all(solo.locks[c] for c in range(3)):
            return None
        pos = mastermind_choice(solo, cost_model(state).tab.points)
        return None if pos is None else cost_model(state).tab.points[solo.grid[pos]]

    checked = taken = 0
    for seed in range(1, 6):
        states: list[GameState] = []

        def note(state: GameState, seat: int, action: object, into: list = states) -> None:
            if state.phase == PLAY:
                into.append(state.copy())

        play_game(rules, [make_bot("greedy")], seed, record=False, on_step=note)
        for state in states[:12]:
            view = state.view(0)
            x = position_features(view, 0, 0, 0.0)
            for k in range(2):
                assert position_features(determinize(view, random.Random(k)), 0, 0, 0.0) == x
            assert x[coming] >= x[next_take] >= 0.0
            points = wanted(view)
            if points is None:
                continue
            assert x[next_take] == points
            checked += 1
            solo = solo_table(view)
            pos = mastermind_choice(solo, cost_model(view).tab.points)
            take = Take(solo.grid[pos])
            if take in state.legal_actions():
                after = state.copy()
                after.apply(take)
                if after.phase == PLAY and after.current == 0 and wanted(after) is not None:
                    y = position_features(after.view(0), 0, 0, 0.0)
                    assert y[next_take] == wanted(after)
                    taken += 1
    assert checked >= 20 and taken >= 3


def test_a_decision_leaves_the_collector_as_it_found_it() -> None:
    """``value`` pauses the cyclic collector for a decision, and restores it (on or off)."""
    import gc
    import random

    bot = make_bot("value")
    rules = Rules(players=2)
    views = []
    play_game(
        rules,
        [make_bot("greedy"), make_bot("greedy")],
        5,
        on_step=lambda s, q, a: (
            views.append(s.view(s.current)) if s.phase == "play" and len(views) < 3 else None
        ),
    )
    try:
        for enabled in (True, False):
            (gc.enable if enabled else gc.disable)()
            for view in views:
                bot(view, random.Random(1))
                assert gc.isenabled() is enabled
    finally:
        gc.enable()


def test_value_scores_the_best_takes_and_every_other_candidate() -> None:
    """``best_takes`` keeps the greedy choice, every candidate that is not a Take, and the
    ``keep`` Takes of the best points per action, in the heuristic's order."""
    from bots.heuristics import cost_model
    from bots.value import best_takes, candidates, shortlist
    from projectl_sim.engine.actions import Take

    greedy = make_bot("greedy")
    seen = []

    def check(state, seat, action):  # type: ignore[no-untyped-def]
        if state.phase != "play":
            return
        view = state.view(state.current)
        model = cost_model(view)
        cands = shortlist(candidates(view, greedy, model), model.levels, 2)
        for keep in (1, 2, 4):
            kept = best_takes(view, cands, model, keep)
            assert kept[0] == cands[0]
            assert [a for a in cands if a in kept] == kept  # the order is the heuristic's
            rest = [a for a in cands[1:] if not isinstance(a, Take)]
            assert [a for a in kept[1:] if not isinstance(a, Take)] == rest
            takes = [a for a in kept[1:] if isinstance(a, Take)]
            offered = [a for a in cands[1:] if isinstance(a, Take)]
            assert len(takes) == min(keep, len(offered))
            seen.append(len(offered))

    play_game(Rules(players=2), [make_bot("greedy"), make_bot("greedy")], 9, on_step=check)
    assert max(seen) > 4  # decisions with more Takes than are kept
    assert "takes=0" in repr(make_bot("value:takes=0"))


def test_the_shortlist_keeps_the_first_upgrades_it_is_allowed() -> None:
    """``upgrades=N`` keeps the first N Upgrades of the unlimited shortlist (the greedy choice
    always first, whatever it is), and every other candidate as it was."""
    from bots.heuristics import cost_model
    from bots.value import candidates, shortlist
    from projectl_sim.engine.actions import Upgrade

    greedy = make_bot("greedy")
    offered = []

    def check(state, seat, action):  # type: ignore[no-untyped-def]
        if state.phase != "play":
            return
        view = state.view(state.current)
        model = cost_model(view)
        cands = candidates(view, greedy, model)
        every = shortlist(cands, model.levels, 2)
        ups = [a for a in every[1:] if isinstance(a, Upgrade)]
        offered.append(len(ups))
        for limit in (1, 2):
            kept = shortlist(cands, model.levels, 2, limit)
            assert kept[0] == every[0]
            assert [a for a in kept[1:] if isinstance(a, Upgrade)] == ups[:limit]
            assert [a for a in kept if not isinstance(a, Upgrade)] == [
                a for a in every if not isinstance(a, Upgrade)
            ]

    play_game(Rules(players=2), [make_bot("greedy"), make_bot("greedy")], 9, on_step=check)
    assert max(offered) > 1  # decisions with more Upgrades than one are cut


def _drawn_ladder(table: Any) -> tuple[Any, Any]:
    """Return the ladder chart of ``table`` drawn on an Agg canvas: its axes and figure."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    from projectl_sim.experiments.ladder import plot_ladder_cost

    ax = plot_ladder_cost(table)
    fig = ax.get_figure()
    FigureCanvasAgg(fig)
    fig.canvas.draw()
    return ax, fig


def _key(ax: Any) -> list[tuple[str, str]]:
    """Return the ladder chart's key under its axis: (bot's name, its number) a line."""
    lines = ax.get_xlabel().splitlines()[1:]  # the axis's name first
    return [(name, number) for number, name in (line.split(": ", 1) for line in lines)]


def _assert_inside(fig: Any) -> None:
    """Every drawn thing (text, key, points) lies inside the figure: nothing clipped."""
    drawn = fig.get_tightbbox(fig.canvas.get_renderer())
    assert drawn.x0 >= -0.01 and drawn.y0 >= -0.01
    assert drawn.x1 <= fig.get_figwidth() + 0.01 and drawn.y1 <= fig.get_figheight() + 0.01
