"""Every shipped bot plays the rules in force: each numeric rule parameter at the ends of its range.

Every whole-number option the registry knows (the base game's and each expansion's and
variant's declarations) is set to its lowest and its highest value (the highest the catalogue
allows, for a black deck), in a game where it matters (its player count, its expansion); the
shipped bots take turns at the seats, each decision checked as legal (``play_game`` checks every
one), and every game must end. The bots' sources must name no rulebook number that is a
parameter: they read the rules in force.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from paths import ROOT

from bots import REGISTRY, make_bot
from projectl_sim import Rules, play_game
from projectl_sim.engine import OVER
from projectl_sim.errors import RulesError
from projectl_sim.registry import option_owner
from projectl_sim.rules import every_option

# each shipped bot at a small budget (the decisions, not their strength, are under test); the
# games of more than two seats seat the planners only (MCTS searching a 6-player game of
# large decks costs a minute), the two-seat games every bot
# (the person's seat, ``interactive``, registers itself when the command line's module is
# imported: left out, so the tests collected do not depend on which module came first)
BOTS = [
    f"{name}:iterations=2" if name == "mcts" else name
    for name, cls in REGISTRY.items()
    if not getattr(cls, "interactive", False)
]
PLANNERS = [b for b in BOTS if not b.startswith("mcts")]


def _seats(name: str, k: int, players: int) -> list[str]:
    """Return the bots seated in the ``k``-th game of parameter ``name``."""
    pool = BOTS if players <= 2 else PLANNERS
    start = (NUMERIC.index(name) * 2 + k) % len(pool)
    return [pool[(start + i) % len(pool)] for i in range(players)]


NUMERIC = [name for name, option in every_option().items() if option.kind is int]


def _setting(name: str) -> dict[str, Any]:
    """Return the rules in which the parameter ``name`` plays a part."""
    deck = re.fullmatch(r"black_deck_(\d)p", name)
    if deck:
        players = int(deck[1])
        return {
            "players": players,
            "variant": "line_clear" if players >= 5 else "standard",
            # more black puzzles than the base game's 20, so a deck may grow past its default
            "expansions": {"ghost_piece", "phoenix"} if players >= 5 else set(),
        }
    owner = option_owner(name)
    if owner is not None and owner[0] == "expansion":
        return {"players": 2, "expansions": {owner[1]}}
    if owner is not None:
        return {"players": 1 if owner[1] == "solo" else 2, "variant": owner[1]}
    return {"players": 2}


def _highest(name: str, setting: dict[str, Any]) -> int:
    """Return the highest value of ``name`` the rules accept in ``setting`` (a black deck is
    capped by the catalogue's black puzzles)."""
    option = every_option()[name]
    low, high = option.default, option.high
    assert high is not None
    while low < high:  # the rules accept the default; find the largest value they accept
        mid = (low + high + 1) // 2
        try:
            Rules(**setting, **{name: mid})
            low = mid
        except RulesError:
            high = mid - 1
    return low


@pytest.mark.parametrize("name", NUMERIC)
def test_every_bot_plays_each_parameter_at_the_ends_of_its_range(name: str) -> None:
    option = every_option()[name]
    setting = _setting(name)
    values = sorted({option.low, _highest(name, setting)})  # type: ignore[arg-type]
    assert values[-1] > option.default or option.default == option.high
    for k, value in enumerate(values):
        rules = Rules(**setting, **{name: value})
        assert getattr(rules, name) == value
        seats = _seats(name, k, rules.players)
        outcome = play_game(rules, [make_bot(s) for s in seats], 7 + k)
        assert outcome.state.phase == OVER, (name, value, seats)


def test_each_bot_meets_the_extremes() -> None:
    """Over the sweep every shipped bot plays at least a few of the parameters' extremes."""
    met = {bot: 0 for bot in BOTS}
    for name in NUMERIC:
        for k in range(2):
            for bot in _seats(name, k, _setting(name)["players"]):
                met[bot] += 1
    assert min(met.values()) >= 3, met


def test_the_bots_name_no_rulebook_number_that_is_a_parameter() -> None:
    """No bot reads a rules parameter's rulebook value: ``max_unfinished`` (4), ``row_size``,
    ``actions_per_turn``, the black decks and Finesse's bank and Insert cost come from the
    rules in force (``state.max_unfinished``, ``state.rules.row_size`` ...)."""
    constants = (
        "MAX_UNFINISHED",
        "ROW_SIZE",
        "ACTIONS_PER_TURN",
        "BLACK_DECK_SIZE",
        "INSERT_COST",
        "FINESSE_BANK",
        "BANK_CREDITS",
    )
    # the unfinished puzzles held against the rulebook's 4 (a strategy's own threshold, such as
    # a Master waiting for a third puzzle, is no rule)
    held = re.compile(r"len\(state\.slots\[[^]]+\]\) >= 4|\bheld >= 4")
    for path in sorted((ROOT / "bots").glob("*.py")):
        text = path.read_text()
        for constant in constants:
            assert not re.search(rf"\b{constant}\b", text), f"{path.name} names {constant}"
        assert not held.search(text), f"{path.name} compares the unfinished count to a number"
