"""A checker every state must pass: pieces, cards and scores conserved and consistent."""

from __future__ import annotations

from collections import Counter

from projectl_sim.actions import BLACK, WHITE
from projectl_sim.engine import (
    FINISHING,
    HIDDEN,
    LEVEL_UP,
    LEVEL_UP_STEPS,
    OVER,
    PLAY,
    REWARD,
    GameState,
)
from projectl_sim.finesse import BANK_CREDITS, INSERT_COST, ROW_LENGTH
from projectl_sim.rules import ACTIONS_PER_TURN, GRID_COLUMNS, GRID_SIZE, MAX_UNFINISHED
from projectl_sim.solo import EMPTY


class InvariantError(AssertionError):
    """A state broke an invariant; the message says which."""


def check_invariants(state: GameState) -> None:
    """Raise ``InvariantError`` unless every invariant of the game holds in ``state``."""
    t = state.t
    cat = t.cat
    n = state.n
    solo = state.solo
    # Pieces: every copy is in the reserve, a supply, or placed on an unfinished puzzle (solo:
    # or above a grid column, or in the opponent's supply).
    on_puzzles = [0] * t.n_pieces
    with_opponent = [0] * t.n_pieces
    if solo is not None:
        if len(solo.locks) != GRID_COLUMNS:
            raise InvariantError(f"{len(solo.locks)} columns of locks, not {GRID_COLUMNS}")
        for piece in [p for col in solo.locks for p in col] + list(solo.opponent_supply):
            with_opponent[piece] += 1
    for p in range(n):
        if len(state.slots[p]) > MAX_UNFINISHED:
            raise InvariantError(f"player {p} has {len(state.slots[p])} unfinished puzzles")
        for card, filled, placed in state.slots[p]:
            union = 0
            for piece, mask in placed:
                if not cat.shape_of(piece, mask):
                    raise InvariantError(f"{cat.puzzles[card].id}: a placed mask is not a {piece}")
                if union & mask:
                    raise InvariantError(f"{cat.puzzles[card].id}: placed pieces overlap")
                union |= mask
                on_puzzles[piece] += 1
            if union != filled or filled & ~t.recess[card]:
                raise InvariantError(f"{cat.puzzles[card].id}: filled cells disagree with pieces")
            if filled == t.recess[card] and state.phase != FINISHING:
                raise InvariantError(f"{cat.puzzles[card].id} is full but not completed")
    for i, piece in enumerate(cat.pieces):
        held = state.reserve[i] + sum(s[i] for s in state.supply) + on_puzzles[i]
        held += with_opponent[i]
        if held != piece.copies:
            raise InvariantError(f"{piece.id}: {held} copies accounted for, not {piece.copies}")
        if state.reserve[i] < 0 or any(s[i] < 0 for s in state.supply):
            raise InvariantError(f"{piece.id}: a negative count")
    # Cards: each card in play exactly once across rows, decks, unfinished puzzles and piles
    # (a view's HIDDEN deck cards count for their deck's colour).
    per_colour = [0, 0]
    cards: Counter[int] = Counter()
    for colour in (WHITE, BLACK):
        per_colour[colour] += len(state.rows[colour]) + len(state.decks[colour])
        cards.update(state.rows[colour])
        cards.update(c for c in state.decks[colour] if c != HIDDEN)
    if solo is not None:
        if len(solo.grid) != GRID_SIZE:
            raise InvariantError(f"the grid has {len(solo.grid)} positions, not {GRID_SIZE}")
        if state.rows != [(), ()]:
            raise InvariantError("the solo variant has no rows")
        if EMPTY in solo.grid and any(state.decks):
            raise InvariantError("a grid gap is not refilled while the deck has cards")
        shown = [c for c in solo.grid if c != EMPTY] + list(solo.opponent_pile)
        cards.update(shown)
        for c in shown:
            per_colour[BLACK if t.is_black[c] else WHITE] += 1
        if solo.opponent_score != sum(t.points[c] for c in solo.opponent_pile):
            raise InvariantError(f"opponent score {solo.opponent_score} is not its pile's points")
        if state.first_player != 0 or state.current != 0:
            raise InvariantError("the solo player is seat 0")
    hidden_piles = False
    for p in range(n):
        held = [s[0] for s in state.slots[p]] + [c for c in state.piles[p] if c != HIDDEN]
        hidden_piles = hidden_piles or state.pile_hidden(p)
        cards.update(held)
        for c in held:
            per_colour[BLACK if t.is_black[c] else WHITE] += 1
    dup = [cat.puzzles[c].id for c, k in cards.items() if k > 1]
    if dup:
        raise InvariantError(f"cards in two places: {', '.join(dup)}")
    for colour in (WHITE, BLACK):
        if hidden_piles:
            break  # a view that hides piles cannot tell their colours
        if per_colour[colour] != state.cards_in_play[colour]:
            raise InvariantError(
                f"{per_colour[colour]} {('white', 'black')[colour]} cards in play, "
                f"not {state.cards_in_play[colour]}"
            )
    # Scores equal the sum of the victory pile.
    for p in range(n):
        if state.pile_hidden(p):
            continue
        if state.scores[p] != sum(t.points[c] for c in state.piles[p]):
            raise InvariantError(f"player {p}: score {state.scores[p]} is not its pile's points")
    if state.phase not in (PLAY, REWARD, FINISHING, OVER, LEVEL_UP):
        raise InvariantError(f"unknown phase {state.phase!r}")
    if state.ghost is not None:
        _check_ghosts(state)
    elif state.phase == LEVEL_UP or any(p.is_ghost for p in cat.pieces):
        raise InvariantError("a Level Up step or a ghost piece without the Ghost Piece expansion")
    fin = state.finesse
    # Finesse: a play phase with no action left is the Insert window (2 active Credits needed).
    insert_open = (
        fin is not None and state.actions_left == 0 and fin.active[state.current] >= INSERT_COST
    )
    if state.phase == PLAY and not insert_open and not 1 <= state.actions_left <= ACTIONS_PER_TURN:
        raise InvariantError(f"{state.actions_left} actions left in the play phase")
    if fin is not None:
        _check_credits(state)
    if state.phase == REWARD and len(state.reward_options) < 2:
        raise InvariantError("a reward choice with fewer than two options")
    if len(state.rows[WHITE]) > 4 or len(state.rows[BLACK]) > 4:
        raise InvariantError("a row holds more than 4 puzzles")


