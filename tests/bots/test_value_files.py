"""The learned evaluation's doors: a model file checked when it is read (a broken one never
plays), a positions file checked when it is read, train-value's numbers checked by their declared
ranges before any work, and a training that writes its folder whole or not at all, one writer at
a time. Every refusal is one line naming the file or flag, exit 2."""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from bots import make_bot
from bots.features import FEATURE_VERSION, N_FEATURES
from bots.value_model import load_model, write_model
from projectl_sim.cli import build_parser, main
from projectl_sim.cli.numbers import Number
from projectl_sim.cli.train_value import EXPIT_NUMBERS, NUMBERS
from projectl_sim.errors import UsageError
from projectl_sim.learn.value import UNUSED, Positions
from projectl_sim.sim.tables import writer_lock


def one_line(err: str) -> str:
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err
    assert "Traceback" not in err
    return lines[0]


def _model(path: Path, hidden: int = 3) -> dict[str, Any]:
    """Write a small random model; return its JSON."""
    rng = np.random.default_rng(7)
    w1 = rng.normal(size=(N_FEATURES, hidden)).tolist()
    w2 = rng.normal(size=(hidden, 2)).tolist()
    layers = [(w1, [0.1] * hidden), (w2, [0.5, 0.0])]
    write_model(path, [0.0] * N_FEATURES, [1.0] * N_FEATURES, layers, 10.0, {"test": True})
    return json.loads(path.read_text())


def _set(data: dict[str, Any], where: tuple[Any, ...], value: Any) -> None:
    for key in where[:-1]:
        data = data[key]
    data[where[-1]] = value


# -- a model file ---------------------------------------------------------------------------------
BROKEN_MODELS = [
    (("layers", 0, "biases", 1), float("nan"), "layer 1's bias of unit 2 is NaN"),
    (("layers", 1, "biases", 0), float("inf"), "layer 2's bias of unit 1 is inf"),
    (("layers", 1, "biases", 0), float("-inf"), "layer 2's bias of unit 1 is -inf"),
    (("layers", 0, "weights", 4, 2), 1e300, "weight from input 5 to unit 3 is 1e\\+300, outside"),
    (("layers", 1, "weights", 0, 1), -5e4, "layer 2's weight from input 1 to unit 2 is -50000"),
    (("layers", 0, "weights", 0, 0), "0.5", "is '0.5', not a number"),
    (("layers", 0, "biases", 0), True, "is True, not a number"),
    (("layers", 0, "biases", 0), 10**400, "a whole number of 401 digits"),
    (("margin_scale",), -10.0, "margin_scale is -10, outside 0.001 to 1000"),
    (("margin_scale",), 0, "margin_scale is 0, outside"),
    (("scale", 3), 0.0, "the scale of feature 4 .* is 0, outside"),
    (("mean", 0), float("nan"), "the mean of feature 1 .* is NaN"),
    (("layers",), [], "holds no layers"),
    (("layers", 0, "biases"), [], "layer 1's biases: missing"),
    (("layers", 0, "weights", 2), [1.0], "layer 1's weights do not fit its inputs and biases"),
    (("mean",), [0.0] * 3, f"mean has 3 values; the features are {N_FEATURES}"),
    (("outputs",), ["win"], "its outputs are \\['win'\\]"),
    (("training",), "640 games", '"training" is not a mapping'),
]


@pytest.mark.parametrize(("where", "value", "why"), BROKEN_MODELS)
def test_a_broken_model_file_is_refused_by_every_bot_that_reads_it(
    tmp_path: Path, where: tuple[Any, ...], value: Any, why: str
) -> None:
    path = tmp_path / "m.json"
    data = _model(path)
    _set(data, where, value)
    path.write_text(json.dumps(data))
    for spec in (f"value:model={path}", f"mcts:leaf=value,model={path}"):
        with pytest.raises(UsageError, match=why) as err:
            make_bot(spec)
        assert "\n" not in str(err.value) and str(err.value).startswith(f"value model {path}: ")


def test_a_model_at_its_limits_plays(tmp_path: Path) -> None:
    """The limits refuse no number a model may hold: weights at ±1000, a scale of 1e-9."""
    path = tmp_path / "m.json"
    data = _model(path)
    _set(data, ("layers", 0, "weights", 0, 0), 1000.0)
    _set(data, ("layers", 1, "biases", 1), -1000)
    _set(data, ("scale", 5), 1e-9)
    _set(data, ("margin_scale",), 1000)
    path.write_text(json.dumps(data))
    model = load_model(str(path))
    win, margin = model.evaluate([1.0] * N_FEATURES)
    assert 0.0 <= win <= 1.0 and np.isfinite(margin)
    assert model.margin_scale == 1000.0


