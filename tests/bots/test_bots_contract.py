"""The contract every bot must pass: legal actions, determinism, no mutation, errors reported."""

from __future__ import annotations

import random

import pytest
from records_util import new_trigger_tiles
from state_util import snapshot

from bots import REGISTRY, Bot, make_bot
from projectl_sim import BotError, Rules, play_game
from projectl_sim.engine import GameState
from projectl_sim.engine.actions import Take
from projectl_sim.errors import UsageError

# Every registered bot that plays by itself, with a small budget where it has one, plus every
# greedy preset. The person's seat (``interactive``) registers itself when the command line's
# module is imported: left out, the tests collected do not depend on which module came first.
SPECS = sorted(
    {
        name if "iterations" not in cls.params else f"{name}:iterations=8"
        for name, cls in REGISTRY.items()
        if not getattr(cls, "interactive", False)
    }
    | {f"greedy:preset={p}" for p in ("engine", "rush_black", "cautious")}
    | {"mcts:iterations=8,leaf=value"}  # the learned evaluation at the leaves (greedy lines)
    | {"mcts:iterations=8,leaf=value,width=2"}  # and a tree that widens below the root
)


class _Watch:
    """Wraps a bot: checks it never mutates its view."""

    def __init__(self, bot: Bot) -> None:
        self.bot = bot
        self.calls = 0

    def __call__(self, view: GameState, rng: random.Random):
        before = snapshot(view)
        action = self.bot(view, rng)
        assert snapshot(view) == before, f"{self.bot!r} mutated its view"
        self.calls += 1
        return action

    def __repr__(self) -> str:
        return repr(self.bot)


def _plays_legally(spec: str, rules: Rules, seed: int) -> None:
    """Play one game, ``spec`` (watched: it must not mutate its view) in seat 0 and random bots
    in the others; ``play_game`` checks every action (an illegal one raises ``BotError``)."""
    bots = [_Watch(make_bot(spec)), *(make_bot("random") for _ in range(rules.players - 1))]
    outcome = play_game(rules, bots, seed, record=False)
    assert outcome.state.is_over
    assert bots[0].calls > 0


@pytest.mark.parametrize("spec", SPECS)
@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_bot_plays_only_legal_actions_and_never_mutates(spec: str, players: int) -> None:
    games = 2 if spec.startswith("mcts") else 6
    # every supported configuration: solo at 1 player (each difficulty), the base game at 2-4
    levels = ("normal", "hard", "unbeatable")
    for seed in range(games):
        rules = (
            Rules(players=1, variant="solo", difficulty=levels[seed % 3])
            if players == 1
            else Rules(players=players)
        )
        _plays_legally(spec, rules, seed + 100 * players)


@pytest.mark.parametrize("spec", SPECS)
@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_bot_plays_finesse_legally(spec: str, players: int) -> None:
    games = 1 if spec.startswith("mcts") else 3
    variant = "solo" if players == 1 else "standard"
    for seed in range(games):
        rules = Rules(players=players, variant=variant, expansions={"finesse"})
        _plays_legally(spec, rules, seed + 7 * players)


@pytest.mark.parametrize("spec", SPECS)
@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_bot_plays_the_finesse_ambassador_tiles_legally(spec: str, players: int) -> None:
    # finesse_ambassador=true: the shipped tiles with the pack's shuffled in (even seeds), and a
    # tile set of only the pack's tiles and the Upgrade tiles (odd seeds), so that the new
    # triggers count in every row (Insert, the "have" tiles, no unfinished puzzle)
    games = 2 if spec.startswith("mcts") else 4
    variant = "solo" if players == 1 else "standard"
    for seed in range(games):
        tiles = {"finesse_tiles": new_trigger_tiles()} if seed % 2 else {}
        rules = Rules(
            players=players,
            variant=variant,
            expansions={"finesse"},
            finesse_ambassador=True,
            **tiles,
        )
        _plays_legally(spec, rules, seed + 13 * players)


