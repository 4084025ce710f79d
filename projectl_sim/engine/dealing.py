"""Setups: dealing one from a seed, a game from one, and a game's setup as records write it.

Seeding discipline: a game seed is a numpy ``SeedSequence``; ``rng_from_seed`` turns it into the
fast ``random.Random`` that deals (the engine itself draws nothing, so a record replays without
any rng). The variant's state class deals the table, then each expansion in play adds its part,
in hook order (so adding an expansion leaves the other parts of a seed's setup unchanged).
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np

from projectl_sim.engine.hooks import hooks_of
from projectl_sim.engine.state import GameState
from projectl_sim.errors import RulesError
from projectl_sim.registry import variant_class
from projectl_sim.rules import Rules


def rng_from_seed(seed: int | np.random.SeedSequence) -> random.Random:
    """Return a fast ``random.Random`` derived from a seed or a numpy ``SeedSequence``."""
    ss = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(seed)
    return random.Random(int(ss.generate_state(2, dtype=np.uint64)[0]))


def state_class(rules: Rules) -> type[GameState]:
    """Return the state class that plays ``rules``' variant (``projectl_sim.registry``)."""
    try:
        cls: type[GameState] = variant_class(rules.variant)
    except KeyError:
        raise RulesError(f"no state class plays the variant {rules.variant!r}") from None
    return cls


def deal(rules: Rules, rng: random.Random) -> dict[str, Any]:
    """Deal a setup: the variant's table, then each expansion's part, then the added puzzles."""
    setup = state_class(rules).deal_table(rules, rng)
    for x in hooks_of(rules).deal:
        x.deal(rules, rng, setup)
    if rules.added_puzzles:
        deal_added(rules, rng, setup)
    return setup


def deal_added(rules: Rules, rng: random.Random, setup: dict[str, Any]) -> None:
    """Deal the rules' ``added_puzzles`` into a standard setup dealt without them.

    Everything else a seed deals stays as it is without them (the designer's paired trials: the
    same seed with and without a new puzzle). A white one goes to a uniform place of the white
    deck (a uniform shuffle of all of them); a black one replaces the card at a uniform place r
    of the n + 1 black puzzles when r falls inside the deck of k (probability k / (n + 1)): the
    black deck stays a uniform ordered draw of k from all n + 1.
    """
    cat = rules.catalogue
    added = rules.added_puzzles
    blacks = sum(1 for c in cat.of_colour("black") if cat.puzzles[c].id not in added)
    for pid in added:
        if cat.puzzle(pid).is_black:
            blacks += 1  # the puzzles this one is drawn among
            deck: list[str] = setup["black_deck"]
            r = rng.randrange(blacks)
            if r < len(deck):
                deck[r] = pid
        else:
            white: list[str] = setup["white_deck"]
            white.insert(rng.randrange(len(white) + 1), pid)


def new_game(
    rules: Rules,
    seed: int | np.random.SeedSequence | None = None,
    setup: Any = None,
) -> GameState:
    """Start a game from an explicit ``setup``, or dealt from ``seed`` (one of them is needed)."""
    if setup is None:
        if seed is None:
            raise ValueError("new_game needs a seed or a setup")
        setup = deal(rules, rng_from_seed(seed))
    return state_class(rules)(rules, setup)


def setup_of(state: GameState) -> dict[str, Any]:
    """Return the setup (as a record writes it) of a state that has not moved yet."""
    setup = state.table_json()
    for x in state.hooks.setup_json:
        x.setup_json(state, setup)
    return setup
