"""A game's ``events`` and ``rounds`` rows, collected while it is played.

``FlowRecorder`` watches the game loop (``play_game``'s ``on_step``, after every action) and
notes, in plain tuples, what changed: a puzzle taken, completed, recycled or left unfinished, the
reward piece a completion gave, a whole turn passed for want of a legal action, and each seat's
score and pieces at the end of every round. The rows are built once, when the game is over
(``rows``). The engine knows nothing of it: the recorder reads the state's public fields after
each action and compares them with what it saw before, so a user's expansion or variant is
followed as the base game is.

Cost: a few comparisons of lengths per action (which seat's puzzles changed, whether the round
did) and a copy of the reserve (nine ints, to see which reward pieces left it); the rest runs only
when something happened. The module is compiled with the hot loop (``projectl_sim._native``), so
these reads of the compiled state's fields are native ones. ``benchmarks/runner.py`` measures it
against a run without the tables.

What the recorder attributes, and how:

- *taken*: a card that appears among a seat's unfinished puzzles (by any action, an expansion's
  too); ``how`` says which action (``take``, ``take_deck`` or the action's kind).
- *completed*: a card that leaves them for the victory pile (or for where an expansion keeps
  completed cards, such as the Endless White Deck's noted ones); a card that leaves them
  otherwise is *discarded*. ``actions`` counts the seat's own actions after the take up to and
  including the one that completed it (Finishing Touches: the Finish).
- *recycled*: one row per card of the recycled row, for the seat that recycled it.
- *reward*: one row per completion that gives a reward: ``piece`` is the shape the seat got
  (the shown one, or what the reserve shortage rule gave instead; null when the reserve had
  nothing to give), a special reward (Level Up, Ambassador) its catalogue name.
- *unfinished*: the cards still in a seat's slots when the game is over.
- *pass*: a whole turn the engine passed because the seat had no legal action.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from projectl_sim.engine import OVER, GameState
from projectl_sim.engine.actions import Action
from projectl_sim.engine.hooks import Expansion
from projectl_sim.engine.tables import Tables
from projectl_sim.sim.rows import declared_by

# event kinds, in the words of the tables reference
TAKEN, COMPLETED, DISCARDED, RECYCLED, REWARDED, UNFINISHED, PASSED = (
    "taken",
    "completed",
    "discarded",
    "recycled",
    "reward",
    "unfinished",
    "pass",
)
EVENT_KINDS = (TAKEN, COMPLETED, DISCARDED, RECYCLED, REWARDED, UNFINISHED, PASSED)

# one event while playing: (kind, round, turn, seat, card or -1, piece text or None,
# how or None, taken round or None, actions or None)
_Event = tuple[str, int, int, int, int, str | None, str | None, int | None, int | None]
EVENT_FIELDS = (
    "event",
    "round",
    "turn",
    "seat",
    "card",
    "piece",
    "how",
    "taken_round",
    "actions",
)
# the action kinds that never change the reserve (unless they complete a puzzle, or end a turn
# whose end an expansion acts on): after them the recorder's copy of the reserve stays right
_RESERVE_KEPT = frozenset(("place", "master", "take", "take_deck", "recycle", "finish"))


class FlowRecorder:
    """Collect one game's events and end-of-round rows; ``step`` after every action."""

    def __init__(self, state: GameState) -> None:
        n = state.n
        self.n: int = n
        self.tables: Tables = state.tables
        self.piece_ids: tuple[str, ...] = self.tables.cat.piece_ids  # (a property: built per read)
        self.acted = [0] * n  # each seat's actions so far
        self.held = [[s[0] for s in state.slots[p]] for p in range(n)]
        # (seat, card) -> (round taken, the seat's actions when taken)
        self.taken: dict[tuple[int, int], tuple[int, int]] = {}
        for p in range(n):
            for card in self.held[p]:
                self.taken[(p, card)] = (state.round, 0)
        self.white: list[int] = [0] * n  # puzzles completed so far, by colour
        self.black: list[int] = [0] * n
        self.reserve: list[int] = state.reserve[:]
        self.owed: list[list[int]] = [[] for _ in range(n)]  # completed cards, rewards to come
        self.round: int = state.round
        self.turn: int = state.turn
        self.events: list[_Event] = []
        # (round, seat, score, points, pieces, white, black, unfinished, final, declared)
        self.rounds: list[tuple[Any, ...]] = []
        # the expansions' declared rounds columns
        self.hooks: tuple[Expansion, ...] = state.hooks.round_columns
        self.kinds: dict[type, str] = {}  # action class -> its kind

    # -- while playing ---------------------------------------------------------------------------
    def step(self, state: GameState, seat: int, action: Action) -> None:
        """Note what ``seat``'s ``action`` (just applied to ``state``) changed.

        Only the acting seat's puzzles are compared (no rule changes another seat's); ``finish``
        compares every seat once more at the end. A step reads three things when nothing
        happened: the seat's slots, the turn, and (through a cache by type) the action's kind
        (compiled, the state's fields are native reads; from the pure source each cost a few
        tenths of a microsecond)."""
        self.acted[seat] += 1
        kind = self.kinds.get(type(action))
        if kind is None:
            kind = self.kinds[type(action)] = action.kind
        now = state.slots[seat]
        was = self.held[seat]
        changed = len(now) != len(was) or (now and now[-1][0] != was[-1])
        if changed:
            self._slots_changed(state, seat, kind)
        if kind == "recycle":
            order = getattr(action, "order", ()) or ()
            r, t = state.round, state.turn
            events = self.events
            for card in order:  # (a random game's most frequent event: a plain loop, compiled)
                events.append((RECYCLED, r, t, seat, card, None, None, None, None))
        if self.owed[seat] or kind == "reward":
            self._rewards(state, seat)
        turn = state.turn
        turned = turn != self.turn
        if changed or turned or kind not in _RESERVE_KEPT:
            self.reserve = state.reserve[:]
        if turned:
            self._turns(state, seat)
            if state.round != self.round:
                for r in range(self.round, state.round):
                    self._round_rows(state, r, final=False)
                self.round = state.round

    def _slots_changed(self, state: GameState, p: int, kind: str) -> None:
        was = self.held[p]
        now = [s[0] for s in state.slots[p]]
        self.held[p] = now
        gone = [c for c in was if c not in now]
        if gone:
            kept = set(state.piles[p]) | set(state.completed_elsewhere(p))
            is_black = self.tables.is_black
            for card in gone:
                taken_round, at = self.taken.pop((p, card), (state.round, 0))
                done = card in kept
                self.events.append(
                    (
                        COMPLETED if done else DISCARDED,
                        state.round,
                        state.turn,
                        p,
                        card,
                        None,
                        kind,
                        taken_round,
                        self.acted[p] - at,
                    )
                )
                if done:
                    self.owed[p].append(card)
                    if is_black[card]:
                        self.black[p] += 1
                    else:
                        self.white[p] += 1
        for card in now:
            if card not in was:
                self.taken[(p, card)] = (state.round, self.acted[p])
                self.events.append(
                    (TAKEN, state.round, state.turn, p, card, None, kind, None, None)
                )

    def _rewards(self, state: GameState, p: int) -> None:
        """Match the pieces that left the reserve with the completed cards owed a reward."""
        t = self.tables
        owed = self.owed[p]
        resolved = max(0, len(owed) - len(state.pending))  # the rest wait
        if not resolved:
            return
        out = [max(0, b - a) for b, a in zip(self.reserve, state.reserve, strict=False)]
        ids = self.piece_ids
        for card in owed[:resolved]:
            wanted = t.reward[card]
            if wanted < 0:  # a special reward, resolved by its expansion
                piece: str | None = t.special_reward[wanted]
            elif out[wanted] > 0:
                out[wanted] -= 1
                piece = ids[wanted]
            else:  # the reserve shortage rule: another shape, or nothing at all
                other = next((i for i, k in enumerate(out) if k > 0), None)
                piece = None if other is None else ids[other]
                if other is not None:
                    out[other] -= 1
            self.events.append(
                (REWARDED, state.round, state.turn, p, card, piece, None, None, None)
            )
        del owed[:resolved]

    def _turns(self, state: GameState, seat: int) -> None:
        """Note the whole turns passed since the last action (the engine passes a seat with no
        legal action): every turn between the one acted in and the one now."""
        skipped = state.turn - self.turn - 1
        for k in range(1, skipped + 1):
            passer = (seat + k) % self.n
            self.events.append(
                (PASSED, state.round, self.turn + k, passer, -1, None, None, None, None)
            )
        self.turn = state.turn

    def _round_rows(self, state: GameState, r: int, final: bool) -> None:
        scores = state.final_scores() if final else state.scores
        for p in range(self.n):
            extra: dict[str, Any] | None = None
            for x in self.hooks:
                extra = extra or {}
                extra |= declared_by(x, "rounds", "round_columns", x.round_columns(state, p))
            self.rounds.append(
                (
                    r,
                    p,
                    scores[p],
                    state.scores[p],
                    sum(state.supply[p]),
                    self.white[p],
                    self.black[p],
                    len(state.slots[p]),
                    final,
                    extra,
                )
            )

    # -- at the end ------------------------------------------------------------------------------
    def finish(self, state: GameState) -> None:
        """Note the game's end: the cards left unfinished and the last round's row (its score
        the final one, after Finishing Touches). A game that did not end (a bot failed) keeps
        only the rounds it completed."""
        if state.phase != OVER:
            return
        for p in range(self.n):  # whatever changed a seat's puzzles without its own action
            now = state.slots[p]
            if [s[0] for s in now] != self.held[p]:
                self._slots_changed(state, p, "")
            for card in self.held[p]:
                taken_round, at = self.taken.get((p, card), (state.round, 0))
                self.events.append(
                    (
                        UNFINISHED,
                        state.round,
                        state.turn,
                        p,
                        card,
                        None,
                        None,
                        taken_round,
                        self.acted[p] - at,
                    )
                )
        for r in range(self.round, state.round):
            self._round_rows(state, r, final=False)
        self._round_rows(state, state.round, final=True)
        self.round = state.round + 1

    def columns(self, seats: Sequence[str]) -> dict[str, dict[str, list[Any]]]:
        """Return the game's ``events`` and ``rounds`` columns (without the configuration
        columns every row of the game shares: ``tables.flow_table`` adds them)."""
        puzzles = self.tables.cat.puzzles
        points = self.tables.points
        events: dict[str, list[Any]] = {name: [] for name in EVENT_FIELDS}
        if self.events:
            for name, values in zip(EVENT_FIELDS, zip(*self.events, strict=True), strict=True):
                events[name] = list(values)
        # each card's catalogue columns, read once per card: a puzzle's fields are Python
        # attributes, and a random game's ~200 events name a few dozen cards
        info: dict[int, tuple[Any, ...]] = {}
        for c in events["card"]:
            if c not in info:
                if c >= 0:
                    pz = puzzles[c]
                    info[c] = (pz.id, pz.colour, points[pz.index], pz.expansion, pz.provisional)
                else:
                    info[c] = (None, None, None, None, None)
        of_card = [info[c] for c in events["card"]]
        events["card"] = [row[0] for row in of_card]
        events["event_index"] = list(range(len(of_card)))
        events["bot"] = [seats[p] for p in events["seat"]]
        events["colour"] = [row[1] for row in of_card]
        events["points"] = [row[2] for row in of_card]
        events["puzzle_set"] = [row[3] for row in of_card]
        events["provisional"] = [row[4] for row in of_card]
        names = (
            "round",
            "seat",
            "score",
            "points",
            "pieces",
            "completed_white",
            "completed_black",
            "unfinished",
            "final",
        )
        rounds: dict[str, list[Any]] = {name: [] for name in names}
        if self.rounds:
            for name, values in zip(names, zip(*self.rounds, strict=True), strict=False):
                rounds[name] = list(values)
        rounds["bot"] = [seats[p] for p in rounds["seat"]]
        extras = [row[-1] for row in self.rounds]
        for name in {k for e in extras if e for k in e}:
            rounds[name] = [e.get(name) if e else None for e in extras]
        return {"events": events, "rounds": rounds}

    def rows(
        self, ident: Mapping[str, Any], seats: Sequence[str]
    ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """Return the events rows and the rounds rows as dicts, each beginning with ``ident``
        (what the tables hold, one game at a time)."""
        from projectl_sim.sim import tables  # pyarrow: not at import (workers never need it)

        out = []
        for table in tables.FLOW_TABLES:
            data = tables.flow_table([(ident, self.columns(seats)[table])], table)
            out.append(data.to_pylist())
        return out[0], out[1]


__all__ = ["EVENT_KINDS", "FlowRecorder"]
