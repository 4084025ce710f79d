"""What a new user trips over, each fixed: a mistyped flag is one line naming
the closest, ``bots NAME`` describes one bot, ``--quiet`` prints the verdicts only, a run whose
stderr is no terminal still says how long it has left, a user's bot goes by the name it declares,
``play --expansions`` reads a comma as ``run`` does and names what it plays, the human seat's
``?`` explains the game, a stale writer lock does not outlive the next writer, and the demo's
``next:`` lines do what they say."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from test_human import ask, listed_basic

from bots import declared_name
from projectl_sim import Rules, new_game
from projectl_sim.analysis import load_run
from projectl_sim.cli import main
from projectl_sim.cli.run import next_commands
from projectl_sim.sim import runner, tables

GRID = ["--players", "2", "--games", "3", "--seed", "2", "--jobs", "1"]
SMALL = ["--bots", "random", *GRID]

PLACER = """
from bots import Bot


class Placer(Bot):
    name = "{name}"
    summary = "places a piece whenever it can"
    params = {{"eagerness": (1.0, "chance of placing", None)}}

    def act(self, view, rng):
        actions = view.legal_actions(master="none")
        places = [a for a in actions if a.kind == "place"]
        eager = places and rng.random() < self.options["eagerness"]
        return rng.choice(places if eager else actions)
