"""A house rule written in this file alone plugs into the engine (docs/reference/architecture.md).

The rule: every black puzzle completed during a turn also pays one mono from the reserve (none
when the reserve has no mono left; Finishing Touches pay nothing, as they give no reward). It is
an ``Expansion`` subclass with one hook and a block counting the monos paid; nothing in the
package knows it. Random games with it keep every invariant after every action (the engine's
piece conservation holds: the mono moves from the reserve to the supply), their records name
the rule and replay to the same result, and the rule changes what happens: the monos it pays
are exactly one per black puzzle completed while the reserve had one.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, ClassVar

import pytest

from bots import make_bot
from projectl_sim import Expansion, GameState, Rules, RulesError, play_game
from projectl_sim.engine.actions import from_json
from projectl_sim.engine.invariants import InvariantError, check_invariants
from projectl_sim.engine.record import replay
from projectl_sim.registry import register_expansion, unregister_expansion


class BlackMono(Expansion):
    """House rule: a completed black puzzle pays one mono too."""

    name: ClassVar[str] = "black_mono"

    def start(self, state: GameState, setup: dict[str, Any]) -> Any:
        return [0] * state.n  # the monos paid to each player: a list, copied with the state

    def copy_block(self, block: Any) -> Any:
        return block[:]

    def puzzle_completed(self, state: GameState, player: int, card: int) -> None:
        t = state.tables
        if t.is_black[card] and state.reserve[t.mono]:
            state.reserve[t.mono] -= 1
            state.supply[player][t.mono] += 1
            state.blocks[self.slot][player] += 1

    def result_json(self, state: GameState, result: dict[str, Any]) -> None:
        result["black_monos"] = list(state.blocks[self.slot])

    result_keys: ClassVar[tuple[str, ...]] = ("black_monos",)

    def check_invariants(self, state: GameState) -> None:
        paid = state.blocks[self.slot]
        for p in range(state.n):
            blacks = sum(1 for c in state.piles[p] if c >= 0 and state.tables.is_black[c])
            if not 0 <= paid[p] <= blacks:
                raise InvariantError(f"player {p}: {paid[p]} black monos for {blacks} blacks")


@pytest.fixture
def house_rule() -> Iterator[None]:
    register_expansion(BlackMono)
    try:
        yield
    finally:
        unregister_expansion(BlackMono.name)


def _games(rules: Rules, bots: str, seeds: range) -> Iterator[Any]:
    for seed in seeds:
        yield (
            seed,
            play_game(
                rules,
                [make_bot(bots)] * rules.players,
                seed,
                on_step=lambda state, seat, action: check_invariants(state),
            ),
        )


@pytest.mark.parametrize(
    "settings",
    [
        {"players": 2},
        {"players": 3, "expansions": {"finesse", "ghost_piece"}},
        {"players": 1, "variant": "solo"},
        {"players": 5, "variant": "line_clear"},
    ],
)
def test_a_house_rule_plays_keeps_the_invariants_and_replays(
    house_rule: None, settings: dict[str, Any]
) -> None:
    expansions = {"black_mono", *settings.pop("expansions", ())}
    rules = Rules(expansions=expansions, **settings)
    paid_any = False
    for seed, outcome in _games(rules, "greedy", range(3)):
        state = outcome.state
        record = outcome.record_json()
        assert "black_mono" in record["rules"]["expansions"]
        paid = record["result"]["black_monos"]
        blacks = [sum(state.tables.is_black[c] for c in state.piles[p]) for p in range(state.n)]
        assert all(0 <= k <= b for k, b in zip(paid, blacks, strict=True))
        paid_any = paid_any or any(paid)
        again = replay(record).state  # the record replays with the rule, result checked
        assert again.final_scores() == state.final_scores(), seed
    assert paid_any  # greedy completes black puzzles: the rule paid monos


def test_the_rule_pays_one_mono_per_black_puzzle_completed(house_rule: None) -> None:
    # Up to the first black puzzle completed, a game plays the same with and without the rule;
    # that action then leaves the rule's player exactly one mono more (one fewer in the reserve)
    # and nothing else different.
    rules = Rules(players=2, expansions={"black_mono"})
    compared = 0
    for seed in range(6):
        record = play_game(rules, [make_bot("greedy")] * 2, seed).record_json()
        state = replay({**record, "actions": [], "result": None}).state
        for n, raw in enumerate(record["actions"]):  # noqa: B007 (n is read after the loop)
            seat, action = from_json(raw, state.catalogue)
            blacks = sum(state.tables.is_black[c] for c in state.piles[seat])
            in_play = state.phase == "play"
            state.step(seat, action)
            if in_play and sum(state.tables.is_black[c] for c in state.piles[seat]) > blacks:
                break
        else:
            continue
        prefix = {**record, "actions": record["actions"][: n + 1], "result": None}
        base = replay({**prefix, "rules": {**record["rules"], "expansions": []}}).state
        mono = state.tables.mono
        assert state.supply[seat][mono] == base.supply[seat][mono] + 1
        assert state.reserve[mono] == base.reserve[mono] - 1
        assert state.piles == base.piles and state.slots == base.slots
        compared += 1
    assert compared >= 3


def test_without_registering_the_rule_is_unknown() -> None:
    with pytest.raises(RulesError, match="unknown expansion 'black_mono'"):
        Rules(players=2, expansions={"black_mono"})
