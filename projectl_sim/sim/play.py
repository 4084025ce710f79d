"""Play one game with bots: seeding, the decision loop, and the record.

Seeding discipline: a game's seed is a numpy ``SeedSequence``; its first child deals the setup and
the next ones (one per seat) seed each bot's ``random.Random``. The engine itself draws nothing.

A seat may take back its own last actions of a turn (a person at the terminal: ``TakeBacks``),
and the record may carry each decision's time (``timed``).
"""

from __future__ import annotations

import random
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from time import perf_counter, thread_time
from typing import Any, Final

import numpy as np
from mypy_extensions import mypyc_attr

from projectl_sim.engine import OVER, GameState, deal, new_game, rng_from_seed
from projectl_sim.engine.actions import Action
from projectl_sim.engine.invariants import InvariantError, check_invariants
from projectl_sim.engine.record import RecordWriter
from projectl_sim.engine.tables import trim
from projectl_sim.errors import BotError, IllegalActionError, InvariantBroken
from projectl_sim.registry import PluginError, users_classes
from projectl_sim.rules import Rules

BotFn = Callable[[GameState, random.Random], Action]

# A bot that keeps answering without ending the game is cut off after this many decisions.
MAX_DECISIONS = 20_000
# ``cpu_seconds``: the CPU clock is read around every CPU_EVERY-th decision of each seat (its
# first, fifth, ...), because one read costs about a microsecond, a tenth of a random bot's whole
# decision; the seat's total is that sample scaled to all its decisions
CPU_EVERY: Final = 4


def _describe(state: GameState, action: object) -> str:
    try:
        return state.describe(action)  # type: ignore[arg-type]
    except Exception:  # a bot may return anything at all
        return repr(action)


@mypyc_attr(native_class=False)
@dataclass(frozen=True, slots=True)
class TakeBack(Action):
    """Not a game action: a seat's answer that takes back its own last action (``TakeBacks``)."""


TakeBack.kind = "take_back"  # after the body: a class attribute, not a field
TAKE_BACK = TakeBack()


class TakeBacks:
    """The actions the seats of ``seats`` may still take back, kept by ``play_game``.

    While one of those seats goes on deciding in the same turn, the loop keeps the state before
    each of its actions; a seat answering ``TAKE_BACK`` gets the last one back (its record entry
    removed). They are forgotten when another seat decides, when the turn ends, and after an
    action that drew a card from a deck (a row's refill, a blind take, a Recycle, a reshuffle:
    the card has been seen). ``available(seat)`` is what ``seat`` may take back now (the actions'
    text, last first); ``why_not(seat)`` says why there is nothing.
    """

    def __init__(self, seats: Sequence[int]) -> None:
        self.seats = frozenset(seats)
        self.seat = -1  # the seat deciding, whose actions are kept
        self.turn = -1  # the turn it decides in
        self.saved: list[tuple[GameState, int, str]] = []  # (state before, record length, text)
        self.reasons: dict[int, tuple[int, str]] = {}  # seat -> (turn, why nothing is kept)

    def available(self, seat: int) -> list[str]:
        """Return the actions ``seat`` may take back now, last first."""
        if seat != self.seat:
            return []
        return [text for _, _, text in reversed(self.saved)]

    def why_not(self, seat: int) -> str:
        """Return why ``seat`` has nothing to take back (when ``available`` is empty)."""
        turn, why = self.reasons.get(seat, (-1, ""))
        return why if why and turn == self.turn else "nothing to take back yet this turn"

    def forget(self, why: str) -> None:
        """Forget what the deciding seat may take back (``why`` tells it why)."""
        self.saved = []
        self.reasons[self.seat] = (self.turn, why)

    def before_decision(self, state: GameState, seat: int) -> None:
        """Forget what may no longer be taken back now that ``seat`` is to decide."""
        if seat != self.seat:
            if self.saved:
                self.forget(f"seat {seat} moved since")
            self.seat = seat
        elif state.turn != self.turn and self.saved:
            self.forget("that turn has ended")
        self.turn = state.turn

    def pop(self) -> tuple[GameState, int]:
        """Return the state before the deciding seat's last kept action and the record length
        to cut back to, and forget it."""
        state, length, _ = self.saved.pop()
        if not self.saved:
            self.reasons[self.seat] = (self.turn, "nothing left to take back this turn")
        return state, length


