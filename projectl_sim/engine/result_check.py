"""The check a finished game passes before its result is written: a game no bot could bend.

A bot runs in the process that plays its game, so a determined one can reach past its view (the
shared rules object, or the real state through ``gc``). Nothing can stop that inside Python; the
result can still be checked. ``check_result`` checks a finished game:

- the rules it ran under are the rules its configuration names: the state holds the rules object
  it was given, and that object's fields, what the engine reads of its catalogue's tables and
  its pieces' copies equal the ``RulesPrint`` taken before any bot ran (``rules_print``;
  ``rules_digest``, the same in every process that builds the rules alike, lets a parent
  compare its rules with those its workers built);
- the state passes every invariant (``check_invariants``: pieces and cards conserved, scores the
  points of the victory piles, the variant's and the expansions' own), no touch is negative and
  the final scores follow from the piles, the penalties and the touches;
- when the game was recorded (its setup and actions given), the actions applied to the setup
  give the same game: the same tables, supplies, puzzles, piles, scores and turn, and the same
  result (the variant's and the expansions' parts too), so its record replays. Only this finds a
  bot that moved pieces or cards of the real state while keeping every count.

It raises ``ResultError`` saying what failed. Without the replay it costs about 1% of a greedy
game (one pass of the invariants and of the rules' print: about 16 us); the replay, on the fast
path, costs about as much as the engine's part of the game (about 60 us, 3% of a greedy game),
so a run pays it only for the games whose record it writes: ``benchmarks/result_check.py``.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from operator import attrgetter
from typing import Any

from projectl_sim.engine.actions import Action
from projectl_sim.engine.dealing import new_game
from projectl_sim.engine.hooks import hooks_of
from projectl_sim.engine.invariants import InvariantError, check_invariants
from projectl_sim.engine.record import result_of
from projectl_sim.engine.state import OVER, GameState
from projectl_sim.engine.tables import tables_of
from projectl_sim.rules import Rules

# a game a bot cut off at play_game's cap on decisions (``sim.play.MAX_DECISIONS``) ends so
TRUNCATED_BY_PLAY = "max_decisions"

# what the engine reads of a catalogue's tables (compiled, they refuse every write; from the
# source, ``object.__setattr__`` gets through, and this finds it)
_TABLE_FIELDS = (
    "cat",
    "n_pieces",
    "levels",
    "by_level",
    "max_level",
    "mono",
    "recess",
    "points",
    "is_black",
    "reward",
    "reward_level",
    "upgradable",
)

_TABLES_OF = attrgetter(*_TABLE_FIELDS)
_COPIES_OF = attrgetter("copies")


class ResultError(InvariantError):
    """A finished game failed the result check; the message says what failed."""


class RulesPrint:
    """What ``check_result`` compares of a rules object (``rules_print``): its fields (a mapping
    copied, as it could be changed in place), what the engine reads of its catalogue's tables,
    and its pieces' copies (each game's reserve is counted from them; the puzzles' points,
    rewards and recesses the engine reads from the tables). Compared in a few C-level
    comparisons, each by identity first."""

    __slots__ = ("copies", "fields", "tables")

    def __init__(self, rules: Rules) -> None:
        self.fields = {k: dict(v) if isinstance(v, dict) else v for k, v in vars(rules).items()}
        cat = rules.catalogue
        self.tables = _TABLES_OF(tables_of(cat))
        self.copies = tuple(map(_COPIES_OF, cat.pieces))

    def names(self) -> list[str]:
        """Return the names of what the print holds."""
        return [
            *(f"rules.{k}" for k in self.fields),
            *(f"tables.{k}" for k in _TABLE_FIELDS),
            "catalogue.pieces' copies",
        ]

    def changed(self, rules: Rules) -> str | None:
        """Return what of ``rules`` differs from this print (``name was X, is Y``), or None."""
        cat = rules.catalogue
        if (
            vars(rules) == self.fields
            and _TABLES_OF(tables_of(cat)) == self.tables
            and tuple(map(_COPIES_OF, cat.pieces)) == self.copies
        ):
            return None
        now = RulesPrint(rules)
        pairs = [
            *((f"rules.{k}", v, now.fields.get(k)) for k, v in self.fields.items()),
            *((f"rules.{k}", None, v) for k, v in now.fields.items() if k not in self.fields),
            *(
                (f"tables.{k}", a, b)
                for k, a, b in zip(_TABLE_FIELDS, self.tables, now.tables, strict=True)
            ),
            ("catalogue.pieces' copies", self.copies, now.copies),
        ]
        for name, was, value in pairs:
            if was is not value and was != value:
                return f"{name} was {_short(was)}, is {_short(value)}"
        return "a field"


def rules_print(rules: Rules) -> RulesPrint:
    """Return what ``check_result`` compares of ``rules`` (take it before any bot plays)."""
    return RulesPrint(rules)


def _puzzles(cat: Any) -> tuple[tuple[Any, ...], ...]:
    return tuple((p.id, p.colour, p.points, p.reward, p.recess) for p in cat.puzzles)


def _canonical(value: Any) -> Any:
    """Return a value the record form holds that JSON cannot, as every process writes it: a
    set in order, an object without its address."""
    if isinstance(value, (set, frozenset)):
        return sorted(map(repr, value))
    text = repr(value)
    return type(value).__qualname__ if " at 0x" in text else text


def rules_digest(rules: Rules) -> str:
    """Return a hash of ``rules`` that is the same in every process that builds them alike: their
    record form and their catalogue's pieces and puzzles (the tables are derived from those; not
    built here, as a process may not need them)."""
    data = [
        json.dumps(rules.to_json(), sort_keys=True, default=_canonical),
        repr([(p.id, p.level, p.copies, p.cells) for p in rules.catalogue.pieces]),
        repr(_puzzles(rules.catalogue)),
    ]
    return hashlib.sha256("\n".join(data).encode()).hexdigest()[:16]


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _check_rules(state: GameState, rules: Rules, expected: RulesPrint) -> None:
    if state.rules is not rules:
        raise ResultError("the game's state holds another rules object than it was dealt with")
    changed = expected.changed(rules)
    if changed is not None:
        raise ResultError(f"the rules changed during the game: {changed}")
    if state.tables is not tables_of(rules.catalogue) or state.hooks is not hooks_of(rules):
        raise ResultError("the game's state holds tables or hooks of other rules")
    for name in ("actions_per_turn", "max_unfinished"):
        if getattr(state, name) != getattr(rules, name):
            raise ResultError(
                f"the game played {name} {getattr(state, name)}, its rules say "
                f"{getattr(rules, name)}"
            )


def _check_scores(state: GameState) -> None:
    t = state.tables
    penalty = state.rules.unfinished_penalty
    final = state.final_scores()
    for p in range(state.n):
        if state.ft_pieces[p] < 0:
            raise ResultError(f"player {p} has {state.ft_pieces[p]} finishing touches")
        points = t.points.__getitem__
        won = sum(map(points, (*state.piles[p], *state.completed_elsewhere(p))))
        lost = state.ft_pieces[p]
        if penalty:
            lost += sum(points(s[0]) for s in state.slots[p])
        if final[p] != won - lost:
            raise ResultError(
                f"player {p}: final score {final[p]} is not its piles' {won} points "
                f"less {lost} for touches and unfinished puzzles"
            )


def _snapshot(state: GameState) -> tuple[Any, ...]:
    """Return the base game's fields a replay must reproduce."""
    return (
        state.reserve,
        state.supply,
        state.slots,
        state.piles,
        state.scores,
        state.ft_pieces,
        state.rows,
        state.decks,
        state.current,
        state.first_player,
        state.round,
        state.turn,
        state.phase,
        state.end_reason,
        state.trigger_round,
    )