LINE_CLEAR = [
    (5, (), "interleave"),
    (5, ("finesse",), "white_first"),
    (6, ("phoenix",), "interleave"),
    (6, ("phoenix", "finesse"), "interleave"),
]


@pytest.mark.parametrize("spec", SPECS)
@pytest.mark.parametrize(("players", "expansions", "order"), LINE_CLEAR)
def test_bot_plays_line_clear_legally(
    spec: str, players: int, expansions: tuple[str, ...], order: str
) -> None:
    # the seat to move changes after each action (interleave): each bot answers for its seat
    rules = Rules(
        players=players, variant="line_clear", expansions=expansions, line_clear_order=order
    )
    games = 1 if spec.startswith("mcts") else 2
    for seed in range(games):
        _plays_legally(spec, rules, seed + 11 * players)


@pytest.mark.parametrize("spec", SPECS)
@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_bot_plays_ambassador_phoenix_endless_legally(spec: str, players: int) -> None:
    # the Ambassador Pack and Phoenix at every player count, with the Endless White Deck where it
    # applies (not solo), and with Finesse on odd seeds
    games = 1 if spec.startswith("mcts") else 3
    variant = "solo" if players == 1 else "standard"
    for seed in range(games):
        expansions = {"ambassador_pack", "phoenix"} | ({"finesse"} if seed % 2 else set())
        rules = Rules(
            players=players,
            variant=variant,
            expansions=expansions,
            endless_white_deck=players > 1,
        )
        _plays_legally(spec, rules, seed + 11 * players)


@pytest.mark.parametrize("spec", SPECS)
def test_same_seed_same_game(spec: str) -> None:
    rules = Rules(players=2)
    a = play_game(rules, [make_bot(spec), make_bot("greedy")], 5).record_json()
    b = play_game(rules, [make_bot(spec), make_bot("greedy")], 5).record_json()
    assert a["actions"] == b["actions"]


@pytest.mark.parametrize("spec", SPECS)
def test_repr_is_the_normalised_spec(spec: str) -> None:
    bot = make_bot(spec)
    assert repr(make_bot(repr(bot))) == repr(bot)


def test_spec_errors_list_the_valid_choices() -> None:
    with pytest.raises(UsageError, match=r"unknown bot 'nope' \(valid: .*greedy.*random"):
        make_bot("nope")
    with pytest.raises(UsageError, match=r"bot 'greedy' has no parameter 'speed' \(valid: preset"):
        make_bot("greedy:speed=3")
    with pytest.raises(UsageError, match="not a float"):
        make_bot("greedy:reward=high")
    with pytest.raises(UsageError, match=r"preset=wild is out of range \(valid: one of balanced"):
        make_bot("greedy:preset=wild")


NONSENSE = {
    "mcts:iterations=-5": "bot mcts: iterations=-5 is out of range (valid: a whole number >= 1)",
    "mcts:iterations=0": "bot mcts: iterations=0 is out of range (valid: a whole number >= 1)",
    "mcts:time=-1": "bot mcts: time=-1.0 is out of range (valid: a finite number >= 0",
    "mcts:c=inf": "bot mcts: c=inf is out of range",
    "mcts:scale=0": "bot mcts: scale=0.0 is out of range (valid: a finite number > 0)",
    "mcts:anchor=top": "bot mcts: anchor=top is out of range (valid: one of root, leaf)",
    "greedy:risk=nan": "bot greedy: risk=nan is out of range (valid: a finite number > 0)",
    "greedy:min_held=-1": "bot greedy: min_held=-1 is out of range (valid: a whole number >= 0",
    "greedy:reward=-0.5": "bot greedy: reward=-0.5 is out of range (valid: a finite number >= 0)",
}


@pytest.mark.parametrize("spec", list(NONSENSE))
def test_nonsense_parameters_are_refused_naming_the_valid_range(spec: str) -> None:
    with pytest.raises(UsageError) as info:
        make_bot(spec)
    assert str(info.value).startswith(NONSENSE[spec]) and "\n" not in str(info.value)