@dataclass
class GameOutcome:
    """A played game: final state, its record writer, and the seed it came from."""

    state: GameState
    record: RecordWriter | None
    seed: int | None

    def record_json(self) -> dict[str, Any]:
        assert self.record is not None
        return self.record.to_json(self.state)


def _scale_cpu(cpu_seconds: list[float], made: list[int], timed: list[int]) -> None:
    """Scale each seat's CPU seconds, read over ``timed`` of its decisions, to all ``made``."""
    for p, n in enumerate(timed):
        if n:
            cpu_seconds[p] *= made[p] / n


# numpy's SeedSequence (its hash of the entropy into a pool of 4 words, and of the pool into
# the state words), computed here on Python ints for a game's int seed: numpy spends about 40 us
# a game making the arrays of five SeedSequence objects, this about a tenth of it, and the
# numbers are numpy's to the bit (a test compares them over many seeds)
_MASK32: Final = 0xFFFFFFFF
_POOL_SIZE: Final = 4
_INIT_A: Final = 0x43B0D7E5
_MULT_A: Final = 0x931E8875
_INIT_B: Final = 0x8B51F9DD
_MULT_B: Final = 0x58F38DED
_MIX_MULT_L: Final = 0xCA01F9DD
_MIX_MULT_R: Final = 0x4973F715


def _mul32(a: int, b: int) -> int:
    # a * b modulo 2**32 for 32-bit a and b, in 16-bit halves: compiled, a product takes the
    # machine's multiply only when both factors are below 2**30 (else a Python int's,
    # measured at about 1,500 instructions a call)
    a_lo = a & 0xFFFF
    b_lo = b & 0xFFFF
    cross = ((a >> 16) * b_lo + a_lo * (b >> 16)) & 0xFFFF
    return (a_lo * b_lo + (cross << 16)) & _MASK32


def _words(n: int) -> list[int]:
    """Return an entropy int's 32-bit words, least significant first (numpy's reading)."""
    if n == 0:
        return [0]
    out = []
    while n:
        out.append(n & _MASK32)
        n >>= 32
    return out


def _hash_consts(init: int, mult: int, n: int) -> tuple[int, ...]:
    """Return the hash constants of a SeedSequence hash's first ``n`` steps: the constant does
    not depend on the data, each step multiplies it by ``mult``."""
    out = [init]
    for _ in range(n):
        out.append(_mul32(out[-1], mult))
    return tuple(out)


# a child of a seed below 2**128 hashes 5 words in 32 steps (longer seeds compute their own)
_CONSTS_A: Final = _hash_consts(_INIT_A, _MULT_A, 32)
_CONSTS_B: Final = _hash_consts(_INIT_B, _MULT_B, 2)