def test_run_and_play_refuse_a_broken_model_before_playing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "m.json"
    data = _model(path)
    data["layers"][0]["biases"][0] = float("nan")
    path.write_text(json.dumps(data))
    for bots in (f"value:model={path},greedy", f"greedy,mcts:leaf=value,model={path}"):
        command = ["run", "--bots", bots, "--players", "2", "--games", "2"]
        assert main([*command, "--out", "r", "--quiet"]) == 2
        assert "layer 1's bias of unit 1 is NaN" in one_line(capsys.readouterr().err)
        assert not (tmp_path / "r").exists()  # no table of a bot that never was
    assert main(["play", "--bots", f"value:model={path},greedy"]) == 2
    assert "layer 1's bias of unit 1 is NaN" in one_line(capsys.readouterr().err)


def test_a_positions_file_named_as_a_model_and_a_folder_as_positions_are_named(
    tmp_path: Path, capsys: Any
) -> None:
    _positions(games=2).save(tmp_path / "rows.npz")
    with pytest.raises(UsageError, match="not a value model file \\(a zip archive: a positions"):
        make_bot(f"value:model={tmp_path / 'rows.npz'}")
    for flag in ("--positions", "--extra-positions"):
        assert main(["train-value", "--out", str(tmp_path / "m"), flag, str(tmp_path)]) == 2
        line = one_line(capsys.readouterr().err)
        assert f"{flag} {tmp_path}: a folder, not a positions file" in line
    assert not (tmp_path / "m").exists()


# -- train-value's numbers -------------------------------------------------------------------------
BAD_NUMBERS = [
    (["--games", "100000000000000"], "--games 100000000000000: out of range"),
    (["--games", "0"], "--games 0: out of range (valid: a whole number from 1 to 50,000)"),
    (["--every", "1000000"], "--every 1000000: out of range"),
    (["--jobs", "0"], "--jobs 0: out of range"),
    (["--mcts-share", "2"], "--mcts-share 2.0: out of range (valid: a number from 0 to 1)"),
    (["--mcts-share", "-0.5"], "--mcts-share -0.5: out of range"),
    (["--mcts-share", "nan"], "--mcts-share nan: out of range"),
    (["--seed", "-1"], "--seed -1: out of range (valid: a whole number, 0 or more)"),
    (["--hidden", "1000000"], "--hidden 1000000: out of range"),
    (["--hidden", "32,0"], "--hidden 32,0: out of range"),
    (["--hidden", "8,8,8,8,8"], "--hidden '8,8,8,8,8': expected 1 to 4 values"),
    (["--hidden", "32,,16"], "--hidden '32,,16': expected"),
    (["--hidden", "big"], "--hidden 'big': expected"),
    (["--test-share", "1"], "--test-share 1.0: out of range"),
    (["--test-share", "inf"], "--test-share inf: out of range"),
    (["--extra-weight", "0"], "--extra-weight 0: out of range"),
    (["--extra-weight", "3"], "--extra-weight 3 weighs the --extra-positions rows: none given"),
    (["--games", "ten"], "argument --games: invalid int value"),
]


@pytest.mark.parametrize(("args", "message"), BAD_NUMBERS)
def test_a_training_number_out_of_its_range_is_refused_before_any_work(
    tmp_path: Path, capsys: Any, args: list[str], message: str
) -> None:
    out = tmp_path / "model"
    assert main(["train-value", "--out", str(out), *args]) == 2
    assert message in one_line(capsys.readouterr().err)
    assert not out.exists()


def test_every_numeric_flag_of_train_value_is_declared_with_its_range() -> None:
    """A numeric flag added without a declaration (a bare type=int) fails here."""
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    train = sub.choices["train-value"]
    declared = {n.flag for n in (*NUMBERS, *EXPIT_NUMBERS)}
    for action in train._actions:
        if action.type in (int, float):
            assert action.option_strings[0] in declared, action.option_strings
    for number in (*NUMBERS, *EXPIT_NUMBERS):
        action = next(a for a in train._actions if number.flag in a.option_strings)
        assert number.values in (action.help or "")  # the range is in the help
        assert number.parse(number.default) == number.default  # the default is in range


