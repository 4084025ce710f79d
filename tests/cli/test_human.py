"""The human seat: ``projectl-sim play --bots human,greedy`` driven in a pseudo-terminal (pexpect)
through a whole short game, with help, a bad input, undo and Finishing Touches; leaving at the
end of input; the dialogs on a scripted terminal; and ``run`` refusing a person.

The short game plays a catalogue of 8 white and 4 black puzzles: the black deck is empty from
the start, so the game is two rounds and Finishing Touches. ``HUMAN_LOG=FILE`` keeps what the
terminal showed.
"""

from __future__ import annotations

import json
import os
import random
import re
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from records_util import load, prefix

import projectl_sim
from projectl_sim import Rules, new_game
from projectl_sim.cli import main
from projectl_sim.cli.human import HumanBot, Terminal
from projectl_sim.engine import GameState
from projectl_sim.engine.actions import Action, Master, Place, Recycle, Reward, Take, TakeBasic
from projectl_sim.engine.record import read_record, replay

pexpect = pytest.importorskip("pexpect")

SMALL = {"W01", "W02", "W03", "W04", "W05", "W06", "W07", "W08", "B01", "B02", "B03", "B04"}
PROMPTS = [
    r"seat 0> ",
    r"placement \([^)]*\)> ",
    r"piece> ",
    r"order> ",
    r"pay how many[^>]*> ",
    pexpect.EOF,
]


