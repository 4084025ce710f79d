"""One game with people in it, played through the browser: the state, the record, the bots' turns.

``Session`` holds the game the page shows. A person's action arrives in its record form
(``engine.actions.from_json``), is checked on the engine's checked path and applied; then the
bots play until a person's seat is to move again or the game is over, and the record so far is
written to its file after every change, so nothing played is lost if the server stops. ``undo``
takes back the person's last decision and whatever the bots answered after it: the record is cut
before that decision and replayed from its setup (``engine.record.replay``), so nothing is dealt
again. ``choices`` is what the page may offer the person now: every legal action that is not a
placement as a button, and the legal placements of each unfinished puzzle, which the page
matches against the cells clicked. ``hint`` asks the ``value`` bot (``web.hint``);
``save_position`` writes the position now as a file a study reads (``board.position``);
``chances`` is the win-chance graph of the steps so far (``board.winprob``), as the viewer's,
valued from the person's view while the game runs.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from pathlib import Path
from time import perf_counter
from typing import Any

from bots.value_model import load_model
from projectl_sim.board.position import Position, write_position
from projectl_sim.board.winprob import Step, calibration_for, chances_table, view_chances
from projectl_sim.engine import FINISHING, OVER, PLAY, GameState, deal, finish_options, new_game
from projectl_sim.engine.actions import (
    Action,
    Finish,
    Place,
    Recycle,
    Take,
    from_json,
    to_json,
)
from projectl_sim.engine.record import RecordWriter, replay, write_record
from projectl_sim.errors import BotError, IllegalActionError, InvariantBroken, RecordError
from projectl_sim.expansions.ambassador_pack import ambassadors
from projectl_sim.expansions.finesse import Insert, credits, finish_paying
from projectl_sim.registry import PluginError
from projectl_sim.rules import Rules
from projectl_sim.sim.play import MAX_DECISIONS, check_step, game_seeds

# worlds a running game's win chances average over (each step dealt from the seat's view)
WORLDS = 4


class Session:
    """A game of ``rules`` between ``bots`` (the seats in ``humans`` are people at the page)."""

    def __init__(
        self,
        rules: Rules,
        bots: Sequence[Any],
        seed: int,
        humans: Sequence[int],
        path: str | Path,
        names: Sequence[str] | None = None,
    ) -> None:
        if not humans:
            raise ValueError("a browser game needs a person's seat")
        self.rules = rules
        self.bots = list(bots)
        self.seed = seed
        self.humans = frozenset(humans)
        self.path = Path(path)
        self.names = list(names) if names is not None else [repr(b) for b in bots]
        deal_rng, self.rngs = game_seeds(seed, rules.players)
        self.state: GameState = new_game(rules, setup=deal(rules, deal_rng))
        self.writer = RecordWriter.start(self.state, seed, self.names)
        # every position so far, the deal first: the win-chance graph's (``chances``)
        self.steps: list[Step] = [Step(0, self.state.copy(), -1, None)]
        self.evaluation: Any = None  # (model, calibration), loaded when first drawn
        self.asked_at = perf_counter()  # when the person's current decision was put to them
        self.hint_rng = random.Random(seed)  # the hints' dealt worlds (not the seats' streams)
        self.hinter: Any = None
        self.message = ""
        self.failed = ""  # why a bot stopped the game ("" while it goes on)
        self.advance()

    # -- the game ------------------------------------------------------------------------------
    @property
    def over(self) -> bool:
        return self.state.phase == OVER

    @property
    def seat(self) -> int:
        """Return the seat to move."""
        return self.state.current

    def record(self) -> dict[str, Any]:
        """Return the record so far (with its result once the game is over)."""
        return self.writer.to_json(self.state)

    def save(self) -> None:
        """Write the record so far to the session's file."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        write_record(self.record(), self.path)

    def _apply(self, seat: int, action: Action, seconds: float) -> None:
        self.state.step(seat, action)  # checked: raises IllegalActionError saying why
        self.writer.add(seat, action, seconds)
        self.steps.append(Step(len(self.steps), self.state.copy(), seat, action))
        check_step(self.state, seat)
        if len(self.writer.moves) > MAX_DECISIONS:
            self.state.truncate("max_decisions")

    def advance(self) -> None:
        """Let the bots play until a person is to move or the game is over; save the record."""
        told = []
        try:
            while not self.over and self.seat not in self.humans:
                seat = self.seat
                start = perf_counter()
                try:
                    action = self.bots[seat](self.state.view(seat), self.rngs[seat])
                    took = perf_counter() - start
                    told.append(f"seat {seat}: {self.state.describe(action)}")
                    self._apply(seat, action, took)
                except (PluginError, InvariantBroken):
                    raise
                except Exception as exc:  # a bot's bug ends the game, the record so far kept
                    self.failed = (
                        f"bot {self.names[seat]} (seat {seat}) failed: {type(exc).__name__}: "
                        f"{exc}; the game so far is in {self.path}"
                    )
                    raise BotError(self.failed, seat) from None
        finally:
            self.save()
        self.asked_at = perf_counter()
        self.message = "; ".join(told[-6:]) if told else ""

    def act(self, raw: Any) -> str:
        """Apply a person's action given in its record form; return it in words.

        Raises ``RecordError`` for a malformed action and ``IllegalActionError`` for one the
        game does not allow now (each with a one-line message).
        """
        if self.failed:
            raise BotError(self.failed, -1)
        if self.over:
            raise IllegalActionError("the game is over")
        if isinstance(raw, dict) and "player" not in raw:
            raw = {**raw, "player": self.seat}
        try:
            player, action = from_json(raw, self.rules.catalogue)
        except RecordError as exc:
            raise RecordError(f"not an action: {exc}") from None
        if player != self.seat or player not in self.humans:
            raise IllegalActionError(f"seat {player} is not yours to move (seat {self.seat} is)")
        try:
            self.state.check(player, action)
        except (IndexError, TypeError, ValueError, AttributeError) as exc:
            raise IllegalActionError(f"not an action of this game: {exc}") from None
        text = self.state.describe(action)
        self._apply(player, action, perf_counter() - self.asked_at)
        self.advance()
        return text

    def undo(self) -> str:
        """Take back the person's last decision (and the bots' answers); return it in words."""
        moves = self.writer.moves
        last = next((i for i in range(len(moves) - 1, -1, -1) if moves[i][0] in self.humans), None)
        if last is None:
            raise IllegalActionError("nothing to undo: you have not moved yet")
        action = moves[last][1]
        self.writer.truncate(last)
        del self.steps[last + 1 :]
        record = self.writer.to_json()
        self.state = replay(record, self.rules.catalogue, self.rules.expansion_data).state
        self.save()
        self.asked_at = perf_counter()
        text = self.state.describe(action)
        self.message = f"taken back: {text}"
        return text

    @property
    def viewer(self) -> int:
        """Return the seat whose view the page shows: the person to move, else the first."""
        return self.seat if self.seat in self.humans else min(self.humans)

    def chances(self) -> dict[str, Any]:
        """Return the win-chance graph of the steps so far (the viewer's: ``board.winprob``,
        the learned evaluation calibrated).

        While the game runs, each step is valued as the page's seat sees it: the mean, per
        seat, of the chances in ``WORLDS`` worlds dealt from the seat's view of that step
        (``GameState.determinize``: the others' face-down piles and the decks drawn from the
        unseen cards; each step's worlds seeded by the game's seed and the step, so the graph
        holds still between page loads). Once the game is over, from the whole states, as
        the viewer shows a record."""
        if self.evaluation is None:
            model = load_model("")
            self.evaluation = model, calibration_for(model)
        model, cal = self.evaluation
        if self.over:
            return view_chances(chances_table(self.steps, self.names, model, cal), cal)
        seat = self.viewer
        rngs = [random.Random(f"{self.seed}:{s.step}:{seat}") for s in self.steps]
        views = [s.state.view(seat) for s in self.steps]
        tables = [
            chances_table(
                [
                    Step(s.step, v.determinize(rng), s.seat, s.action)
                    for s, v, rng in zip(self.steps, views, rngs, strict=True)
                ],
                self.names,
                model,
                cal,
            )
            for _ in range(WORLDS)
        ]
        rows = [
            r
            | {
                key: round(sum(t[i][key] for t in tables) / WORLDS, digits)
                for key, digits in (("margin", 3), ("win_chance", 4))
            }
            for i, r in enumerate(tables[0])
        ]
        graph = view_chances(rows, cal)
        graph["source"] = (
            f"as seat {seat} sees each step: the mean of {WORLDS} worlds dealt from its view; "
            + graph["source"]
        )
        return graph

    def save_position(self) -> Path:
        """Write the position now (``board.position``'s file: the record so far, its step and
        the state it reaches) beside the record; return the file."""
        step = len(self.writer.moves)
        path = self.path.with_name(f"{self.path.stem}-step{step}.position.json")
        path.parent.mkdir(parents=True, exist_ok=True)
        write_position(Position(self.writer.to_json(), step, self.state, []), path)
        self.message = f"position saved to {path}"
        return path

    # -- what the page offers --------------------------------------------------------------------
    def choices(self) -> dict[str, Any]:
        """Return the person's options now: buttons, placements per puzzle, Master and Insert."""
        out: dict[str, Any] = {
            "seat": self.seat,
            "yours": not self.over and not self.failed and self.seat in self.humans,
            "over": self.over,
            "message": self.message,
            "record": str(self.path),
            "undo": any(p in self.humans for p, _ in self.writer.moves),
            "failed": self.failed,
        }
        if not out["yours"]:
            return out
        view = self.state.view(self.seat)
        cat = self.rules.catalogue
        seat = self.seat
        buttons: list[dict[str, Any]] = []
        places: dict[str, list[dict[str, Any]]] = {}
        takes: dict[str, dict[str, Any]] = {}
        multi: dict[str, str] = {}
        inserts = False
        recycled: set[int] = set()

        def button(group: str, action: Action) -> None:
            raw = to_json(action, cat, seat)
            buttons.append({"group": group, "text": view.describe(action), "action": raw})

        if view.phase == FINISHING:
            fin = credits(view)
            for option in finish_options(view):
                button("finish", option)
                assert isinstance(option, Finish)
                most = min(fin.active[seat], len(option.placements)) if fin is not None else 0
                if most:  # Finesse: the most pieces paid with Credits instead of points
                    button("finish", finish_paying(option, most))
            out.update(buttons=buttons, places=places, takes=takes, multi=multi, inserts=False)
            return out
        for a in view.legal_actions("none"):
            if isinstance(a, Insert):  # Finesse: any action, as an Insert (the page's checkbox)
                inserts = True
                continue
            if isinstance(a, Place):
                card = cat.puzzles[a.card].id
                places.setdefault(card, []).append(
                    {"piece": cat.pieces[a.piece].id, "cells": to_json(a, cat, seat)["cells"]}
                )
            elif isinstance(a, Recycle):
                if a.colour not in recycled:  # one button a row: the order kept as it is
                    recycled.add(a.colour)
                    button("recycle", Recycle(a.colour, tuple(view.rows[a.colour])))
            elif isinstance(a, Take):
                takes[cat.puzzles[a.card].id] = to_json(a, cat, seat)
                button("take", a)
            else:
                button(a.kind, a)
        if view.phase == PLAY and places:
            if view.slots[seat] and not view.master_used:
                multi.setdefault("master", "Master: a piece into each puzzle, then play it")
            amb = ambassadors(view)
            if amb is not None and amb.held[seat]:
                multi.setdefault("ambassador", f"Ambassador ({amb.held[seat]} held): like Master")
        out.update(buttons=buttons, places=places, takes=takes, multi=multi, inserts=inserts)
        return out

    def hint(self) -> dict[str, Any]:
        """Return the ``value`` bot's preferred action now and the values it compared."""
        from projectl_sim.web.hint import value_hint

        if self.over or self.seat not in self.humans:
            raise IllegalActionError("no hint: it is not your move")
        if self.hinter is None:
            from bots import make_bot

            self.hinter = make_bot("value")
        return value_hint(self.hinter, self.state.view(self.seat), self.hint_rng)