def test_every_parameter_of_a_shipped_bot_declares_its_range() -> None:
    for name in REGISTRY:
        cls = REGISTRY[name]
        for key, entry in cls.params.items():
            assert len(entry) == 3 and entry[2].accepts(entry[0]), (name, key)


def test_a_bot_shows_the_value_it_uses() -> None:
    assert repr(make_bot("mcts:iterations=0200")) == "mcts"  # the default, written otherwise
    assert repr(make_bot("mcts:iterations=050")) == "mcts:iterations=50"
    assert repr(make_bot("mcts:iterations=7,time=0.50")) == "mcts:iterations=7,time=0.5"
    assert repr(make_bot("greedy:risk=2")) == "greedy:risk=2.0"


def test_greedy_repr_shows_preset_and_changed_weights() -> None:
    assert repr(make_bot("greedy")) == "greedy"
    assert repr(make_bot("greedy:preset=balanced")) == "greedy"
    assert repr(make_bot("greedy:preset=engine,reward=1.2")) == "greedy:preset=engine,reward=1.2"
    assert repr(make_bot("greedy:white_only=1")) == "greedy:white_only=1"


class _Raises(Bot):
    name = "raises"

    def act(self, view, rng):
        if view.round >= 2:
            raise RuntimeError("boom")
        return make_bot("random").act(view, rng)


class _Illegal(Bot):
    name = "illegal"

    def act(self, view, rng):
        return Take(10_000)


def test_a_bot_that_raises_is_reported_with_bot_seat_and_seed() -> None:
    with pytest.raises(BotError) as info:
        play_game(Rules(players=2), [make_bot("random"), _Raises()], 42)
    msg = str(info.value)
    assert "bot raises (seat 1, game seed 42) raised RuntimeError: boom" in msg
    partial = info.value.outcome  # type: ignore[attr-defined]
    assert partial.record.moves  # nothing played is lost
    assert partial.record_json()["actions"][0]["player"] in (0, 1)


def test_a_bot_that_returns_an_illegal_action_is_reported() -> None:
    with pytest.raises(
        BotError, match=r"bot illegal \(seat 0, game seed 3\) chose an illegal action"
    ):
        play_game(Rules(players=2), [_Illegal(), make_bot("random")], 3)


def test_greedy_beats_random_clearly() -> None:
    rules = Rules(players=2)
    wins = 0.0
    for seed in range(10):
        for seats in ((0, 1), (1, 0)):
            bots = [make_bot("greedy"), make_bot("random")]
            order = [bots[i] for i in seats]
            w = play_game(rules, order, seed, record=False).state.winners()
            g = seats.index(0)
            wins += (g in w) / len(w)
    assert wins >= 18


def test_greedy_avoids_puzzles_it_cannot_finish_at_the_end() -> None:
    # The unfinished penalty: greedy leaves almost no points unfinished, random leaves many.
    rules = Rules(players=2)

    def unfinished_points(spec: str) -> float:
        total = 0
        for seed in range(20):
            state = play_game(rules, [make_bot(spec), make_bot("greedy")], seed, record=False).state
            total += sum(state.tables.points[s[0]] for s in state.slots[0])
        return total / 20

    assert unfinished_points("greedy") <= 1.0
    assert unfinished_points("random") >= 4.0


# Ghost Piece: each switch in turn, with Finesse, with the Ambassador Pack and Phoenix, or alone
GHOST_SWITCHES = [{}, {"ghost_action": "free"}, {"ghost_placement": "exchange_only"}]
GHOST_WITH = [{"finesse"}, {"ambassador_pack", "phoenix"}, set()]


@pytest.mark.parametrize("spec", SPECS)
@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_bot_plays_ghost_piece_legally(spec: str, players: int) -> None:
    games = 1 if spec.startswith("mcts") else 3
    variant = "solo" if players == 1 else "standard"
    for seed in range(games):
        rules = Rules(
            players=players,
            variant=variant,
            expansions={"ghost_piece"} | GHOST_WITH[(seed + players) % 3],
            **GHOST_SWITCHES[(seed + 2 * players) % 3],
        )
        _plays_legally(spec, rules, seed + 11 * players)