_SNAPSHOT_NAMES = (
    "reserve counts",
    "supplies",
    "unfinished puzzles",
    "victory piles",
    "scores",
    "finishing touches",
    "rows",
    "decks",
    "seats to move",
    "first players",
    "rounds",
    "turns",
    "phases",
    "end reasons",
    "trigger rounds",
)


def state_key(state: GameState) -> tuple[Any, ...]:
    """Return the base game's fields of ``state`` as values that later moves cannot change."""
    return (
        tuple(state.reserve),
        tuple(map(tuple, state.supply)),
        tuple(map(tuple, state.slots)),
        tuple(state.piles),
        tuple(state.scores),
        tuple(state.ft_pieces),
        tuple(state.rows),
        tuple(state.decks),
        *_snapshot(state)[8:],
    )


def _check_state(state: GameState, rules: Rules, expected: RulesPrint, which: str) -> None:
    _check_rules(state, rules, expected)
    try:
        check_invariants(state)
    except ResultError:
        raise
    except InvariantError as exc:
        raise ResultError(f"{which} breaks an invariant: {exc}") from None
    _check_scores(state)


def check_decision(state: GameState, rules: Rules, expected: RulesPrint) -> None:
    """Raise ``ResultError`` unless ``state``, at any point of a game, was played under ``rules``
    as printed (``expected``) and keeps every invariant: ``check_result`` without its replay."""
    try:
        _check_state(state, rules, expected, "the state")
    except ResultError:
        raise
    except Exception as exc:  # a state bent out of shape can fail the check itself
        raise ResultError(f"the state cannot be checked ({type(exc).__name__}: {exc})") from None


