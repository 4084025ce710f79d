"""Models kept beside the shipped one (candidates, and the models that shipped before it): each
with a recipe that names it and trains it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from script_util import flags, oracle_rows

from bots.value_model import SHIPPED, load_model

CANDIDATES = sorted(SHIPPED.parent.glob("candidate-*.recipe.json"))
PREVIOUS = sorted(SHIPPED.parent.glob("previous-*.recipe.json"))
RECIPES = CANDIDATES + PREVIOUS


def test_there_is_a_candidate_and_the_model_that_shipped_before() -> None:
    assert CANDIDATES and PREVIOUS


@pytest.mark.parametrize("path", RECIPES, ids=lambda p: p.name)
def test_a_kept_model_s_recipe_names_its_file_and_the_fit_that_wrote_it(path: Path) -> None:
    r = json.loads(path.read_text())
    model = load_model(str(path.parent / r["model"]))
    kind = path.name.split("-", 1)[0]  # candidate or previous
    assert model.hash == r["hash"]
    assert r["model"] == f"{kind}-{r['hash']}.json"
    assert path.name == f"{kind}-{r['hash']}.recipe.json"
    assert load_model(f"{kind}-{r['hash']}") is model  # by its bare name
    assert r["hash"] != load_model("").hash  # not the shipped model
    fit = flags(r["commands"][-1])
    t = model.training
    assert [Path(p).name for p in fit["--extra-positions"]] == t["extra_positions"]
    assert int(fit["--extra-weight"][0]) == t["extra_weight"]
    assert int(fit["--seed"][0]) == t["seed"]
    assert Path(fit["--positions"][0]).parent.name == flags(r["commands"][0])["--out"][0]
    # each extra file is written by exactly one earlier command, whose seed the recipe lists
    outs = [flags(c).get("--out", [""])[0] for c in r["commands"][1:-1]]
    for name in fit["--extra-positions"]:
        assert outs.count(name) == 1
        made = flags(r["commands"][1 + outs.index(name)])
        assert int(made["--seed"][0]) == r["seeds"][name]
    rows = r["data"]["rollout rows (decisions, rows)"]
    parts = [v for k, v in rows.items() if not k.startswith("all")]
    assert len(parts) == len(fit["--extra-positions"])
    total = rows["all, each counted 3 times in the fit"]
    assert [sum(p[0] for p in parts), sum(p[1] for p in parts)] == total
    # an expert iteration's generation (train-value --generations --labels rollouts) adds the
    # rollout rows of its window's generations to the same fit
    generated = r["data"].get("generation rows (decisions, rows)", {})
    assert {f"{k}/rollouts.npz": v[1] for k, v in generated.items()} == t.get("generation_rows", {})
    added = total[1] + sum(v[1] for v in generated.values())
    assert t["extra_rows"] == added * t["extra_weight"]


# the shipped model's recipe too: its oracle commands are checked the same way
FIRST_GAMES = [
    (path, name)
    for path in [SHIPPED.parent / "value.recipe.json", *RECIPES]
    for name in json.loads(path.read_text())["data"].get("first games", {})
]


@pytest.mark.parametrize("path,name", FIRST_GAMES, ids=lambda x: getattr(x, "name", x))
def test_an_oracle_command_cut_to_its_first_game_writes_the_file_s_first_rows(
    path: Path, name: str, tmp_path: Path
) -> None:
    """The oracle command that wrote ``name``, cut to its first game, writes the first rows of
    the file the model was fitted on (their count and digest are in its recipe): it fails when
    the games' bots (a model named in ``--seats``) or the scored candidates drift from those the
    data was made with."""
    import shlex
    import sys

    root = Path(__file__).resolve().parents[2]
    r = json.loads(path.read_text())
    check = r["data"]["first games"][name]
    command = next(c for c in r["commands"] if flags(c).get("--out") == [name])
    words = shlex.split(command)
    assert words[:2] == ["python", "tools/value_oracle.py"]
    words[words.index("--games") + 1] = "1"  # the games are played before any is scored
    argv = [sys.executable, str(root / "tools" / "value_oracle.py"), *words[2:]]
    rows, digest = oracle_rows(argv, root, tmp_path / name)
    assert rows == check["rows"]
    assert digest == check["sha256 of x rounded to 6 decimals, margin, win"]