def _check_credits(state: GameState) -> None:
    """Finesse: 35 Credits across the bank and the players, none negative, counts consistent."""
    fin = state.finesse
    assert fin is not None
    held = sum(fin.active) + sum(fin.inactive)
    if held + fin.bank != BANK_CREDITS:
        raise InvariantError(f"{held} Credits held + {fin.bank} in the bank, not {BANK_CREDITS}")
    if fin.bank < 0 or min(fin.active) < 0 or min(fin.inactive) < 0:
        raise InvariantError("a negative Credit count")
    for p in range(state.n):
        if p != state.current and fin.inactive[p]:
            raise InvariantError(f"player {p} has inactive Credits outside its turn")
        # what a player holds is what it earned minus what it spent and gave back to an empty bank
        if fin.total(p) > fin.earned[p] - fin.spent[p]:
            raise InvariantError(f"player {p} holds more Credits than it earned and kept")
        if fin.spent[p] < 2 * fin.inserts[p] + fin.finishing[p]:
            raise InvariantError(f"player {p}: Credits spent below Inserts and Finishing Touches")
    if state.solo is not None and state.n != 1:
        raise InvariantError("Finesse Solo has one player")
    if state.round > ROW_LENGTH:
        raise InvariantError(f"round {state.round} after the {ROW_LENGTH}th Finesse tile")


def _check_ghosts(state: GameState) -> None:
    """Ghost Piece: the Level Up steps add up, the phase matches, exchange_only holds."""
    gs = state.ghost
    assert gs is not None
    t = state.t
    if (state.phase == LEVEL_UP) != (gs.steps > 0):
        raise InvariantError(f"phase {state.phase} with {gs.steps} Level Up steps open")
    if not 0 <= gs.steps <= 2 or (state.phase == LEVEL_UP and state.reward_options):
        raise InvariantError(f"{gs.steps} Level Up steps open beside {state.reward_options}")
    for p in range(state.n):
        open_steps = gs.steps if p == state.current else 0
        if gs.levelled[p] + gs.forgone[p] + open_steps != gs.earned[p]:
            raise InvariantError(
                f"player {p}: {gs.levelled[p]} Level Up steps taken + {gs.forgone[p]} forgone + "
                f"{open_steps} open, not the {gs.earned[p]} earned"
            )
        if min(gs.levelled[p], gs.forgone[p], gs.exchanges[p]) < 0:
            raise InvariantError(f"player {p}: a negative Ghost Piece count")
        if state.pile_hidden(p):
            continue
        # Level Up steps come from completed puzzles (not from Finishing Touches, which reward
        # nothing): while the game is played, earned plus still queued equals the pile's
        queued = sum(LEVEL_UP_STEPS.get(r, 0) for r in state.pending) if p == state.current else 0
        in_pile = sum(t.cat.puzzles[c].level_ups for c in state.piles[p])
        if gs.earned[p] + queued > in_pile or (
            state.phase not in (FINISHING, OVER) and gs.earned[p] + queued != in_pile
        ):
            raise InvariantError(
                f"player {p}: {gs.earned[p]} Level Up steps earned + {queued} queued, "
                f"its pile has {in_pile}"
            )
    if gs.exchange_only:
        for p in range(state.n):
            for _card, _filled, placed in state.slots[p]:
                if any(t.cat.pieces[piece].is_ghost for piece, _ in placed):
                    raise InvariantError(f"player {p} placed a ghost under exchange_only")
