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
    REWARD_AMBASSADOR,
    GameState,
)
from projectl_sim.finesse import BANK_CREDITS, INSERT_COST, ROW_LENGTH
from projectl_sim.line_clear import BLACK_MARKER_OFFSET
from projectl_sim.line_clear import ROW_SIZE as LC_ROW_SIZE
from projectl_sim.rules import ACTIONS_PER_TURN, GRID_COLUMNS, GRID_SIZE, MAX_UNFINISHED, ROW_SIZE
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
        if state.line_clear is not None:  # the rows of the side not moving
            row = state.line_clear.other_rows[colour]
            per_colour[colour] += len(row)
            cards.update(row)
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
    # Scores equal the sum of the victory pile (Endless: and of the noted white puzzles).
    endless = state.endless
    for p in range(n):
        noted = endless.noted[p] if endless is not None else ()
        if state.pile_hidden(p) or HIDDEN in noted:
            continue
        if state.scores[p] != sum(t.points[c] for c in state.piles[p] + noted):
            raise InvariantError(
                f"player {p}: score {state.scores[p]} is not its pile's (and noted) points"
            )
    if endless is not None:
        _check_endless(state)
    if state.ambassadors is not None:
        _check_ambassadors(state)
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
    if state.line_clear is not None:
        _check_line_clear(state)


def _check_line_clear(state: GameState) -> None:
    """Line Clear: four rows of 3, refilled while their deck lasts; markers, turns and rounds."""
    lc = state.line_clear
    assert lc is not None
    n = state.n
    for side in (state.rows, lc.other_rows):
        for colour in (WHITE, BLACK):
            if len(side[colour]) > LC_ROW_SIZE:
                raise InvariantError(f"a Line Clear row holds {len(side[colour])} puzzles")
            if len(side[colour]) < LC_ROW_SIZE and state.decks[colour]:
                raise InvariantError("a Line Clear row is not refilled while its deck has cards")
    if (lc.white - state.first_player) % n != lc.pairs % n:
        raise InvariantError(f"the white marker is at seat {lc.white} after {lc.pairs} turn pairs")
    if (lc.black - lc.white) % n != BLACK_MARKER_OFFSET[n]:
        raise InvariantError(f"the markers are at seats {lc.white} and {lc.black}")
    if lc.received and not state.trigger_round:
        raise InvariantError("markers counted for the end before the trigger")
    in_play = state.phase in (PLAY, REWARD, LEVEL_UP)
    if not 0 <= lc.received <= 3 or (in_play and lc.received == 3):
        raise InvariantError(f"received markers {lc.received} in phase {state.phase}")
    rounds = lc.pairs // n + 1
    if state.round != rounds and not (
        not in_play and lc.pairs % n == 0 and state.round == rounds - 1
    ):
        raise InvariantError(f"round {state.round} after {lc.pairs} turn pairs of {n} players")
    waiting = lc.turns[1 - lc.moving]
    if not 0 <= waiting[0] <= ACTIONS_PER_TURN or not 0 <= waiting[2] <= 1:
        raise InvariantError(f"the waiting holder's turn is {waiting}")
    if in_play:
        if state.current != lc.holder(lc.moving):
            raise InvariantError(f"player {state.current} moves but holds no marker")
        if not 0 <= state.black_taken <= 1:
            raise InvariantError(f"{state.black_taken} black puzzles taken after the trigger")
        if not lc.interleave and lc.moving == 1 and waiting[0]:
            raise InvariantError("white_first: the black holder moves before the white is done")


def _check_endless(state: GameState) -> None:
    """Endless White Deck: noted cards are white; an empty white deck while a completed white
    puzzle lies in a pile means a missed reshuffle (in play); no row gap while the deck has cards.
    """
    endless = state.endless
    assert endless is not None
    t = state.t
    if state.solo is not None:
        raise InvariantError("the Endless White Deck is not played in solo")
    if endless.reshuffles < 0 or (not endless.reshuffles and any(endless.noted)):
        raise InvariantError("noted cards without a reshuffle")
    for p, noted in enumerate(endless.noted):
        if any(c != HIDDEN and t.is_black[c] for c in noted):
            raise InvariantError(f"player {p} has a black puzzle noted")
    white_in_piles = any(c != HIDDEN and not t.is_black[c] for pile in state.piles for c in pile)
    if state.phase in (PLAY, REWARD, LEVEL_UP) and not state.decks[WHITE] and white_in_piles:
        raise InvariantError("the white deck is empty while completed white puzzles wait")
    # (Line Clear's four rows are checked by _check_line_clear)
    if state.line_clear is None and state.decks[WHITE] and len(state.rows[WHITE]) < ROW_SIZE:
        raise InvariantError("a gap in the white row while the white deck has cards")


def _check_ambassadors(state: GameState) -> None:
    """Ambassador Pack: every Ambassador held or used came from a completed Ambassador puzzle
    (exactly, until Finishing Touches, whose completions give no reward)."""
    amb = state.ambassadors
    assert amb is not None
    t = state.t
    endless = state.endless
    for p in range(state.n):
        held, used = amb.held[p], amb.used[p]
        if held < 0 or used < 0:
            raise InvariantError(f"player {p}: a negative Ambassador count")
        cards = state.piles[p] + (endless.noted[p] if endless is not None else ())
        if HIDDEN in cards:
            continue
        earned = sum(1 for c in cards if t.reward[c] == REWARD_AMBASSADOR)
        if p == state.current:
            earned -= state.pending.count(REWARD_AMBASSADOR)  # rewards still queued
        if held + used > earned or (
            state.phase in (PLAY, REWARD, LEVEL_UP) and held + used != earned
        ):
            raise InvariantError(
                f"player {p}: {held} Ambassadors held + {used} used, from {earned} completed"
            )


def _check_credits(state: GameState) -> None:
    """Finesse: 35 Credits across the bank and the players, none negative, counts consistent."""
    fin = state.finesse
    assert fin is not None
    held = sum(fin.active) + sum(fin.inactive)
    if held + fin.bank != BANK_CREDITS:
        raise InvariantError(f"{held} Credits held + {fin.bank} in the bank, not {BANK_CREDITS}")
    if fin.bank < 0 or min(fin.active) < 0 or min(fin.inactive) < 0:
        raise InvariantError("a negative Credit count")
    in_turn = {state.current}
    lc = state.line_clear
    if lc is not None and state.phase in (PLAY, REWARD, LEVEL_UP) and lc.turns[1 - lc.moving][0]:
        in_turn.add(lc.holder(1 - lc.moving))  # Line Clear: the other holder's turn goes on too
    for p in range(state.n):
        if p not in in_turn and fin.inactive[p]:
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