"""


def _err_line(capsys: pytest.CaptureFixture[str]) -> str:
    said = capsys.readouterr()
    lines = said.err.strip().splitlines()
    assert len(lines) == 1 and "usage:" not in said.err and not said.out, said
    return lines[0]


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["run", "--seeds", "3", "--bots", "greedy"], "unknown flag --seeds (did you mean --seed?"),
        (["play", "--sed=3"], "projectl-sim play: error: unknown flag --sed (did you mean --seed?"),
        (["run", "--expansion", "ghost"], "could match --expansions, --expansion-file"),
        (["run", "--games", "many"], "argument --games: invalid int value: 'many'"),
        (["puzzle", "check", "--expansionz", "x", "f"], "puzzle check: error: unknown flag"),
        (["summary", "a", "b"], "unexpected argument 'b'"),
    ],
)
def test_a_flag_mistake_is_one_line_naming_the_closest_flag(
    argv: list[str], expected: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    assert expected in _err_line(capsys)


def test_bots_names_one_bot_and_refuses_an_unknown_one(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bots", "greedy", "mcts:iterations=5"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0].startswith("strength: ")  # the scale of the ratings, said once
    heads = [line.split(":")[0] for line in lines[1:] if not line.startswith(" ")]
    assert heads == ["greedy", "mcts"]  # those asked for, in that order, with their parameters
    assert "    preset='balanced'" in out
    assert main(["bots", "gredy"]) == 2
    assert "unknown bot 'gredy' (did you mean 'greedy'?" in _err_line(capsys)


def test_quiet_prints_the_verdicts_and_where_the_rest_is(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "quiet"
    assert main(["run", *SMALL, "--expansions", "none,ghost", "--out", str(out), "--quiet"]) == 0
    said = capsys.readouterr()
    lines = said.out.strip().splitlines()
    assert lines[0].startswith("6 games, 0 failed") and len(lines) < 12, said.out
    assert any("no detectable change in the first player's win rate" in li for li in lines)
    assert lines[-1] == f"the full answers: projectl-sim summary {out}"
    assert said.err == ""  # no progress, no info lines, no next commands
    assert main(["summary", str(out)]) == 0
    assert "== Win-rate tables ==" in capsys.readouterr().out  # the rest is there


def test_a_run_without_a_terminal_prints_the_time_left(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(runner, "PROGRESS_SECONDS", 0.0)  # a line at every game
    assert main(["run", *SMALL, "--out", str(tmp_path / "eta")]) == 0
    err = capsys.readouterr().err.splitlines()  # captured: no terminal
    progress = [line for line in err if " games (" in line]
    assert re.fullmatch(r"3/3 games \(100%\), \d\d:\d\d elapsed, about 00:00 left", progress[-1])
    during = r"[12]/3 games \(\d+%\), \d\d:\d\d elapsed, about \S+ left"
    assert any(re.fullmatch(during, line) for line in progress), progress
    assert all("\r" not in line for line in err)  # lines of their own, no redrawn bar
    monkeypatch.setattr(runner, "PROGRESS_SECONDS", 3600.0)  # a short run: its last line says it
    assert main(["run", *SMALL, "--out", str(tmp_path / "short")]) == 0
    assert " games (" not in capsys.readouterr().err


def test_a_users_bot_goes_by_the_name_it_declares(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("placer.py").write_text(PLACER.format(name="placer"))
    Path("other.py").write_text(PLACER.format(name="placer"))  # the same name twice
    Path("plain.py").write_text(PLACER.format(name="bot"))  # no name of its own
    lineups = ["placer.py:Placer,random", "placer.py:Placer:eagerness=0.5,random"]
    argv = ["run", *GRID, *(a for lu in lineups for a in ("--bots", lu)), "--out", "own"]
    assert main([*argv, "--quiet"]) == 0
    capsys.readouterr()
    source = f"{tmp_path / 'placer.py'}:Placer"
    assert tables.read_manifest("own")["bot_names"] == {source: "placer"}
    stored = tables.read_table(Path("own"), "seats").to_pandas()
    # the files name it as the summary does, the spec that rebuilds it beside the name
    assert set(stored["bot"]) == {"placer", "placer:eagerness=0.5", "random"}
    assert set(stored["bot_spec"]) == {source, f"{source}:eagerness=0.5", "random"}
    won = tables.read_table(Path("own"), "games").to_pandas()["winning_bots"].dropna()
    assert set(won) <= {"placer", "placer:eagerness=0.5", "random"} and len(won)
    # the resume check finds the seats it planned (by their specs) and the grown games named too,
    # also in a run written before the configurations held the names
    manifest = tables.read_manifest("own")
    assert {s: n for c in manifest["configs"] for s, n in c["bot_names"].items()} == {
        source: "placer"
    }
    for config in manifest["configs"]:
        del config["bot_names"]
    Path("own", "manifest.json").write_text(json.dumps(manifest))
    assert main(["run", "--out", "own", "--resume", "--games", "6", "--quiet"]) == 0
    grown = tables.read_table(Path("own"), "seats").to_pandas()
    assert len(grown) > len(stored) and set(grown["bot"]) == set(stored["bot"])
    run = load_run("own")
    assert set(run.seats["bot"]) == {"placer", "placer:eagerness=0.5", "random"}
    assert set(run.games["lineup"]) == {"placer,random", "placer:eagerness=0.5,random"}
    assert main(["summary", "own"]) == 0
    text = capsys.readouterr().out
    assert "placer:eagerness=0.5" in text and str(tmp_path) not in text
    assert main(["play", "--from", "own", "--game", "0"]) == 0  # the table's spec still builds it
    assert "seat 0 placer " in capsys.readouterr().out  # and play names it as the summary does
    assert declared_name(f"{tmp_path / 'plain.py'}:Placer") is None
    clash = [f"{tmp_path / f}:Placer" for f in ("placer.py", "other.py")]
    configs = [type("C", (), {"lineup": (s, "random")})() for s in clash]
    assert runner.bot_names(configs) == {}  # two bots called placer: both keep their paths


def test_play_takes_one_expansion_set_and_names_it(capsys: pytest.CaptureFixture[str]) -> None:
    base = ["play", "--bots", "random,random", "--seed", "1"]
    assert main([*base, "--expansions", "ghost,finesse"]) == 2
    line = _err_line(capsys)
    assert "play plays one game, on one expansion set" in line and "(ghost+finesse)" in line
    assert main([*base, "--expansions", "ghost+finesse"]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first.startswith("seed 1, 2 players, expansions ghost_piece+finesse (provisional")
    assert main(base) == 0
    assert capsys.readouterr().out.startswith("seed 1, 2 players, no expansion, first player")


def test_the_help_of_a_persons_seat_explains_the_game_under_the_rules_in_force() -> None:
    state = new_game(Rules(players=2, actions_per_turn=2, unfinished_penalty=False), seed=4)
    _, script = ask(state, ["?", listed_basic])
    text = " ".join(script.text.split())  # wrapped to the terminal
    assert "type the number of an action" in text  # the input, as before
    assert "The game: each turn is 2 actions" in text  # ...and the game, as these rules play it
    assert "unfinished puzzles score 0" in text and "recycle a whole row" in text
    solo = new_game(Rules(players=1, variant="solo"), seed=4)
    _, script = ask(solo, ["?", listed_basic])
    text = " ".join(script.text.split())
    assert "each turn is 3 actions" in text and "a tie is its win" in text
    assert "recycle a whole row" not in text  # no Recycle in solo


def test_a_stale_writer_lock_is_gone_once_the_run_is_finished(tmp_path: Path) -> None:
    out = tmp_path / "run"
    assert main(["run", *SMALL, "--out", str(out), "--quiet"]) == 0
    # a writer killed with -9 leaves its file behind, held by nobody
    dead = {"pid": 999999, "host": "elsewhere", "since": "2026-01-01T00:00:00+00:00"}
    (out / tables.LOCK).write_text(json.dumps(dead) + "\n")
    assert tables.lock_holder(out) is None
    assert main(["run", "--out", str(out), "--resume", "--games", "5", "--quiet"]) == 0
    assert not (out / tables.LOCK).exists()
    left = {f for f in os.listdir(out) if not f.endswith(".parquet")}
    assert left == {"manifest.json"}  # the tables and the manifest: no lock, no reserve


def test_the_next_lines_do_what_they_say(tmp_path: Path) -> None:
    out = tmp_path / "demo"
    assert main(["run", *SMALL, "--out", str(out), "--quiet"]) == 0
    lines = next_commands(out).splitlines()
    step = [line for line in lines if "move by move" in line]
    # the game stepped through in a page; play --show draws only the final table
    assert len(step) == 1 and f"projectl-sim view --from {out} --game 0" in step[0]
    assert not any("--show" in line for line in lines)
