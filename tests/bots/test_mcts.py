"""The ``mcts`` bot: legal play at every player count, determinism, views untouched, worlds."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from state_util import play_steps, snapshot

from bots import MCTSBot, make_bot
from bots._state import determinize
from bots.heuristics import cost_model
from bots.mcts import score_estimate
from projectl_sim import Rules, play_game
from projectl_sim.engine import HIDDEN, PLAY, GameState, deal, new_game
from projectl_sim.errors import UsageError
from projectl_sim.expansions.endless import endless as endless_of
from projectl_sim.sim.play import game_seeds

TINY = "mcts:iterations=6"


def _midgame(players: int, seed: int, actions: int) -> GameState:
    """Return a state after some greedy play (a position with held puzzles and hidden piles)."""
    return play_steps(Rules(players=players), seed, actions, "greedy")


@pytest.mark.parametrize("players", [2, 3, 4])
def test_plays_legal_games_to_the_end_at_every_player_count(players: int) -> None:
    # play_game checks every action: an illegal one raises BotError
    bots = [make_bot(TINY), *(make_bot("greedy") for _ in range(players - 1))]
    outcome = play_game(Rules(players=players), bots, 11 + players, record=False)
    assert outcome.state.is_over
    assert bots[0].searches > 0 and bots[0].simulations >= 6 * bots[0].searches


def test_every_seat_can_be_mcts() -> None:
    outcome = play_game(Rules(players=3), [make_bot(TINY) for _ in range(3)], 5, record=False)
    assert outcome.state.is_over


def test_same_seed_and_iterations_same_game() -> None:
    rules = Rules(players=2)
    a = play_game(rules, [make_bot(TINY), make_bot("greedy")], 8).record_json()
    b = play_game(rules, [make_bot(TINY), make_bot("greedy")], 8).record_json()
    assert a["actions"] == b["actions"]


def test_same_rng_state_same_decision_and_the_view_is_untouched() -> None:
    state = _midgame(2, 3, 30)
    assert state.phase == PLAY
    view = state.view(state.current)
    before = snapshot(view)
    bot = make_bot("mcts:iterations=40")
    first = bot(view, random.Random(1))
    assert snapshot(view) == before
    assert bot(view, random.Random(1)) == first
    assert first in view.legal_actions()


def test_a_time_budget_returns_a_legal_action() -> None:
    state = _midgame(2, 4, 20)
    view = state.view(state.current)
    action = make_bot("mcts:time=0.05")(view, random.Random(0))
    assert action in view.legal_actions()


@pytest.mark.parametrize(
    "spec",
    [
        "mcts",
        "mcts:iterations=100",
        "mcts:c=0.5,horizon=0",
        "mcts:time=0.2,width=1.5,scale=2.0",
        "mcts:anchor=leaf",
    ],
)
def test_repr_round_trips_through_make_bot(spec: str) -> None:
    bot = make_bot(spec)
    assert isinstance(bot, MCTSBot)
    assert repr(make_bot(repr(bot))) == repr(bot)
    assert make_bot(repr(bot)).options == bot.options


def test_repr_shows_only_changed_parameters() -> None:
    assert repr(make_bot("mcts")) == "mcts"
    assert repr(make_bot("mcts:iterations=100,c=0.7")) == "mcts:iterations=100,c=0.7"


@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_world_is_consistent_with_the_view(players: int) -> None:
    state = _midgame(players, 21, 24 * players)
    me = state.current
    view = state.view(me)
    assert any(HIDDEN in view.piles[q] for q in range(players) if q != me)
    for seed in range(5):
        world = determinize(view, random.Random(seed))
        # what the viewer sees is kept
        assert world.rows == view.rows and world.slots == view.slots
        assert world.piles[me] == view.piles[me] and world.scores[me] == view.scores[me]
        for q in range(players):
            assert len(world.piles[q]) == len(view.piles[q])
            assert world.scores[q] == sum(world.tables.points[c] for c in world.piles[q])
        for d, v in zip(world.decks, view.decks, strict=True):
            assert len(d) == len(v) and HIDDEN not in d
        for colour in (0, 1):
            assert all(world.tables.is_black[c] == colour for c in world.decks[colour])
        # every card is in one place only; all the whites are in play, and as many blacks as in
        # the real game (which blacks were left out of the game is unseen too)
        cards = _cards(world)
        assert max(cards.values()) == 1
        whites = {c for c in cards if not world.tables.is_black[c]}
        assert whites == {
            c for c in range(len(world.tables.points)) if not world.tables.is_black[c]
        }
        assert len(cards) == sum(_cards(state).values())


def test_a_world_guesses_the_noted_white_puzzles_of_the_endless_white_deck() -> None:
    # a 2-player Endless game whose white deck is cut short, played until the opponent of the
    # player to move has noted puzzles (hidden in the view: only their number is public)
    rules = Rules(players=2, endless_white_deck=True)
    setup = deal(rules, random.Random(3))
    setup["white_deck"] = setup["white_deck"][:6]
    state = new_game(rules, setup=setup)
    bot, rng = make_bot("random"), random.Random(4)
    while not state.is_over and not endless_of(state).noted[1 - state.current]:  # type: ignore[union-attr]
        state.step(state.current, bot(state.view(state.current), rng))
    assert not state.is_over
    me, other = state.current, 1 - state.current
    view = state.view(me)
    assert HIDDEN in endless_of(view).noted[other]  # type: ignore[union-attr]
    whites = set(state.catalogue.of_colour("white"))
    for seed in range(5):
        world = determinize(view, random.Random(seed))
        noted = endless_of(world).noted[other]  # type: ignore[union-attr]
        assert len(noted) == len(endless_of(state).noted[other]) and set(noted) <= whites
        assert endless_of(world).noted[me] == endless_of(state).noted[me]  # type: ignore[union-attr]
        points = world.tables.points
        # the noted puzzles count in the guessed score, as they do in the real one
        assert world.scores[other] == sum(points[c] for c in (*world.piles[other], *noted))
        assert world.scores[other] >= len(noted) * min(points[c] for c in whites)
        assert world.scores[me] == state.scores[me]


def _cards(state: GameState) -> Counter[int]:
    cards: Counter[int] = Counter()
    for colour in (0, 1):
        cards.update(state.rows[colour])
        cards.update(state.decks[colour])
    for q in range(state.n):
        cards.update(state.piles[q])
        cards.update(s[0] for s in state.slots[q])
    return cards


def test_a_world_deals_the_hidden_piles_from_the_unseen_cards_only() -> None:
    state = _midgame(2, 9, 50)
    me = state.current
    view = state.view(me)
    seen = set(view.rows[0] + view.rows[1]) | {s[0] for q in range(2) for s in view.slots[q]}
    seen |= set(view.piles[me])
    for seed in range(10):
        world = determinize(view, random.Random(seed))
        assert not seen & set(world.piles[1 - me])
        # the number of white cards in the hidden pile is known, not guessed
        whites = sum(not state.tables.is_black[c] for c in world.piles[1 - me])
        assert whites == sum(not state.tables.is_black[c] for c in state.piles[1 - me])


def test_score_estimate_is_the_final_score_once_the_game_is_over() -> None:
    outcome = play_game(Rules(players=2), [make_bot("greedy"), make_bot("greedy")], 2, record=False)
    state = outcome.state
    model = cost_model(state)
    assert [score_estimate(state, p, model) for p in range(2)] == state.final_scores()


def test_values_are_win_chances_that_share_one_in_two_players() -> None:
    bot = MCTSBot()
    state = _midgame(2, 6, 40)
    values = bot._values(state, cost_model(state))
    assert all(0.0 <= v <= 1.0 for v in values)
    assert sum(values) == pytest.approx(1.0)


def test_a_leaf_anchored_horizon_lets_rollouts_see_as_far_from_every_leaf() -> None:
    """anchor=root: rollouts stop at the root's horizon, so deeper leaves see less past them;
    anchor=leaf: every rollout plays the full horizon from its own leaf."""
    state = _midgame(2, 4, 20)
    view = state.view(state.current)
    turns = 1 * view.n  # horizon=1 round

    seen: list[int] = []

    class Spy(MCTSBot):  # a compiled bot's methods can't be patched: a subclass records
        def _rollout(self, s, rng, model, stop, cast=None):  # type: ignore[no-untyped-def]
            seen.append(stop - s.turn)  # turns the rollout may still play
            return super()._rollout(s, rng, model, stop, cast)

    def lookahead(anchor: str) -> list[int]:
        seen.clear()
        bot = Spy(iterations=300, horizon=1, anchor=anchor)
        assert bot(view, random.Random(3)) in view.legal_actions()
        return list(seen)

    root = lookahead("root")
    assert max(root) <= turns and min(root) < turns  # deeper leaves, less lookahead
    assert set(lookahead("leaf")) == {turns}


def test_an_unknown_anchor_is_a_usage_error() -> None:
    with pytest.raises(
        UsageError, match=r"anchor=middle is out of range \(valid: one of root, leaf"
    ):
        make_bot("mcts:anchor=middle")


# benchmarks/decisions.py --mcts-games 1 --bots mcts --variants solo --seed 30: mcts's slowest
# decisions (up to 9.5 s of CPU) were in this game, solo with Ghost Piece, the Ambassador Pack
# and Phoenix; its first decision searched 243,526 cost-model queries at the default 200
# iterations (measured; the other variants' largest searches: about 200,000)
_RUNAWAY = (1206316565, ("ghost_piece", "ambassador_pack", "phoenix"))


def _runaway_view() -> tuple[GameState, random.Random]:
    seed, expansions = _RUNAWAY
    rules = Rules(players=1, variant="solo", expansions=set(expansions))
    deal_rng, bot_rngs = game_seeds(seed, 1, 0)
    return new_game(rules, setup=deal(rules, deal_rng)).view(0), bot_rngs[0]


def test_the_search_stops_at_its_work_budget_where_it_ran_away() -> None:
    view, rng = _runaway_view()
    state = rng.getstate()
    # a small budget, so that it binds here: 40 iterations x 600 queries
    bot = make_bot("mcts:iterations=40,work=600")
    action = bot(view, rng)
    assert action in view.legal_actions()
    cap = 40 * 600
    # every iteration began with work left: the budget is passed by one iteration at most
    assert bot.work <= cap + bot.work_step, (bot.work, bot.work_step)
    assert bot.simulations < 40  # it did stop early (measured: 18 iterations, 22,895 queries)
    # counted, not timed: the same decision and work again (the tiling index now warm)
    again = make_bot("mcts:iterations=40,work=600")
    rng.setstate(state)
    assert again(view, rng) == action and again.work == bot.work
    # without the budget the same search does more work (measured: 48,820 queries)
    rng.setstate(state)
    unbounded = make_bot("mcts:iterations=40,work=0")
    unbounded(view, rng)
    assert unbounded.work > cap and unbounded.simulations >= 39


def test_the_default_search_has_a_work_budget() -> None:
    bot = make_bot("mcts")
    assert bot.options["work"] > 0 and repr(bot) == "mcts"


def test_the_learned_leaf_has_its_own_defaults_and_the_spec_says_what_differs() -> None:
    """leaf=value searches 32 iterations over value's shortlist with the greedy prior, greedy
    lines below the root (width 0) unless the spec says otherwise; the spec names only what
    differs from those, and round-trips."""
    plain = make_bot("mcts")
    assert (plain.options["iterations"], plain.options["places"], plain.options["prior"]) == (
        200,
        0,
        0.0,
    )
    assert (plain.options["tree"], plain.options["width"]) == ("full", 2.0)
    learned = make_bot("mcts:leaf=value")
    assert (learned.options["iterations"], learned.options["places"]) == (32, 2)
    assert learned.options["prior"] == 0.1
    assert (learned.options["tree"], learned.options["width"]) == ("full", 0.0)
    assert repr(make_bot("mcts:leaf=value,tree=full,width=0")) == repr(learned)
    assert "width=2" in repr(make_bot("mcts:leaf=value,width=2"))
    assert "tree=turn" in repr(make_bot("mcts:leaf=value,tree=turn"))
    for spec in (
        "mcts:leaf=value",
        "mcts:leaf=value,places=0",
        "mcts:leaf=value,iterations=200",
        "mcts:leaf=value,width=2",
        "mcts:leaf=value,tree=turn",
    ):
        bot = make_bot(spec)
        again = make_bot(repr(bot))
        assert repr(again) == repr(bot)
        assert {k: v for k, v in again.options.items() if k != "hash"} == {
            k: v for k, v in bot.options.items() if k != "hash"
        }
    assert "places=0" in repr(make_bot("mcts:leaf=value,places=0"))
    assert "iterations=200" in repr(make_bot("mcts:leaf=value,iterations=200"))
    assert "places" not in repr(make_bot("mcts:leaf=value"))


@pytest.mark.parametrize("shape", ["", "tree=turn,", "width=1,"])
@pytest.mark.parametrize("players", [2, 3])
def test_every_learned_leaf_is_scored_at_the_end_of_a_turn_of_the_searching_seat(
    players: int, shape: str
) -> None:
    """leaf=value plays each leaf on to the end of one of the searching seat's turns before the
    evaluation sees it: its features then say the seat has no action left this turn and every
    other seat plays before it (scored at whichever seat's turn end the leaf fell in, a deeper
    leaf was worth less for that alone, and the search lost 95% of its games to greedy). Greedy
    lines (the default shape) and the flat search score the searching seat alone; a tree that
    chooses for every seat below the root (width=1) scores every seat."""
    import copy

    from bots.features import FEATURE_NAMES

    bot = make_bot(f"mcts:leaf=value,{shape}iterations=40,places=0,prior=0")
    mover_only = shape != "width=1,"
    seen: list[list[list[float]]] = []
    model = copy.copy(bot.value_model)
    real = model.evaluate_rows

    def record(rows: list[list[float]]) -> list[tuple[float, float]]:
        seen.append(rows)
        return real(rows)

    model.evaluate_rows = record  # type: ignore[method-assign]
    bot.value_model = model
    wait = FEATURE_NAMES.index("me_wait")
    turn_actions = FEATURE_NAMES.index("me_turn_actions")
    searched = 0
    for seed in (1, 2):
        state = _midgame(players, seed, 9)
        me = state.current
        seen.clear()
        bot(state.view(me), random.Random(seed))
        searched += len(seen)
        for rows in seen:
            assert len(rows) == (1 if mover_only else players)
            mine = rows[0] if mover_only else rows[me]
            assert mine[turn_actions] == 0.0
            assert mine[wait] == players - 1
    assert searched > 20


@pytest.mark.parametrize(
    "spec",
    [
        "mcts:leaf=value,iterations=30",
        "mcts:leaf=value,iterations=40,tree=turn",
        "mcts:leaf=value,iterations=40,tree=turn,deepen=4",
        "mcts:leaf=value,iterations=30,deepen=4",
    ],
)
@pytest.mark.parametrize("players", [2, 3])
def test_scoring_the_mover_alone_decides_as_scoring_every_seat(players: int, spec: str) -> None:
    """Below the root greedy lines compare no values, every node of the flat search's tree is
    the searching seat's, and the root compares that seat's values, so a leaf scored for that
    seat alone gives the same choice and the same root value (to rounding)."""
    for seed in (1, 2, 3):
        state = _midgame(players, seed, 12 + 7 * seed)
        view = state.view(state.current)
        alone = make_bot(spec)
        every = make_bot(spec)
        assert alone._mover_only
        every._mover_only = False
        assert alone(view, random.Random(seed)) == every(view, random.Random(seed))
        assert alone.root_value > 0
        # the same to rounding: numpy's product of one row and of several differ in the last bit
        assert alone.root_value == pytest.approx(every.root_value, rel=1e-12, abs=1e-12)
    assert not make_bot("mcts:leaf=value,width=1")._mover_only
    assert not make_bot("mcts:iterations=8,tree=turn")._mover_only


def _searched_root(spec: str, state: GameState, seed: int) -> tuple[MCTSBot, object, int]:
    """Search ``state`` with ``spec``; return the bot, its root and the worlds it dealt."""
    kept: list[object] = []
    dealt = [0]

    class Kept(MCTSBot):
        def _search_halving(self, root, *args):  # type: ignore[no-untyped-def]
            kept.append(root)
            return super()._search_halving(root, *args)

        def _world(self, view, rng):  # type: ignore[no-untyped-def]
            dealt[0] += 1
            return super()._world(view, rng)

    base = make_bot(spec)
    bot = Kept(**{k: v for k, v in base.options.items() if k in base.given})
    bot(state.view(state.current), random.Random(seed))
    return bot, kept[0], dealt[0]


def _depth(node: object) -> int:
    children = node.children  # type: ignore[attr-defined]
    return 1 + max((_depth(ch) for ch in children.values()), default=0) if children else 0


@pytest.mark.parametrize("reach", [1.0, 2.0])
def test_a_reaching_visit_goes_reach_times_its_visits_down_the_greedy_line(reach: float) -> None:
    for seed in (1, 2):
        state = _midgame(2, seed, 9)
        _, root, _ = _searched_root(f"mcts:leaf=value,iterations=60,reach={reach}", state, seed)
        visits = [ch.n for ch in root.children.values()]  # type: ignore[attr-defined]
        assert max(visits) >= 8
        for ch in root.children.values():  # type: ignore[attr-defined]
            # the last visit (the n-th, k = n - 1) went reach x k actions below the candidate
            assert _depth(ch) >= int(reach * (ch.n - 1))
    # the default shape's lines part between worlds and stop short of that
    state = _midgame(2, 1, 9)
    _, root, _ = _searched_root("mcts:leaf=value,iterations=60", state, 1)
    assert any(_depth(ch) < ch.n - 1 for ch in root.children.values())  # type: ignore[attr-defined]


def test_worlds_cycles_the_visits_through_that_many_deals() -> None:
    state = _midgame(2, 3, 20)
    _, root, dealt = _searched_root("mcts:leaf=value,iterations=60,worlds=4", state, 3)
    assert dealt == 4 and max(ch.n for ch in root.children.values()) > 4  # type: ignore[attr-defined]
    _, root, dealt = _searched_root("mcts:leaf=value,iterations=60", state, 3)
    assert dealt == max(ch.n for ch in root.children.values())  # type: ignore[attr-defined]
    assert "worlds=4" in repr(make_bot("mcts:leaf=value,worlds=4,reach=1.5"))
    assert "reach=1.5" in repr(make_bot("mcts:leaf=value,worlds=4,reach=1.5"))
    for spec in ("mcts:reach=1", "mcts:worlds=3"):
        with pytest.raises(UsageError, match="need leaf=value"):
            make_bot(spec)


@pytest.mark.parametrize("turn_ends", [0, 1, 2])
def test_a_learned_leaf_plays_on_through_as_many_ends_of_the_searching_seats_turns_as_asked(
    turn_ends: int,
) -> None:
    """A leaf standing in the searching seat's turn is played on through ``turn_ends`` ends of
    that seat's turns before it is scored: no turn at 0, the rest of its own at 1, then a round
    more for each one beyond (``benchmarks/leaf_depth.py`` scores its leaves so)."""
    players = 3
    seen: list[tuple[int, int]] = []  # (turns played from the leaf, seat to move when scored)

    class Counted(MCTSBot):
        def _leaf_values(
            self, state: GameState, rng: random.Random, model: object, ends: int = 1
        ) -> list[float]:
            self._settle(state, rng)
            start = state.turn
            own = state.current == self._root
            values = super()._leaf_values(state, rng, model, turn_ends)  # type: ignore[arg-type]
            if own and state.phase == PLAY:
                seen.append((state.turn - start, state.current))
            return values

    bot = Counted(leaf="value", iterations=30, places=0, prior=0)
    for seed in (1, 2):
        state = _midgame(players, seed, 9)
        me = state.current
        seen.clear()
        bot(state.view(me), random.Random(seed))
        assert seen
        played = 0 if turn_ends == 0 else 1 + (turn_ends - 1) * players
        next_seat = me if turn_ends == 0 else (me + 1) % players
        assert set(seen) == {(played, next_seat)}


def test_deepen_is_the_flat_searchs_and_greedy_lines_and_is_refused_elsewhere() -> None:
    """deepen= schedules the learned leaf's depth in the flat search (leaf=value,tree=turn) and
    in greedy lines (leaf=value, width=0, its default); with rollouts, or in a tree that also
    tries other actions below the root, it would mean nothing, so a spec that gives it there is
    a usage error; the spec names it."""
    for spec in (
        "mcts:deepen=8",
        "mcts:tree=turn,deepen=8",
        "mcts:leaf=value,width=1,deepen=8",
    ):
        with pytest.raises(UsageError, match="deepen"):
            make_bot(spec)
    for spec in ("mcts:leaf=value,tree=turn,deepen=8", "mcts:leaf=value,deepen=8"):
        bot = make_bot(spec)
        assert "deepen=8" in repr(bot)
        assert repr(make_bot(repr(bot))) == repr(bot)
    assert "deepen" not in repr(make_bot("mcts:leaf=value,tree=turn"))
    # a flat search may try more below the root within the searching seat's turn
    assert make_bot("mcts:leaf=value,tree=turn,width=1,deepen=8").deepen == 8


@pytest.mark.parametrize("tree", ["turn", "full"])
def test_deepen_scores_a_candidates_later_visits_a_turn_deeper_each_deepen_visits(
    tree: str,
) -> None:
    """With deepen=D a root candidate's k-th visit (from 0) plays its leaf through 1 + k // D
    ends of the searching seat's turns: the visits below D as without it, the rest deeper."""
    seen: list[tuple[int, int]] = []  # (the candidate's visit, turn ends asked)

    class Counted(MCTSBot):
        def _iterate(self, root, pick, view, worlds, rng, model, stop):  # type: ignore[no-untyped-def]
            child = root.children.get(pick)
            self.visit = child.n if child is not None else 0
            super()._iterate(root, pick, view, worlds, rng, model, stop)

        def _leaf_values(
            self, state: GameState, rng: random.Random, model: object, ends: int = 1
        ) -> list[float]:
            seen.append((self.visit, ends))
            return super()._leaf_values(state, rng, model, ends)  # type: ignore[arg-type]

    state = _midgame(2, 3, 9)
    bot = Counted(leaf="value", tree=tree, iterations=60, deepen=3, places=0)
    bot(state.view(state.current), random.Random(5))
    assert max(v for v, _ in seen) >= 6
    assert all(ends == 1 + v // 3 for v, ends in seen)


@pytest.mark.parametrize("shape", ["tree=turn,", ""])
def test_a_search_whose_candidates_stay_below_deepen_visits_decides_as_without_it(
    shape: str,
) -> None:
    """deepen only changes the visits from the D-th on: with D above any candidate's visits the
    same seeds give the same decisions as the same search (flat, or greedy lines) without it."""
    for seed in (1, 2, 3):
        state = _midgame(2, seed, 7 + seed)
        view = state.view(state.current)
        plain = make_bot(f"mcts:leaf=value,{shape}iterations=24")
        deep = make_bot(f"mcts:leaf=value,{shape}iterations=24,deepen=24")
        assert plain(view, random.Random(seed)) == deep(view, random.Random(seed))
        assert plain.root_value == deep.root_value