def replayed(rules: Rules, setup: Any, moves: Sequence[tuple[int, Action]]) -> GameState:
    """Return the game ``moves`` give from ``setup``, applied on the fast path (they were
    checked when played)."""
    game = new_game(rules, setup=setup)
    for _, action in moves:
        game.apply(action)
    return game


def _check_replay(
    state: GameState, rules: Rules, setup: Any, moves: Sequence[tuple[int, Action]]
) -> None:
    try:
        game = replayed(rules, setup, moves)
    except Exception as exc:  # the actions do not follow from the deal: anything may raise
        raise ResultError(
            f"its {len(moves)} recorded actions do not replay from its deal "
            f"({type(exc).__name__}: {exc})"
        ) from None
    if game.phase != OVER and state.end_reason == TRUNCATED_BY_PLAY:
        game.truncate(TRUNCATED_BY_PLAY)  # play_game cut the game off: so is its replay
    for name, mine, theirs in zip(_SNAPSHOT_NAMES, _snapshot(state), _snapshot(game), strict=True):
        if mine != theirs:
            raise ResultError(
                f"replaying its recorded actions gives other {name}: {_short(mine)} played, "
                f"{_short(theirs)} replayed"
            )
    mine_result, their_result = result_of(state), result_of(game)
    if mine_result != their_result:
        key = next(
            k for k in (*mine_result, *their_result) if mine_result.get(k) != their_result.get(k)
        )
        raise ResultError(
            f"its result's {key} differs from what its recorded actions give: "
            f"{_short(mine_result.get(key))} played, {_short(their_result.get(key))} replayed"
        )


def check_result(
    state: GameState,
    rules: Rules,
    expected: RulesPrint,
    setup: Any = None,
    moves: Sequence[tuple[int, Action]] | None = None,
) -> None:
    """Raise ``ResultError`` unless the finished game ``state`` is one of ``rules`` (whose print
    before the game was ``expected``) and, when its ``setup`` and recorded ``moves`` are given,
    the game they give."""
    try:
        if state.phase != OVER:
            raise ResultError(f"the game is not over (phase {state.phase!r})")
        _check_state(state, rules, expected, "the final state")
        if setup is not None and moves is not None:
            _check_replay(state, rules, setup, moves)
    except ResultError:
        raise
    except Exception as exc:  # a state bent out of shape can fail the check itself
        raise ResultError(
            f"the final state cannot be checked ({type(exc).__name__}: {exc})"
        ) from None


__all__ = [
    "TRUNCATED_BY_PLAY",
    "ResultError",
    "RulesPrint",
    "check_decision",
    "check_result",
    "replayed",
    "rules_digest",
    "rules_print",
    "state_key",
]
