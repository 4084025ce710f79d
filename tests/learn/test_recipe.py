"""The shipped model's recipe: its commands, seeds and data agree with the model file and docs."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from script_util import flags

from bots.value_model import SHIPPED, load_model

ROOT = Path(__file__).resolve().parents[2]
RECIPE = SHIPPED.parent / "value.recipe.json"


def recipe() -> dict:
    return json.loads(RECIPE.read_text())


def test_the_recipe_names_the_shipped_file_s_hash() -> None:
    assert recipe()["hash"] == load_model("").hash
    assert recipe()["model"] == SHIPPED.name


def test_the_last_command_is_the_one_the_model_file_says_trained_it() -> None:
    r = recipe()
    training = load_model("").training
    last = flags(r["commands"][-1])
    first = flags(r["commands"][0])
    assert int(last["--seed"][0]) == training["seed"] == r["seeds"]["held-out games and fit"]
    assert [Path(p).name for p in last["--extra-positions"]] == training["extra_positions"]
    assert int(last["--extra-weight"][0]) == training["extra_weight"]
    assert Path(last["--positions"][0]).name == training["positions_from"]
    assert Path(last["--positions"][0]).parent.name == first["--out"][0]
    assert training["hidden"] == [32] and "--hidden" not in last  # the default
    outcome = r["data"]["outcome rows"]
    assert outcome["training games"] == training["games"]
    assert outcome["training positions"] == training["positions"]
    assert outcome["held-out games"] == training["held_out_games"]
    assert (
        int(first["--games"][0])
        == outcome["games"]
        == training["games"] + outcome["held-out games"]
    )
    assert int(first["--seed"][0]) == r["seeds"]["outcome games"]
    rollouts = r["data"]["rollout rows (decisions, rows)"]
    total = rollouts.pop("all, each counted 3 times in the fit")
    assert total == [sum(v[0] for v in rollouts.values()), sum(v[1] for v in rollouts.values())]
    assert total[1] * training["extra_weight"] == training["extra_rows"]


def test_each_oracle_file_is_made_by_one_command_with_its_seed_before_the_fit() -> None:
    r = recipe()
    made = {}
    for k, command in enumerate(r["commands"][1:-1], start=1):
        f = flags(command)
        made[f["--out"][0]] = k
        assert int(f["--seed"][0]) == r["seeds"][f["--out"][0]]
    assert list(made) == flags(r["commands"][-1])["--extra-positions"]
    rows = r["data"]["rollout rows (decisions, rows)"]
    for name in made:  # each file's own counts, to check a run against
        assert sum(f"({name})" in key for key in rows) == 1
    # each command's measured CPU, by what it writes
    outs = [flags(c)["--out"][0] for c in r["commands"]]
    assert [key.split()[0] for key in r["cpu seconds"]] == outs


def test_the_docs_give_the_recipe_s_commands() -> None:
    page = (ROOT / "docs" / "how-to" / "learning-agents.md").read_text()
    block = page.split("## Train the value bots' evaluation again", 1)[1].split("```console", 1)[1]
    block = block.split("```", 1)[0].replace(" \\\n    ", " ")
    lines = block.strip().splitlines()
    assert lines[0] == "$ python -m projectl_sim.learn.recipe"
    assert lines[1] == f"the shipped model {recipe()['hash']} (value.json) is trained again by:"
    assert lines[2:] == recipe()["commands"]
    assert f"(hash `{recipe()['hash']}`)" in page


def test_the_printed_commands_paste_back_as_the_recipe_s(capsys) -> None:
    from projectl_sim.learn.recipe import main, wrapped

    main()
    out = capsys.readouterr().out
    assert all(len(line) <= 92 for line in out.splitlines())
    assert out.replace(" \\\n    ", " ").splitlines()[1:] == recipe()["commands"]
    assert wrapped("a " * 60).count("\\\n") == 1


# One process plays the commands in turn (the command line's ``main``, the oracle's script run as
# ``__main__``): a process start (numpy, scikit-learn, the compiled engine) costs more than a step.
DRIVER = """
import json, runpy, sys
from projectl_sim.cli import main
for argv in json.loads(sys.argv[1]):
    if argv[0] == "projectl-sim":
        code = main(argv[1:])
        if code:
            sys.exit(code)
    else:
        sys.argv = argv
        runpy.run_path(argv[0], run_name="__main__")
"""


def small(command: str, games: int, every: int) -> list[str]:
    """Return one of the recipe's commands cut to ``games`` games (the fit has none), an oracle's
    at one position in ``every``, with the oracle's script by its path."""
    words = shlex.split(command)
    if "--games" in words:
        words[words.index("--games") + 1] = str(games)
    if words[0] == "projectl-sim":
        return words
    assert words[:2] == ["python", "tools/value_oracle.py"]
    words[words.index("--every") + 1] = str(every)
    return [str(ROOT / "tools" / "value_oracle.py"), *words[2:]]


def test_the_recipe_cut_small_trains_the_same_model_twice(tmp_path: Path) -> None:
    """The recipe's own commands, each cut small (the outcome rows' 12 games, one game of each
    oracle), played twice in separate folders and processes with different string-hash salts,
    write the same rows and the same model file: no step of the recipe is unseeded or depends
    on a set's order. (The full recipe, about 10 CPU-minutes, is checked by hand: its data
    counts and hash are in the recipe file.)"""
    pytest.importorskip("sklearn")
    commands = recipe()["commands"]
    steps = [small(c, 12 if k == 0 else 1, 16) for k, c in enumerate(commands)]
    folders = []
    for salt in ("1", "2"):
        folder = tmp_path / f"run{salt}"
        folder.mkdir()
        env = {**os.environ, "PYTHONHASHSEED": salt, "PYTHONPATH": str(ROOT)}
        argv = [sys.executable, "-c", DRIVER, json.dumps(steps)]
        done = subprocess.run(argv, cwd=folder, env=env, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr[-2000:]
        folders.append(folder)
    a, b = folders
    for name in ["v1b/positions.npz", *[flags(c)["--out"][0] for c in commands[1:-1]]]:
        with np.load(a / name) as x, np.load(b / name) as y:
            assert x.files == y.files and len(x["x"]) > 0
            for key in x.files:
                same_nan = x[key].dtype.kind == "f"
                assert np.array_equal(x[key], y[key], equal_nan=same_nan), (name, key)
    model = flags(commands[-1])["--out"][0] + "/model.json"
    assert (a / model).read_bytes() == (b / model).read_bytes()


def test_the_first_oracle_command_and_each_on_the_previous_model_s_games_are_checked() -> None:
    """The recipe lists the rows of the first game of the 2-player oracle command (it drifts when
    the command's candidate list drifts from the one the data was made with: value's defaults
    changed since) and of commands whose games value plays on the previous model (they drift
    when that model no longer plays as it did when it shipped); tests/learn/test_candidate.py
    plays each of them."""
    r = recipe()
    first = r["data"]["first games"]
    assert flags(r["commands"][1])["--out"][0] == "roll2.npz" in first
    pinned = [c for c in r["commands"] if "--seats value:model=previous-1f4245d84f5c," in c]
    named = {flags(c)["--out"][0] for c in pinned}
    assert len(named) == 6 and len(set(first) & named) >= 3
    # each oracle command names the list it scores, not value's defaults of the day
    assert all("--spec" in c for c in r["commands"] if "value_oracle" in c)