@pytest.fixture(scope="module")
def small_catalogue(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = Path(projectl_sim.__file__).parent / "data" / "base_catalogue.json"
    data = json.loads(base.read_text(encoding="utf-8"))
    data["puzzles"] = [p for p in data["puzzles"] if p["id"] in SMALL]
    path = tmp_path_factory.mktemp("catalogue") / "small.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def spawn(*args: str, cwd: Path) -> pexpect.spawn:
    env = {k: v for k, v in os.environ.items() if k not in ("PROJECTL_SIM_PURE", "COLUMNS")}
    log = os.environ.get("HUMAN_LOG")
    return pexpect.spawn(
        sys.executable,
        ["-m", "projectl_sim", "play", *args],
        cwd=str(cwd),
        env=env,
        encoding="utf-8",
        timeout=60,
        dimensions=(50, 110),
        logfile=open(log, "a", encoding="utf-8") if log else None,
    )


def menu(text: str) -> dict[str, list[tuple[int, str]]]:
    """Return the numbered entries of the last menu in ``text``, by group."""
    out: dict[str, list[tuple[int, str]]] = {}
    group = ""
    for line in text.splitlines():
        head = re.match(r"^(\w+)\s{2,}(?=\s*\d+ )", line)
        if head:
            group = head.group(1)
            if group in out and line.startswith(group):
                out[group] = []  # a later menu: start again
        elif not line.startswith("  "):
            continue
        for n, label in re.findall(r"(\d+) (.+?)(?=\s{3}\d+ |\s*$)", line):
            out.setdefault(group, []).append((int(n), label))
    return out


def lines_between(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.strip()]


def test_a_person_plays_a_whole_game_against_greedy(small_catalogue: Path, tmp_path: Path) -> None:
    record = tmp_path / "game.json"
    child = spawn(
        "--seed", "3", "--bots", "human,greedy", "--catalogue", str(small_catalogue),
        "--record", str(record),
        cwd=tmp_path,
    )  # fmt: skip
    child.expect("type \\? for help")
    did = set()
    finished = False
    while True:
        which = child.expect(PROMPTS)
        before = child.before
        if which == 5:
            break
        if which == 1:  # a placement: the first drawn one
            assert "# = the new piece" in before
            child.sendline("1")
            continue
        if which in (2, 3):
            child.sendline("")  # the first piece / the row's order as it lies
            continue
        if which == 4:
            child.sendline("")
            continue
        if "bad" not in did:
            # a bad input: one line, and the same prompt again (no menu drawn again)
            did.add("bad")
            child.sendline("nonsense")
            child.expect(r"seat 0> ")
            said = lines_between(child.before)
            assert (
                said[1:] == [said[1]]
                and "not an option: 'nonsense' (type a number from 1 to" in said[1]
            )
            child.sendline("?")
            child.expect(r"seat 0> ")
            # the input, then the game under the rules in force (its end: Finishing Touches)
            assert "undo" in child.before and "Then Finishing Touches" in child.before
            assert "m mono" in child.before  # the letters of the drawings
            before = child.before
        entries = menu(before)
        if "finish" in entries:
            finished = True
            complete = [n for n, label in entries["finish"] if label.startswith("complete")]
            child.sendline(str(complete[0] if complete else entries["finish"][0][0]))
            continue
        if "undo-done" not in did and "you: place" in before:
            did.add("undo-done")
            child.sendline("undo")
            child.expect(r"taking back: place \S+ on \S+")
            continue
        if "place" in entries:
            child.sendline(str(entries["place"][0][0]))
        elif "take" in entries and len(entries.get("place", [])) < 2 and "took" not in did:
            did.add("took")
            white = [n for n, label in entries["take"] if label.startswith("W")]
            child.sendline(str(white[0]))
        else:
            basic = [n for n, label in entries["upgrade"] if label.startswith("take a")]
            child.sendline(str(basic[0]))
    child.close()
    out = child.before
    assert child.exitstatus == 0, out
    assert finished and {"bad", "undo-done", "took"} <= did
    assert "winners:" in out and f"record written to {record}" in out
    assert "Traceback" not in out
    rec = read_record(record)
    assert rec["seats"] == ["human", "greedy"]
    assert all("seconds" in a for a in rec["actions"])
    assert main(["replay", str(record), "--catalogue", str(small_catalogue)]) == 0
    # the undone placement left no trace: the record replays to the result it states
    assert replay(rec, projectl_sim.load_catalogue(str(small_catalogue))).state.is_over


def test_the_end_of_input_leaves_the_game_and_keeps_the_record(
    small_catalogue: Path, tmp_path: Path
) -> None:
    child = spawn(
        "--seed", "3", "--bots", "human,greedy", "--catalogue", str(small_catalogue),
        cwd=tmp_path,
    )  # fmt: skip
    child.expect(r"the record will be written to (\S+)\r?\n")
    path = tmp_path / child.match.group(1)
    child.expect(r"seat 0> ")
    child.sendline(str(menu(child.before)["upgrade"][0][0]))  # one action, then Ctrl-D
    child.expect(r"seat 0> ")
    child.sendeof()
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 1
    assert "end of input: the game so far (1 actions) is in" in child.before
    assert "Traceback" not in child.before
    rec = read_record(path)
    assert len(rec["actions"]) == 1 and "result" not in rec
    assert str(path).startswith(str(tmp_path / "results" / "games"))


def test_the_person_is_never_shown_the_seed_that_deals_the_decks(
    small_catalogue: Path, tmp_path: Path
) -> None:
    # ``play --seed S`` deals the same decks again: a person who saw S could look ahead
    child = spawn("--bots", "human,greedy", "--catalogue", str(small_catalogue), cwd=tmp_path)
    child.expect(r"the record will be written to (\S+)\r?\n")
    path = tmp_path / child.match.group(1)
    shown = child.before + child.after
    child.expect(r"seat 0> ")
    shown += child.before
    child.sendeof()
    child.expect(pexpect.EOF)
    child.close()
    seed = read_record(path)["seed"]
    assert re.search(rf"\b{seed}\b", shown) is None
    assert "you play seat 0 against seat 1 greedy" in shown


def test_run_refuses_a_person_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--bots", "human,greedy", "--games", "2", "--quiet"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "a person at the terminal" in err[0] and "play --bots" in err[0]


# -- the dialogs, on a scripted terminal -----------------------------------------------------------
class Script:
    """A terminal whose person answers from a list: each answer is text, or a function of the
    prompt and everything written so far; past the end of the list, the input ends."""

    def __init__(self, answers: list[str | Callable[[str, str], str]]) -> None:
        self.answers = list(answers)
        self.said: list[str] = []
        self.terminal = Terminal(["human", "random"], [0], read=self.read, write=self.said.append)

    def read(self, prompt: str) -> str:
        self.said.append(prompt)
        if not self.answers:
            raise EOFError
        answer = self.answers.pop(0)
        return answer if isinstance(answer, str) else answer(prompt, self.text)

    @property
    def text(self) -> str:
        return "\n".join(self.said)


def ask(state: GameState, answers: list[str | Callable[[str, str], str]]) -> tuple[Action, Script]:
    """Return what a person answering ``answers`` decides for the seat to move."""
    script = Script(answers)
    bot = HumanBot()
    bot.terminal = script.terminal
    return bot(state.view(state.current), random.Random(0)), script


def listed(text: str, pattern: str) -> str:
    """Return the number of the last menu entry matching ``pattern``."""
    found = re.findall(r"(\d+) " + pattern, text)
    assert found, pattern
    return str(found[-1])


def first_option(prompt: str, text: str) -> str:
    return "1"


def game_with_two_puzzles() -> GameState:
    state = new_game(Rules(players=2), seed=4)
    while state.current != 0:
        state.step(state.current, TakeBasic())
    for card in state.rows[0][:2]:
        state.step(0, Take(card))
    return state


def test_master_asks_each_puzzle_in_turn_and_builds_one_action() -> None:
    state = game_with_two_puzzles()
    master = lambda prompt, text: listed(text, "a piece into each puzzle")  # noqa: E731
    action, _ = ask(state, [master, first_option, first_option, first_option, first_option])
    assert isinstance(action, Master) and len(action.placements) == 2
    assert {c for c, _, _ in action.placements} == set(state.unfinished(0))
    state.check(0, action)


def test_a_place_picks_the_puzzle_then_a_drawn_placement_and_b_goes_back() -> None:
    state = game_with_two_puzzles()
    card = state.unfinished(0)[1]
    name = state.tables.cat.puzzles[card].id
    place = lambda prompt, text: listed(text, f"on {name} ")  # noqa: E731
    action, script = ask(state, [place, "b", place, first_option, first_option])
    assert isinstance(action, Place) and action.card == card
    assert script.text.count(f"placements on {name}") + script.text.count(f"{name}: which") >= 2
    state.check(0, action)


def test_recycle_asks_the_order_and_a_bad_order_is_one_line() -> None:
    state = new_game(Rules(players=2), seed=4)
    recycle = lambda prompt, text: listed(text, "white row")  # noqa: E731
    action, script = ask(state, [recycle, "9 9", "4 3 2 1"])
    assert isinstance(action, Recycle) and action.order == tuple(reversed(state.rows[0]))
    assert script.said[-2].startswith("not an order of 1 to 4")


def test_a_reward_is_asked_when_several_shapes_qualify() -> None:
    record = load("reward_choice")
    at = next(i for i, a in enumerate(record["actions"]) if a["type"] == "reward")
    state = replay(prefix(record, at)).state
    assert state.phase == "reward" and len(state.reward_options) > 1
    action, script = ask(state, ["2"])
    assert action == Reward(state.reward_options[1])
    assert "choose a reward piece" in script.text


def test_nothing_to_undo_is_one_line_and_the_same_prompt() -> None:
    state = new_game(Rules(players=2), seed=4)
    action, script = ask(state, ["undo", "?", listed_basic])
    assert action == TakeBasic()
    i = next(k for k, line in enumerate(script.said) if line.startswith("nothing to undo"))
    assert script.said[i - 1] == script.said[i + 1] == "seat 0> "  # one line between prompts
    assert script.said[i] == "nothing to undo: this game keeps no actions to take back"


def listed_basic(prompt: str, text: str) -> str:
    return listed(text, "take a mono")


def test_ctrl_c_at_a_prompt_leaves_the_game_too(small_catalogue: Path, tmp_path: Path) -> None:
    record = tmp_path / "left.json"
    child = spawn(
        "--seed", "3", "--bots", "human,greedy", "--catalogue", str(small_catalogue),
        "--record", str(record),
        cwd=tmp_path,
    )  # fmt: skip
    child.expect(r"seat 0> ")
    child.sendintr()
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 130
    assert "interrupted: the game so far (0 actions)" in child.before
    assert "Traceback" not in child.before
    assert read_record(record)["actions"] == []
