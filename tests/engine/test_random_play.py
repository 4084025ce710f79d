"""Random play: invariants after every action, records that replay, legal actions that are exact."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from state_util import listing_matches_check

from bots import make_bot
from projectl_sim import Rules, play_game
from projectl_sim.engine import OVER, PLAY, GameState, new_game
from projectl_sim.engine.actions import Place, Recycle, Take, TakeBasic, TakeDeck, Upgrade
from projectl_sim.engine.invariants import check_invariants
from projectl_sim.engine.record import replay


def _play_checked(players: int, seed: int):
    rules = Rules(players=players)
    bot = make_bot("random")

    def check(state: GameState, _p: int, _a: object) -> None:
        check_invariants(state)

    outcome = play_game(rules, [bot] * players, seed, on_step=check)
    assert outcome.state.phase == OVER
    return outcome


@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_games_keep_every_invariant_and_replay(players: int) -> None:
    reasons: Counter[str] = Counter()
    # 500 / 300 games: every seat count's rules met many times over; test_many_more_random_games
    # (-m slow) plays 1,500 more of each
    for seed in range(500 if players == 2 else 300):
        outcome = _play_checked(players, seed)
        reasons[outcome.state.end_reason] += 1
        rec = outcome.record_json()
        again = replay(rec).state
        assert again.final_scores() == outcome.state.final_scores()
        assert again.winners() == outcome.state.winners()
        assert rec["result"]["completed"] == [len(p) for p in again.piles]
    # the sensible random bot ends nearly every game by the rules
    assert reasons["rules"] >= 0.9 * sum(reasons.values()), reasons


@pytest.mark.slow
@pytest.mark.parametrize("players", [2, 3, 4])
def test_many_more_random_games(players: int) -> None:
    for seed in range(10_000, 11_500):
        _play_checked(players, seed)


def _all_candidates(state: GameState):
    """Every action of the non-Master kinds, legal or not, that names real cards and pieces."""
    t = state.tables
    cat = t.cat
    yield from (Take(c) for c in range(len(cat.puzzles)))
    yield TakeDeck(0)
    yield TakeDeck(1)
    for colour in (0, 1):
        if state.rows[colour]:
            yield Recycle(colour, tuple(reversed(state.rows[colour])))
    yield TakeBasic()
    for give in range(t.n_pieces):
        for get in range(t.n_pieces):
            yield Upgrade(give, get)
    for card, _, _ in state.slots[state.current]:
        for piece in range(t.n_pieces):
            for mask in cat.placements[piece]:
                yield Place(card, piece, mask)


def test_legal_actions_are_exactly_the_actions_check_accepts() -> None:
    checked = listing_matches_check(Rules(players=3), range(12), _all_candidates, share=0.08)
    assert checked > 10_000


def test_master_enumeration_matches_check_and_sampling() -> None:
    rules = Rules(players=2)
    rng = random.Random(1)
    bot = make_bot("random")
    seen = 0
    for seed in range(40):
        state = new_game(rules, seed=seed)
        while state.phase != OVER and seen < 25:
            if (
                state.phase == PLAY
                and not state.master_used
                and len(state.slots[state.current]) >= 2
            ):
                masters = list(state.master_actions())
                if 0 < len(masters) < 5000:
                    assert len(set(masters)) == len(masters)
                    for m in masters[:: max(1, len(masters) // 50)]:
                        state.check(state.current, m)
                    for _ in range(20):
                        sample = state.sample_master(rng)
                        assert sample in set(masters)
                    seen += 1
            state.step(state.current, bot(state.view(state.current), rng))
    assert seen == 25


def test_same_seed_same_game() -> None:
    rules = Rules(players=2)
    bots = [make_bot("random")] * 2
    a = play_game(rules, bots, 99).record_json()
    b = play_game(rules, bots, 99).record_json()
    c = play_game(rules, bots, 100).record_json()
    assert a == b
    assert a["actions"] != c["actions"]


def test_sample_recycle_is_uniform_over_the_legal_recycles() -> None:
    state = new_game(Rules(players=2), seed=4)
    legal = set(state.recycle_actions())
    assert len(legal) == 48
    rng = random.Random(0)
    seen = Counter(state.sample_recycle(rng) for _ in range(48 * 200))
    assert set(seen) == legal
    # each of the 48 orders about 200 times (a loose bound: 5 standard deviations)
    assert all(120 < n < 280 for n in seen.values())


def _finish_options_by_subset(state: GameState) -> list:
    """Finishing Touches options the plain way: a fresh plan for every puzzle of every subset."""
    import itertools

    from projectl_sim.engine.actions import Finish
    from projectl_sim.tiling.fill import plan

    t, p = state.tables, state.current
    options, seen = [Finish(())], set()
    slots = state.slots[p]
    for size in range(len(slots), 0, -1):
        for subset in itertools.combinations(slots, size):
            left, placements = state.supply[p][:], []
            for card, filled, _ in subset:
                found = plan(t.cat, t.recess[card] & ~filled, left)
                if found is None:
                    break
                for piece, mask in found:
                    left[piece] -= 1
                    placements.append((card, piece, mask))
            else:
                if tuple(placements) not in seen:
                    seen.add(tuple(placements))
                    options.append(Finish(tuple(placements)))
    return options


def test_finish_options_equal_a_fresh_plan_for_every_subset() -> None:
    from projectl_sim.engine import FINISHING, finish_options

    states: list[GameState] = []

    def keep(state: GameState, seat: int, action: object) -> None:
        if state.phase == FINISHING:
            states.append(state.copy())

    for seed in range(40):
        play_game(Rules(players=3), [make_bot("random")] * 3, seed, record=False, on_step=keep)
    compared = 0
    for state in states:
        assert finish_options(state) == _finish_options_by_subset(state)
        compared += len(state.slots[state.current])
    assert compared > 50  # enough unfinished puzzles at the end to mean something


def test_play_game_gathers_each_seats_decision_time(monkeypatch: pytest.MonkeyPatch) -> None:
    # a clock that ticks one second per reading: each decision is read twice (before and after
    # the bot answers), so a seat's gathered time is exactly its number of decisions (the real
    # clock's figures are benchmarks/runner.py's)
    import itertools

    from projectl_sim.sim import play

    ticks = itertools.count()
    monkeypatch.setattr(play, "perf_counter", lambda: float(next(ticks)))
    seconds = [0.0, 0.0]
    outcome = play.play_game(Rules(players=2), [make_bot("random")] * 2, 5, seconds=seconds)
    decisions = [sum(1 for seat, _ in outcome.record.moves if seat == q) for q in (0, 1)]  # type: ignore[union-attr]
    assert seconds == [float(d) for d in decisions] and min(decisions) > 10
