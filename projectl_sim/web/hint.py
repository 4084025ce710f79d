"""A hint for the person at the page: the ``value`` bot's choice, and the values it compared.

The bot itself decides (its own protocol: a view and an ``rng``), so the hint is what ``value``
would play. Beside it, the candidates the value search compares (``bots.value.candidates``,
shortlisted as the bot does) are scored the way the bot scores them at its default settings:
each played in one world dealt from what the seat can see, the turn finished the greedy way,
the position reached valued by the learned evaluation (win chance plus half the predicted
margin per 10 points, ``ValueBot.values``; the greedy choice with the bot's ``prior`` added).
Outside the Play phase (a reward, Finishing Touches) only the choice is given.
"""

from __future__ import annotations

import random
from typing import Any

from bots.features import hidden_piles, mean_unseen_points
from bots.heuristics import cost_model
from bots.value import ValueBot
from projectl_sim.engine import PLAY, GameState
from projectl_sim.engine.actions import to_json

# at most this many alternatives are listed (best first)
SHOWN = 6


def value_hint(bot: ValueBot, view: GameState, rng: random.Random) -> dict[str, Any]:
    """Return the bot's choice in ``view`` and, in the Play phase, its candidates' values."""
    cat = view.rules.catalogue
    me = view.current
    choice = bot(view, random.Random(rng.getrandbits(64)))
    out: dict[str, Any] = {
        "bot": repr(bot),
        "choice": view.describe(choice),
        "action": to_json(choice, cat, me),
        "alternatives": [],
    }
    if view.phase != PLAY:
        return out
    model = cost_model(view)
    cands = bot.scored(view, model)
    world = view.determinize(rng)

    hidden = hidden_piles(view)
    per_card = mean_unseen_points(view) if hidden else 0.0
    after = [bot.after(world, a, rng) for a in cands]
    values = bot.values(after, me, hidden, per_card)
    values[0] += bot.prior  # the greedy choice (first) must be beaten by the prior, as in the bot
    ranked = sorted(zip(values, range(len(cands)), strict=True), key=lambda v: (-v[0], v[1]))
    out["alternatives"] = [
        {
            "text": view.describe(cands[i]),
            "value": round(v, 3),
            "chosen": cands[i] == choice,
            "greedy": i == 0,
            "prior": bot.prior if i == 0 else 0.0,
        }
        for v, i in ranked[:SHOWN]
    ]
    return out