class _Mixed:
    """A SeedSequence hash's pool after the entropy words of a child: the same for every child of
    one seed whose spawn key has as many words, so a game's children hash the entropy once."""

    def __init__(self, entropy: list[int], key_words: int) -> None:
        if key_words and len(entropy) < _POOL_SIZE:
            entropy = entropy + [0] * (_POOL_SIZE - len(entropy))
        self.key_words = key_words
        self.start = len(entropy)  # the data index of the spawn key's first word
        steps = _POOL_SIZE * (_POOL_SIZE - 1) + _POOL_SIZE * max(
            len(entropy) + key_words, _POOL_SIZE
        )
        consts = _CONSTS_A if steps < len(_CONSTS_A) else _hash_consts(_INIT_A, _MULT_A, steps)
        self.consts = consts
        pool = [0] * _POOL_SIZE
        k = 0  # the hash's step
        for i in range(_POOL_SIZE):
            v = _mul32((entropy[i] if i < len(entropy) else 0) ^ consts[k], consts[k + 1])
            k += 1
            pool[i] = v ^ (v >> 16)
        for i_src in range(len(entropy)):
            k = _mix(pool, pool[i_src] if i_src < _POOL_SIZE else entropy[i_src], i_src, consts, k)
        self.pool = pool
        self.step = k

    def child_rng(self, key: list[int]) -> random.Random:
        """Return the rng of the child whose spawn key is ``key`` (``key_words`` words)."""
        pool = self.pool[:]
        k = self.step
        for i in range(len(key)):
            # a key word's data index is at least the pool's size (the entropy is padded)
            k = _mix(pool, key[i], self.start + i, self.consts, k)
        # generate_state(2, uint64)[0]: the first two state words, the first the low half
        low = _mul32(pool[0] ^ _CONSTS_B[0], _CONSTS_B[1])
        high = _mul32(pool[1] ^ _CONSTS_B[1], _CONSTS_B[2])
        return random.Random((low ^ (low >> 16)) | (high ^ (high >> 16)) << 32)


def _mix(pool: list[int], value: int, i_src: int, consts: tuple[int, ...], k: int) -> int:
    """Mix the data word ``value`` at index ``i_src`` into every other pool word; return the
    hash's step after it."""
    for i_dst in range(_POOL_SIZE):
        if i_src == i_dst:
            continue  # (an index beyond the pool is never a pool word's)
        v = _mul32(value ^ consts[k], consts[k + 1])
        k += 1
        v ^= v >> 16
        m = (_mul32(_MIX_MULT_L, pool[i_dst]) - _mul32(_MIX_MULT_R, v)) & _MASK32
        pool[i_dst] = m ^ (m >> 16)
    return k


def _child_rng(entropy: list[int], key: list[int]) -> random.Random:
    """Return ``rng_from_seed(SeedSequence(entropy, spawn_key=key))``, with ``entropy`` and
    ``key`` as their 32-bit words."""
    return _Mixed(entropy, len(key)).child_rng(key)


def game_seeds(
    seed: int | np.random.SeedSequence, players: int, replicate: int = 0
) -> tuple[random.Random, list[random.Random]]:
    """Return the dealing rng and one rng per seat, all derived from one game seed.

    ``replicate`` r > 0 keeps the deal and gives the seats other rngs: the children
    ``1 + r * players + seat`` of the seed (replicate 0's are children 1 to ``players``).
    """
    if isinstance(seed, int) and not isinstance(seed, bool) and seed >= 0:
        # a game's seed, as runs give it: numpy's children, computed without numpy
        entropy = _words(seed)
        first = 1 + replicate * players if replicate else 1
        mixed = _Mixed(entropy, 1)  # the keys below 2**32 are one word: the entropy hashed once
        seats = []
        for p in range(players):
            key = _words(first + p)
            seats.append(mixed.child_rng(key) if len(key) == 1 else _child_rng(entropy, key))
        return mixed.child_rng([0]), seats
    ss = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(seed)
    children = ss.spawn(1 + players)
    if replicate:
        first = 1 + replicate * players
        children[1:] = [
            np.random.SeedSequence(ss.entropy, spawn_key=(*ss.spawn_key, first + p))
            for p in range(players)
        ]
    return rng_from_seed(children[0]), [rng_from_seed(c) for c in children[1:]]


def _draws_legal(bot: BotFn) -> bool:
    """Return whether ``bot`` promises engine-drawn answers (``Bot.draws_legal_actions``)."""
    promise = getattr(bot, "draws_legal_actions", None)
    return promise is not None and promise() is True


