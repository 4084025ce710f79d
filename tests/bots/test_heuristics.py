"""The planner's cost model (``bots.heuristics.CostModel``) against a plain restatement."""

from __future__ import annotations

import random

import pytest

from bots.heuristics import _SCAN, UNREACHABLE, cost_model
from projectl_sim import Rules
from projectl_sim.engine import new_game
from projectl_sim.engine.dealing import deal


def _reference(model, empty: int, supply: list[int]) -> int:  # type: ignore[no-untyped-def]
    """Return the actions to complete ``empty``: a fitting tiling's placements, else the best
    of the first tilings' placements plus the actions that get each missing piece (a spare
    piece handed out highest level first, one action a level climbed, at least one; from
    nothing, the piece's level), every tiling scanned."""
    index = model.index
    vecs = index.vectors(empty)
    for v in vecs:
        need = index.unpack(v)
        if all(need[i] <= supply[i] for i in range(model.n)):
            return index.size(v)
    best = UNREACHABLE
    for v in vecs[:_SCAN]:
        need = index.unpack(v)
        if any(need[g] > supply[g] for g in model.ghosts):
            continue
        spare = [0] * (model.max_level + 1)
        for i in range(model.n):
            if supply[i] > need[i]:
                spare[model.levels[i]] += supply[i] - need[i]
        extra = 0
        for i in range(model.n):
            for _ in range(max(0, need[i] - supply[i])):
                lv = model.levels[i]
                top = max([k for k in range(1, len(spare)) if spare[k]], default=0)
                if top:
                    spare[top] -= 1
                    extra += max(1, lv - top)
                else:
                    extra += lv
        best = min(best, index.size(v) + extra)
    return best


@pytest.mark.parametrize("expansions", [(), ("ghost_piece",)])
def test_the_cost_of_a_puzzle_is_the_plain_scan_s(expansions: tuple[str, ...]) -> None:
    """Short supplies included: the acquisition estimate stops scanning early, and must not
    change its answer by it."""
    rules = Rules(players=2, expansions=expansions)
    state = new_game(rules, setup=deal(rules, random.Random(3)))
    model = cost_model(state)
    rng = random.Random(5)
    t = model.tab
    short = 0
    for _ in range(400):
        card = rng.randrange(len(t.recess))
        filled = 0
        for cell in range(25):
            if t.recess[card] >> cell & 1 and rng.random() < 0.2:
                filled |= 1 << cell
        empty = t.recess[card] & ~filled
        supply = [rng.choice((0, 0, 0, 1, 1, 2)) for _ in range(model.n)]
        want = _reference(model, empty, supply)
        assert model.cost(empty, supply)[0] == want
        short += index_misses(model, empty, supply)
    assert short > 100  # most supplies here are short: the estimate is what is tested


def index_misses(model, empty: int, supply: list[int]) -> int:  # type: ignore[no-untyped-def]
    """Return 1 when no tiling of ``empty`` fits ``supply``."""
    return int(empty != 0 and model.index.first(empty, supply) is None)


def test_cached_costs_answer_each_supply_as_its_own() -> None:
    """The cache keys a supply 3 bits a count and a count above 7 another way: supplies that
    such a key would confuse (8 of a piece and 1 of the next) get their own answers, asked
    fresh and again from the cache, and ``cost_with`` answers as ``cost``."""
    rules = Rules(players=2)
    state = new_game(rules, setup=deal(rules, random.Random(4)))
    model = cost_model(state)
    t = model.tab
    rng = random.Random(6)
    asked = []
    for _ in range(300):
        card = rng.randrange(len(t.recess))
        supply = [rng.choice((0, 0, 1, 2, 7, 8, 9)) for _ in range(model.n)]
        asked.append((t.recess[card], supply))
        base = [0] * model.n
        base[1] = 1
        wide = [0] * model.n
        wide[0] = 8
        asked += [(t.recess[card], base), (t.recess[card], wide)]
    wide_keys = 0
    for _ in range(2):  # the second pass answers from the cache
        for empty, supply in asked:
            want = _reference(model, empty, supply)
            assert model.cost(empty, supply)[0] == want
            assert model.cost_with(empty, supply, model.code(supply))[0] == want
            wide_keys += model.code(supply) < 0
    assert wide_keys > 100  # supplies the 3-bit key can't hold are tested
