"""The ``solosearch`` bot: the ``mcts`` search with rollouts, scored for solo's two aims.

In solo the mastermind is not a seat: the engine plays its turn after each of the player's, a
pure function of the table (rulings, Solo variant). What the player cannot see is the deck's
order, and the ``mcts`` search already deals it in each of its worlds from the view (the unseen
cards of each colour, whites above blacks, as ``GameState.determinize`` re-deals them), so a
rollout to the end of a world plays the mastermind's every reply to every refill of the grid. This
bot is that search with the leaf scored for what solo asks of a player: to beat the mastermind,
and to score points. A leaf at the end of the game is worth

    0.5 * won + 0.5 * logistic(margin / scale) + points * own score

(``won`` is 1 when the player beat the mastermind, a tie going to the mastermind; ``margin`` is
the player's final score minus the mastermind's). The ``mcts`` leaf is the first two terms: a
point the player scores and a point it denies the mastermind are worth the same, and the search
trades its own points for denial. ``points`` makes the player's own points count beside the
margin: worth little in a close game, where the margin's logistic is steep, and most where the
result is settled either way, where only points are left to gain.

The other players' games (not solo) are ``mcts``'s with the same parameters: the bot reads the
variant from the rules in force (``GameState.rules``) and sees only its view.
"""

from __future__ import annotations

from typing import Any, ClassVar

from bots._state import OVER, solo_table
from bots.heuristics import CostModel
from bots.mcts import MCTSBot
from bots.params import Param, Range
from projectl_sim.engine import GameState


class SoloSearchBot(MCTSBot):
    name = "solosearch"
    summary = (
        "solo: the mcts rollout search (deck dealt from the view, the mastermind's replies "
        "played to the end), each leaf worth its win, its margin and the player's own points"
    )
    params: ClassVar[dict[str, Param]] = {
        **MCTSBot.params,
        "points": (
            0.01,
            "solo: value of one point of the player's own final score, beside the win (0.5) and "
            "the margin's logistic (0.5)",
            Range(0.0, 1.0),
        ),
    }

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.points = float(self.options["points"])

    def _values(self, state: GameState, model: CostModel) -> list[float]:
        """Return the player's value of a leaf; in solo at the end of the game, the margin and the
        win as ``mcts`` counts them plus ``points`` a point of its own score."""
        values = super()._values(state, model)
        if state.phase == OVER and solo_table(state) is not None:
            values[0] += self.points * state.final_scores()[0]
        return values