def check_step(state: GameState, seat: int | None = None) -> None:
    """Raise unless the game's invariants hold in ``state`` (pieces, cards and scores conserved:
    ``engine.invariants``), checked after ``seat``'s decision was applied: a ``PluginError``
    naming the user's expansions and variant in play, else ``InvariantBroken`` naming the seat
    that decided (a bot that reached into the game's state; the engine's own moves pass the
    random-play tests)."""
    try:
        check_invariants(state)
    except InvariantError as exc:
        suspects = users_classes(state.rules.expansions, state.rules.variant)
        broke = f"the game broke its invariants in round {state.round}, turn {state.turn} ({exc})"
        if not suspects:
            after = f" after seat {seat}'s decision" if seat is not None else ""
            raise InvariantBroken(
                f"{broke}{after}: a bot that reached into the game's state, or else a bug of "
                "the engine's (please report it with the game's seed)"
            ) from exc
        raise PluginError(
            f"{broke}; it plays {' and '.join(suspects)}, whose hooks changed the state"
        ) from exc


def play_game(
    rules: Rules,
    bots: Sequence[BotFn],
    seed: int,
    *,
    replicate: int = 0,
    record: bool = True,
    seat_names: Sequence[str] | None = None,
    on_step: Callable[[GameState, int, Action], None] | None = None,
    seconds: list[float] | None = None,
    cpu_seconds: list[float] | None = None,
    timed: bool = False,
    take_backs: TakeBacks | None = None,
    on_start: Callable[[GameState], None] | None = None,
    start: Callable[[random.Random], GameState] | None = None,
) -> GameOutcome:
    """Play one game to the end; every bot decision is checked before it is applied.

    ``replicate`` (a run's ``--deal-replicates``) plays the same deal with other seeds for the
    bots (``game_seeds``). ``seconds`` (one entry per seat), when given, gathers the wall-clock
    time each seat's decisions take; ``cpu_seconds`` likewise their CPU time, which a busy
    machine does not inflate (this thread's: a bot that starts threads of its own is
    under-counted), estimated from every ``CPU_EVERY``-th decision of the seat. ``timed`` writes
    each decision's seconds into the record. With ``take_backs``, its seats may answer
    ``TAKE_BACK`` (see ``TakeBacks``). ``on_start`` is called with the dealt state before the
    first decision; ``on_step`` with the state after each applied action (the same object).
    ``start`` (a study, ``sim.position_study``) builds the state before the first decision from
    the deal's rng instead of dealing.

    A bot that promises engine-drawn answers (``Bot.draws_legal_actions``: the random bot) has
    them applied unchecked.

    Raises ``BotError`` when a bot raises or answers an illegal action; the partial record is
    attached to it (``exc.outcome``) so nothing played is lost.
    """
    if len(bots) != rules.players:
        raise ValueError(f"{rules.players} players need {rules.players} bots, got {len(bots)}")
    trim()  # the memos of the games before kept within their bounds
    deal_rng, bot_rngs = game_seeds(seed, rules.players, replicate)
    state = new_game(rules, setup=deal(rules, deal_rng)) if start is None else start(deal_rng)
    names = list(seat_names) if seat_names is not None else [repr(b) for b in bots]
    writer = RecordWriter.start(state, seed, names) if record else None
    # the record's lists, appended to in place (``truncate`` cuts them in place too)
    moves_out: list[tuple[int, Action]] = writer.moves if writer is not None else []
    seconds_out: list[float | None] = writer.seconds if writer is not None else []
    if on_start is not None:
        on_start(state)
    decisions = 0
    clock = seconds is not None or timed
    made = [0] * rules.players  # each seat's decisions, and how many of them had the CPU clock
    cpu_timed = [0] * rules.players
    drawn = [_draws_legal(b) for b in bots]  # seats whose answers the engine drew
    seats = list(bots)  # indexed natively (a Sequence is indexed through the interpreter)
    limit = MAX_DECISIONS  # read once a game (a module global is a dictionary look-up)
    try:
        while state.phase != OVER:
            seat = state.current
            if take_backs is not None:
                take_backs.before_decision(state, seat)
            view = state.view(seat)
            wall_start = perf_counter() if clock else 0.0
            on_cpu = cpu_seconds is not None and made[seat] % CPU_EVERY == 0
            cpu_start = thread_time() if on_cpu else 0.0
            try:
                action = seats[seat](view, bot_rngs[seat])
            except PluginError:  # a user's expansion or variant failed, not the bot
                raise
            except Exception as exc:  # a bot's bug must not lose the game played so far
                if seconds is not None:
                    seconds[seat] += perf_counter() - wall_start
                if cpu_seconds is not None:
                    if on_cpu:
                        cpu_seconds[seat] += thread_time() - cpu_start
                        cpu_timed[seat] += 1
                    made[seat] += 1
                err = BotError(
                    f"bot {names[seat]} (seat {seat}, game seed {seed}) raised "
                    f"{type(exc).__name__}: {exc}",
                    seat,
                    traceback.format_exc(limit=4),
                )
                err.outcome = GameOutcome(state, writer, seed)  # type: ignore[attr-defined]
                raise err from None
            took = perf_counter() - wall_start if clock else 0.0
            if seconds is not None:
                seconds[seat] += took
            if cpu_seconds is not None:
                if on_cpu:
                    cpu_seconds[seat] += thread_time() - cpu_start
                    cpu_timed[seat] += 1
                made[seat] += 1
            # an engine-drawn answer is never a take-back (``Bot.draws_legal_actions``)
            if not drawn[seat] and isinstance(action, TakeBack):
                if take_backs is None or not take_backs.available(seat):
                    why = "no seat may here" if take_backs is None else take_backs.why_not(seat)
                    err = BotError(f"bot {names[seat]} (seat {seat}) cannot take back: {why}", seat)
                    err.outcome = GameOutcome(state, writer, seed)  # type: ignore[attr-defined]
                    raise err
                state, length = take_backs.pop()
                if writer is not None:
                    writer.truncate(length)
                continue
            keep = take_backs is not None and seat in take_backs.seats
            before = state.copy() if keep else None
            decks = state.decks[:] if keep else None
            turn = state.turn
            try:
                if drawn[seat]:
                    state.step_unchecked(seat, action)
                else:
                    state.step(seat, action)
            except (IllegalActionError, IndexError, TypeError, AttributeError, ValueError) as exc:
                # anything a bot returns that the checked path can't accept is the bot's illegal
                # action (an out-of-range card or piece raises IndexError in the check)
                err = BotError(
                    f"bot {names[seat]} (seat {seat}, game seed {seed}) chose an illegal action: "
                    f"{_describe(state, action)}: {exc}",
                    seat,
                )
                err.outcome = GameOutcome(state, writer, seed)  # type: ignore[attr-defined]
                raise err from None
            if writer is not None:  # writer.add, inlined (a call into the interpreter)
                moves_out.append((seat, action))
                seconds_out.append(took if timed else None)
            if take_backs is not None and before is not None:
                if state.decks != decks:
                    take_backs.forget("a card was drawn since (it has been seen)")
                elif state.turn != turn:
                    take_backs.forget("that turn has ended")
                else:
                    length = len(writer.moves) - 1 if writer is not None else 0
                    take_backs.saved.append((before, length, _describe(before, action)))
            if on_step is not None:
                on_step(state, seat, action)
            decisions += 1
            if decisions > limit:
                state.truncate("max_decisions")
    except PluginError as exc:  # the game played so far is kept, as for a bot's error
        exc.outcome = GameOutcome(state, writer, seed)  # type: ignore[attr-defined]
        raise
    finally:  # also when a bot fails: its rows keep the time it took
        if cpu_seconds is not None:
            _scale_cpu(cpu_seconds, made, cpu_timed)
    return GameOutcome(state, writer, seed)