def test_a_declared_number_reads_a_list_and_refuses_outside_its_range() -> None:
    from bots.params import Range

    hidden = Number("--hidden", int, (32,), Range(1, 8), "units", items=2)
    assert hidden.parse("4, 8") == (4, 8)
    for bad in ("9", "0,1", "1,2,3", "", "1.5"):
        with pytest.raises(UsageError, match="--hidden"):
            hidden.parse(bad)
    share = Number("--share", float, 0.5, Range(0.0, 1.0, open_low=True), "share")
    assert share.parse(1) == 1 and share.parse(0.25) == 0.25
    for bad in (0.0, float("nan"), float("-inf"), 1.5, True, "0.5"):
        with pytest.raises(UsageError, match="--share"):
            share.parse(bad)


# -- positions files -------------------------------------------------------------------------------
def _positions(games: int = 40, per_game: int = 5, seed: int = 0) -> Positions:
    """Return made-up rows of ``games`` games (a file's checks and a fit need no real game)."""
    rng = np.random.default_rng(seed)
    n = games * per_game
    x = rng.normal(size=(n, N_FEATURES))
    win = (x[:, 0] > 0).astype(float)
    return Positions(
        x=x,
        game=np.repeat(np.arange(games), per_game),
        players=np.full(n, 2),
        margin=np.round(3 * x[:, 0] + rng.normal(size=n)),
        win=win,
        old_margin=x[:, 0],
        root_value=np.full(n, np.nan),
        table=np.asarray(["base"] * n),
        variant=np.asarray(["standard"] * n),
    )


def _columns(pos: Positions) -> dict[str, np.ndarray]:
    return {f: getattr(pos, f) for f in pos.__dataclass_fields__}


def _write_bad(path: Path, kind: str) -> None:
    good = _columns(_positions(games=4))
    if kind == "garbage":
        path.write_bytes(b"\x00\x01garbage" * 20)
    elif kind == "empty":
        path.write_bytes(b"")
    elif kind == "model":
        _model(path)
    elif kind == "zip":
        np.savez(path, other=np.zeros(3))
    elif kind == "pickled":
        np.savez(path, **{**good, "x": np.asarray([[1.0], [2.0, 3.0]], dtype=object)})
    elif kind == "nan":
        x = good["x"].copy()
        x[3, 5] = np.nan
        np.savez(path, **{**good, "x": x})
    elif kind == "huge":
        margin = good["margin"].copy()
        margin[2] = 1e300
        np.savez(path, **{**good, "margin": margin})
    elif kind == "ragged":
        np.savez(path, **{**good, "win": good["win"][:-3]})
    elif kind == "narrow":
        np.savez(path, **{**good, "x": good["x"][:, :50]})
    elif kind == "none":
        np.savez(path, **{k: v[:0] for k, v in good.items()})
    elif kind == "win":
        np.savez(path, **{**good, "win": good["win"] + 3})
    elif kind == "version":
        np.savez(path, feature_version=np.int64(FEATURE_VERSION - 1), **good)
    else:
        raise AssertionError(kind)


BAD_POSITIONS = [
    ("garbage", "is not a positions file (not a NumPy .npz archive"),
    ("empty", "is not a positions file (an empty file)"),
    ("model", "is not a positions file (it is a value model file"),
    ("zip", "is not a positions file (no 'x' column)"),
    ("pickled", "is not a positions file (a column holds pickled Python objects"),
    ("nan", "its x holds NaN (row 3, feature"),
    ("huge", "its margin holds 1e+300 (row 2): no game gives it"),
    ("ragged", "its win has 17 rows and its x 20 (columns of unequal length)"),
    ("narrow", f"its x is float64 of shape (20, 50); a position has {N_FEATURES} features"),
    ("none", "it holds no positions"),
    ("win", ": a win share is 0 to 1"),
    ("version", f"positions of features version {FEATURE_VERSION - 1}; this build computes"),
]


@pytest.mark.parametrize(("kind", "why"), BAD_POSITIONS)
def test_a_bad_positions_file_is_one_line_naming_it(tmp_path: Path, kind: str, why: str) -> None:
    path = tmp_path / "rows.npz"
    _write_bad(path, kind)
    with pytest.raises(UsageError) as err:
        Positions.load(path, "--extra-positions")
    message = str(err.value)
    assert message.startswith(f"--extra-positions {path}") and why in message, message
    assert "\n" not in message


