"""The compiled build of the hot loop (mypyc, see setup.py) and its pure Python source play the
same games, and an edited source is never shadowed by a stale build."""

from __future__ import annotations

import ast
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from projectl_sim import _native

# A few games of every hot path: the base game at 2-4 players, the expansions together, Line
# Clear, solo, and the greedy bot (which calls the engine and the tiling index all the time).
GAMES = """
import json
from bots import make_bot
from projectl_sim import Rules, play_game
from projectl_sim._native import compiled

every = ("ghost_piece", "ambassador_pack", "finesse", "phoenix")
configs = [
    (Rules(players=2), ["random", "random"], 12),
    (Rules(players=4), ["random"] * 4, 4),
    (Rules(players=3, expansions=every), ["random", "greedy", "random"], 4),
    (Rules(players=5, variant="line_clear"), ["random"] * 5, 2),
    (Rules(players=1, variant="solo"), ["greedy"], 4),
    (Rules(players=2, expansions=("ghost_piece",)), ["greedy", "random"], 3),
]
records = [
    play_game(rules, [make_bot(b) for b in bots], seed).record_json()
    for rules, bots, n in configs
    for seed in range(n)
]
print(json.dumps({"compiled": compiled(), "records": records}))
"""


# Golden records with one or two fields replaced by a value of another type (or removed), each
# replayed: the outcome, or the error's type and message.
MALFORMED = """
import copy, json, random, sys
from pathlib import Path
from projectl_sim import replay
from projectl_sim._native import compiled
from projectl_sim.loading import catalogue_from_dict

VALUES = [None, 0, -1, 2, 99, 10**30, 1.5, True, "x", "W05", "mono", "white", [], [0], [[9, 9]],
          {}, {"a": 1}, "remove"]

def paths(obj, at=()):
    if at:
        yield at
    if isinstance(obj, dict):
        children = list(obj.items())
    else:
        children = list(enumerate(obj)) if isinstance(obj, list) else []
    for key, value in children:
        yield from paths(value, (*at, key))

def put(obj, at, value):
    for key in at[:-1]:
        obj = obj[key]
    if value == "remove":
        del obj[at[-1]]
    else:
        obj[at[-1]] = value

rng = random.Random(20261129)
records = [json.loads(p.read_text()) for p in sorted(Path(sys.argv[1]).rglob("*.json"))]
out = []
for _ in range(400):
    record = copy.deepcopy(rng.choice(records))
    for _ in range(rng.choice([1, 1, 2])):
        put(record, rng.choice(list(paths(record))), rng.choice(VALUES))
    try:
        done = replay(record)
        out.append(["ok", done.state.phase, list(done.state.scores)])
    except Exception as exc:
        out.append([type(exc).__name__, str(exc)])
catalogue = json.loads(Path(sys.argv[2]).read_text())
VALUES += [["#####"], 16, 500]
for _ in range(200):  # catalogues: loading checks every recess with the (compiled) tiling index
    data = copy.deepcopy(catalogue)
    for _ in range(rng.choice([1, 2])):
        put(data, rng.choice(list(paths(data))), rng.choice(VALUES))
    try:
        out.append(["ok", len(catalogue_from_dict(data, source="mutated").puzzles)])
    except Exception as exc:
        out.append([type(exc).__name__, str(exc)])
print(json.dumps({"compiled": compiled(), "records": out}))
"""


def _run(pure: bool, script: str = GAMES, *args: str) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "PROJECTL_SIM_PURE"}
    if pure:
        env["PROJECTL_SIM_PURE"] = "1"
    out = subprocess.run(
        [sys.executable, "-c", script, *args], env=env, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_the_compiled_and_the_pure_build_play_the_same_games() -> None:
    built = all(_native._built(rel) for rel in _native.MODULES.values())
    default, pure = _run(pure=False), _run(pure=True)
    assert pure["compiled"] is False  # PROJECTL_SIM_PURE=1 runs the source
    # the build runs whenever it exists and matches its source
    assert default["compiled"] is (built and not _native._stale())
    if os.environ.get("CI") == "true":
        assert default["compiled"], "CI installs as users do: the hot loop must compile"
    assert default["records"] == pure["records"]
    assert len(default["records"]) == 29


def test_both_builds_reject_malformed_records_and_catalogues_alike() -> None:
    """Compiled code checks declared types on entry: record and catalogue data must be checked
    before it reaches a typed parameter, so that both builds raise the same one-line errors."""
    import projectl_sim

    folder = str(Path(__file__).parent / "records")
    catalogue = str(Path(projectl_sim.__file__).parent / "data" / "base_catalogue.json")
    default = _run(False, MALFORMED, folder, catalogue)
    pure = _run(True, MALFORMED, folder, catalogue)
    assert pure["compiled"] is False
    assert default["records"] == pure["records"]
    kinds = {outcome[0] for outcome in pure["records"]}
    # the mutations reach every outcome: played, malformed, illegal, bad catalogue
    assert {"ok", "RecordError", "IllegalActionError", "CatalogueError"} <= kinds
    assert "TypeError" not in kinds and "AttributeError" not in kinds


def test_setup_compiles_exactly_the_modules_the_selector_knows() -> None:
    """setup.py (which cannot import the package) reads the modules to compile from
    _native.MODULES's source: run its NATIVE expression and compare."""
    tree = ast.parse((Path(__file__).parent.parent / "setup.py").read_text())
    native = next(
        node
        for node in tree.body
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "NATIVE"
    )
    scope = {"ast": ast, "HERE": Path(__file__).parent.parent}
    exec(compile(ast.Module([native], []), "setup.py", "exec"), scope)
    assert scope["NATIVE"] == sorted(_native.MODULES.values())
    assert all((Path(__file__).parent.parent / rel).is_file() for rel in scope["NATIVE"])


def test_a_source_edited_since_the_build_is_named_stale(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    digests = {
        rel: hashlib.sha256((_native._ROOT / rel).read_bytes()).hexdigest()
        for rel in _native.MODULES.values()
    }
    stamp = tmp_path / "stamp.json"
    monkeypatch.setattr(_native, "_STAMP", stamp)
    assert _native._stale() == list(_native.MODULES.values())  # no record of a build
    stamp.write_text(json.dumps(digests))
    assert _native._stale() == []
    stamp.write_text(json.dumps({**digests, "projectl_sim/tiling/fill.py": "0" * 64}))
    assert _native._stale() == ["projectl_sim/tiling/fill.py"]