def test_positions_round_trip_with_their_features_version(tmp_path: Path) -> None:
    pos = _positions(games=3)
    pos.save(tmp_path / "rows.npz")
    with np.load(tmp_path / "rows.npz") as data:
        assert int(data["feature_version"]) == FEATURE_VERSION
    back = Positions.load(tmp_path / "rows.npz")
    for field in pos.__dataclass_fields__:
        mine, read = getattr(pos, field), getattr(back, field)
        assert np.array_equal(read, mine, equal_nan=mine.dtype.kind == "f")
    # a file written before the version was saved is read by its width alone
    np.savez(tmp_path / "old.npz", **_columns(pos))
    assert len(Positions.load(tmp_path / "old.npz")) == len(pos)


# -- the training's folder -------------------------------------------------------------------------
@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Return a folder holding a good model, trained on made-up rows (hidden layer of 2)."""
    pytest.importorskip("sklearn")
    folder = tmp_path_factory.mktemp("trained")
    _positions().save(folder / "rows.npz")
    out = folder / "model"
    assert main(["train-value", "--out", str(out), "--positions", str(folder / "rows.npz"),
                 "--hidden", "2", "--quiet"]) == 0  # fmt: skip
    return out


def _files(out: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(out.iterdir())}


def test_a_training_leaves_its_outputs_and_nothing_else(trained: Path) -> None:
    assert sorted(_files(trained)) == ["accuracy.csv", "model.json"]  # no lock, no temporary
    assert load_model(str(trained / "model.json")).training["hidden"] == [2]


@pytest.mark.parametrize("kind", ["nan", "model", "narrow"])
def test_a_bad_positions_file_leaves_the_folder_as_it_was(
    trained: Path, tmp_path: Path, capsys: Any, kind: str
) -> None:
    before = _files(trained)
    bad = tmp_path / "bad.npz"
    _write_bad(bad, kind)
    for flag in ("--positions", "--extra-positions"):
        args = ["--positions", str(bad)] if flag == "--positions" else ["--games", "2"]
        if flag == "--extra-positions":
            args += ["--extra-positions", str(bad)]
        assert main(["train-value", "--out", str(trained), *args, "--quiet"]) == 2
        assert one_line(capsys.readouterr().err).startswith(f"projectl-sim: error: {flag} {bad}")
        assert _files(trained) == before
    fresh = tmp_path / "fresh"
    assert main(["train-value", "--out", str(fresh), "--positions", str(bad)]) == 2
    assert not fresh.exists()  # refused before the folder is made


def test_a_training_that_fails_late_replaces_nothing(
    trained: Path, tmp_path: Path, capsys: Any
) -> None:
    """The curve's smallest share (2 games of 32, 10 rows) is too few to fit: the new model and
    accuracy were written by then, under temporary names, and are dropped; the old stay."""
    before = _files(trained)
    _positions(seed=1).save(tmp_path / "rows.npz")
    args = ["--positions", str(tmp_path / "rows.npz"), "--hidden", "3", "--seed", "5", "--curve"]
    assert main(["train-value", "--out", str(trained), *args, "--quiet"]) == 2
    assert "only 10 training positions" in one_line(capsys.readouterr().err)
    assert _files(trained) == before


def test_a_second_writer_of_the_folder_is_refused(trained: Path, capsys: Any) -> None:
    before = _files(trained)
    rows = trained.parent / "rows.npz"
    with writer_lock(trained):  # a training (or a run) writing there now
        assert (
            main(["train-value", "--out", str(trained), "--positions", str(rows), "--quiet"]) == 2
        )
        line = one_line(capsys.readouterr().err)
    assert f"--out {trained} is being written by pid {os.getpid()}" in line
    assert "one folder has one writer" in line
    assert _files(trained) == before


def test_a_training_that_fails_after_playing_keeps_its_positions(
    tmp_path: Path, capsys: Any
) -> None:
    """One game, held out whole: nothing to fit. The positions it played are not lost."""
    pytest.importorskip("sklearn")
    out = tmp_path / "model"
    args = ["--games", "1", "--every", "1", "--seed", "3", "--mcts-share", "0", "--hidden", "2"]
    assert main(["train-value", "--out", str(out), *args, "--quiet"]) == 2
    line = one_line(capsys.readouterr().err)
    assert "only 0 training positions" in line and f"kept in {out / UNUSED}" in line
    assert sorted(_files(out)) == [UNUSED]
    kept = Positions.load(out / UNUSED)
    assert len(kept) > 20 and set(kept.game.tolist()) == {0}


def test_a_shipped_candidate_is_named_by_its_bare_name(tmp_path: Path, monkeypatch: Any) -> None:
    """``model=candidate-...`` reads the file shipped beside the model, from any folder, and the
    bot's spec names it back by that name (portable records); a bare name that is not a shipped
    file is still a path, refused in one line; a path to a shipped file plays the same model."""
    from bots.value_model import SHIPPED, model_name, model_path

    monkeypatch.chdir(tmp_path)
    name = "candidate-a0bf61a97e76"
    bot = make_bot(f"value:model={name},places=0")
    assert bot.model.path == SHIPPED.parent / f"{name}.json"
    assert bot.model.hash == "a0bf61a97e76" != load_model("").hash
    assert repr(bot) == f"value:places=0,model={name},hash=a0bf61a97e76"
    assert make_bot(repr(bot)).model is bot.model  # a record's spec plays it again
    assert model_name(model_path(str(SHIPPED.parent / f"{name}.json"))) == name
    with pytest.raises(UsageError, match="no such file"):
        make_bot("value:model=candidate-000000000000")
    (tmp_path / "mine").write_text("{}")  # a user's file without a suffix: still a path
    assert model_path("mine") == tmp_path / "mine"


def _game_digest(spec: str, seed: int = 5) -> str:
    """Return the SHA-256 of a seeded 2-player game of ``spec`` against greedy, action by action
    in record form."""
    import hashlib

    from projectl_sim import Rules, play_game

    outcome = play_game(Rules(players=2), [make_bot(spec), make_bot("greedy")], seed)
    actions = [
        json.dumps(a, sort_keys=True, separators=(",", ":"))
        for a in outcome.record_json()["actions"]
    ]
    return hashlib.sha256("\n".join(actions).encode()).hexdigest()


# seed 5, value against greedy: the previous model's game as `value` played it while that model
# shipped (main's compiled build at d34385c), and the shipped model's
PREVIOUS_GAME = "4ff796b7fc36576c0647e30128744b7f6f83e00c72455cde41dc7037d7374c13"
SHIPPED_GAME = "f3b2c618e4f77053e272b6092afd85e30dc079cd0bb7ba41e4e04f82ca18c8dd"


def test_the_previous_model_plays_as_it_did_when_it_shipped(
    tmp_path: Path, monkeypatch: Any
) -> None:
    """``model=previous-1f4245d84f5c`` (the default until the switch, kept byte for byte) and a
    path to its file load the same model, and a seeded game plays the actions the default
    ``value`` played with it; the shipped default plays another game on that deal. A spec that
    names its hash without the file, as tables did while it shipped, is refused in one line
    naming the file that plays it."""
    from bots.value_model import SHIPPED

    monkeypatch.chdir(tmp_path)
    name = "previous-1f4245d84f5c"
    bot = make_bot(f"value:model={name}")
    assert bot.model.hash == "1f4245d84f5c" != load_model("").hash
    assert repr(bot) == f"value:model={name},hash=1f4245d84f5c"
    by_path = make_bot(f"value:model={SHIPPED.parent / (name + '.json')},hash=1f4245d84f5c")
    assert by_path.model is bot.model
    # a spec of the days it shipped (its hash, no file) is refused, saying what plays it
    with pytest.raises(UsageError, match=f"model={name} plays that one"):
        make_bot("value:hash=1f4245d84f5c")
    assert _game_digest(f"value:model={name}") == PREVIOUS_GAME
    assert _game_digest("value") == SHIPPED_GAME != PREVIOUS_GAME


def test_each_model_file_beside_the_shipped_one_has_its_recipe_or_is_the_shipped_file() -> None:
    """Every model file shipped in the package is trained by a recipe beside it, except a former
    candidate's name kept for the shipped file (the same bytes: its specs and records play on)."""
    from bots.value_model import SHIPPED

    folder = SHIPPED.parent
    models = [p for p in folder.glob("*.json") if not p.name.endswith(".recipe.json")]
    models = [p for p in models if p.name != "calibration.json"]
    aliases = []
    for path in models:
        if (folder / f"{path.stem}.recipe.json").is_file():
            continue
        assert path.read_bytes() == SHIPPED.read_bytes(), f"{path.name}: no recipe"
        assert path.stem == f"candidate-{load_model(path.stem).hash}"
        aliases.append(path.stem)
    assert len(aliases) <= 1  # the shipped file under the candidate's name it shipped as
