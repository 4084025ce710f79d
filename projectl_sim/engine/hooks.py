"""The points where an expansion extends the base game, and the order the engine calls them in.

An expansion is one subclass of ``Expansion`` (its rules) plus, when it keeps anything per game, a
*block*: the object its ``start`` returns, which the state holds in ``state.blocks[self.slot]``
and copies, hides and re-deals through the hooks below. One ``Expansion`` object is made per
``Rules`` and shared by every game played with them, so it holds only what the rules fix (tables,
switches); everything that changes during a game is in the block.

The engine calls, for the expansions in play, only the hooks each class overrides, in the order of
their ``order`` (then their name): the shipped ones are Finesse (10: its Insert wraps every other
action and its pink tiles pay before an action changes the state), the Ambassador Pack (20), Ghost
Piece (30), Phoenix (40, puzzle data only) and the Endless White Deck (50: it reshuffles after
everything else an action did). A user's expansion defaults to 100, after them. Each hook's
docstring says when it is called; the defaults do nothing, so a class overrides only what it
changes. ``Hooks`` is the per-rules table of who implements what.

Hooks receive the state and read their block with ``state.blocks[self.slot]``. They may call the
state's public methods and its helpers meant for them (``place``, ``complete``, ``gain``...);
they must not change another expansion's block.

The state a hook receives is a ``GameState`` (or a variant's subclass of it), typed ``Any`` here:
``state`` imports this module, which therefore names no state class (no import cycle). An
expansion annotates its overrides with ``GameState``, and in a compiled build reads the state's
fields natively.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any, ClassVar

from mypy_extensions import mypyc_attr

from projectl_sim.engine.sealed import Sealed
from projectl_sim.frozen import ReadOnlyDict
from projectl_sim.options import Column, Option
from projectl_sim.registry import declare_expansion_base, expansion_classes
from projectl_sim.rules import Rules

if TYPE_CHECKING:
    from projectl_sim.engine.actions import Action


@mypyc_attr(allow_interpreted_subclasses=True)
class Expansion:
    """The rules one expansion adds to the base game: override the hooks that apply.

    One instance per rules object, shared by every game, copy and view of them: per-game state
    lives in the expansion's block (``start``), never on the instance. A shipped expansion's
    instance has no writable public attribute: ``rules`` and ``slot`` are read-only properties,
    a class's own fields are private and listed in its ``__slots__``. (It cannot be ``Sealed``:
    mypyc compiles no ``__setattr__`` in a class that Python classes may extend.) A user's
    expansion without ``__slots__`` has an instance dictionary: it too must keep nothing there
    that a game changes.
    """

    name: ClassVar[str] = ""  # as records and the command line name it
    order: ClassVar[int] = 100  # hook order among the expansions in play (see the module)
    # its short name in tables' labels and charts (``GP+Ph``); "" for its name's initials
    abbreviation: ClassVar[str] = ""
    # played by naming it in ``Rules.expansions`` (False: by a rules switch, see ``played``)
    named: ClassVar[bool] = True
    # the action kinds this expansion owns (``Action.kind``), checked and applied by its hooks
    action_kinds: ClassVar[tuple[str, ...]] = ()
    # the special rewards it resolves: catalogue reward names (``catalogue.SPECIAL_REWARDS``)
    rewards: ClassVar[tuple[str, ...]] = ()
    # the phases it adds to the base game's (play, reward, finishing_touches, over)
    phases: ClassVar[tuple[str, ...]] = ()
    # record ``result`` keys it adds, checked when a record is replayed
    result_keys: ClassVar[tuple[str, ...]] = ()
    # its rules options (``Rules.options``, ``--rule``, records) and the table columns its
    # ``seat_columns`` / ``game_columns`` / ``round_columns`` fill (``projectl_sim.options``)
    options: ClassVar[tuple[Option, ...]] = ()
    columns: ClassVar[tuple[Column, ...]] = ()
    # the keyword of the data it is played with beyond its options, a table loaded from a file
    # (``Rules(NAME=data)``, ``replay(record, NAME=data)``); held in ``rules.expansion_data``
    # under its name, read by it. "" for none
    data_name: ClassVar[str] = ""

    # no instance dictionary: an instance is shared by every game of its rules, and what it
    # holds is read-only to all but itself (a class's own fields are private, under __slots__)
    __slots__ = ("_rules", "_slot")

    def __init__(self, rules: Rules) -> None:
        self._rules = rules
        self._slot = -1  # set by Hooks

    @property
    def rules(self) -> Rules:
        """The rules in force."""
        return self._rules

    @property
    def slot(self) -> int:
        """The index of this expansion's block in ``state.blocks``."""
        return self._slot

    @classmethod
    def check_rules(cls, rules: Rules) -> None:
        """Raise ``RulesError`` for rules this expansion cannot be played with (called when a
        ``Rules`` naming it is built, its options already checked one by one)."""

    @classmethod
    def played(cls, rules: Rules) -> bool:
        """Return whether ``rules`` play this expansion (by default: named in ``expansions``)."""
        return cls.name in rules.expansions

    # -- the block: start, copy, view, re-deal ---------------------------------------------------
    def start(self, state: Any, setup: dict[str, Any]) -> Any:
        """Return this expansion's block of a new game (``setup`` is the record's; raise
        ``RecordError`` for a bad one). Called once the base game is set up."""
        return None

    def copy_block(self, block: Any) -> Any:
        """Return an independent copy of a block (``state.copy``); immutable blocks are shared."""
        return block

    def view_block(self, state: Any, block: Any, player: int) -> Any:
        """Return what ``player`` may know of a block (``state.view``; ``block`` is a copy)."""
        return block

    def redeal_block(self, state: Any, block: Any, rng: random.Random) -> Any:
        """Return a block with what its viewer could not see drawn at random (``redeal``)."""
        return block

    def resample_hidden(self, state: Any, rng: random.Random) -> tuple[int, ...]:
        """Draw at random what ``state`` (a copy of a view) hides of this expansion's that
        counts in the seats' scores (``GameState.determinize``: after the hidden piles, before
        the decks are re-dealt); return the seats whose completed cards changed."""
        return ()

    # -- setups ----------------------------------------------------------------------------------
    def deal(self, rules: Rules, rng: random.Random, setup: dict[str, Any]) -> None:
        """Add this expansion's part to a setup dealt from a seed (after the variant's)."""

    def setup_json(self, state: Any, setup: dict[str, Any]) -> None:
        """Add this expansion's part to the record setup of a game that has not moved yet."""

    def record_json(self, rules: Rules, record: dict[str, Any]) -> None:
        """Add top-level keys to a record (a user's data file's name, to replay it with)."""

    def record_hint(self, record: dict[str, Any]) -> str:
        """Return a hint to add to a record's setup error ("" for none)."""
        return ""

    # -- legal actions ---------------------------------------------------------------------------
    def add_actions(self, state: Any, acts: list[Action], master: str) -> None:
        """Add this expansion's Play actions to ``acts`` (after the base game's and Master's)."""

    def wrap_actions(self, state: Any, acts: list[Action]) -> None:
        """Add actions made of the ones listed so far (an Insert of each: after add_actions)."""

    def free_actions(self, state: Any, acts: list[Action], master: str) -> None:
        """Add actions that are no action of the turn (after wrap_actions: never wrapped)."""

    def phase_actions(self, state: Any) -> list[Action]:
        """Return the legal actions of a phase of this expansion's (``phases``)."""
        return []

    def has_piece_action(self, state: Any) -> bool:
        """Return whether the player to move has a Play action of this expansion's on pieces
        (when nothing else is legal, the player passes: this keeps it from passing)."""
        return False

    def placeable(self, state: Any, supply: list[int]) -> list[int]:
        """Return the pieces of ``supply`` that may be placed (do not mutate ``supply``)."""
        return supply

    # -- checks ----------------------------------------------------------------------------------
    def check(self, state: Any, player: int, action: Action) -> Action:
        """Check what this expansion adds to any Play action; return the action the base
        checks see (an Insert's inner action). Raise ``IllegalActionError``."""
        return action

    def check_action(self, state: Any, player: int, action: Action) -> None:
        """Check an action of one of this expansion's ``action_kinds`` in the play phase."""

    def check_phase(self, state: Any, player: int, action: Action) -> None:
        """Check an action during one of this expansion's ``phases``."""

    def finishing_refusal(self, action: Action) -> str:
        """Return why one of this expansion's actions is refused during Finishing Touches ("":
        the base game's reason, only Finishing Touches are allowed)."""
        return ""

    def placement_error(self, state: Any, piece: int) -> str:
        """Return a better reason why ``piece`` may not be placed ("" to keep the base's)."""
        return ""

    def upgrade_error(self, state: Any, piece: int) -> str:
        """Return a better reason why the Upgrade action may not take ``piece``, a piece the
        reserve gives only as a reward ("" to keep the base's)."""
        return ""

    def check_finish(self, state: Any, player: int, action: Action) -> None:
        """Check this expansion's part of a Finish of one of its ``action_kinds`` (its own
        subclass of ``Finish``: placements the expansion pays for), once its placements are
        checked. Raise ``IllegalActionError``."""

    # -- applying --------------------------------------------------------------------------------
    def before_apply(self, state: Any, action: Action) -> bool:
        """Called first for every action applied; return True when it applied the action."""
        return False

    def apply_action(self, state: Any, action: Action) -> None:
        """Apply an action of one of this expansion's ``action_kinds`` (the base game then
        ends the action: counts it, reshuffles, advances)."""

    def counts_as_action(self, state: Any, action: Action) -> bool:
        """Return whether one of this expansion's actions uses one of the turn's actions."""
        return True

    def after_action(self, state: Any) -> None:
        """Called after every Play action is applied (before the turn moves on)."""

    def resolve_reward(self, state: Any, player: int, code: int) -> bool:
        """Resolve one of this expansion's special rewards (``rewards``; already off the
        queue); return True when it opened a decision (the rest of the queue waits)."""
        return False

    def puzzle_completed(self, state: Any, player: int, card: int) -> None:
        """Called for each puzzle ``player`` completes during a turn, once it is in the victory
        pile and its pieces are back in the supply, before its reward is resolved (not during
        Finishing Touches, whose completions reward nothing)."""

    def reward_received(self, state: Any, player: int, code: int) -> None:
        """Called when ``player`` receives any reward (a piece index, or a special reward's
        negative code) from a completed puzzle, before it is resolved."""

    # -- turns, rounds and the end ---------------------------------------------------------------
    def end_turn(self, state: Any) -> None:
        """Called at the end of the turn of the player to move (``state.current``)."""

    def ends_game_at_round_end(self, state: Any) -> bool:
        """Return whether the round ending now ends the game (then Finishing Touches)."""
        return False

    def start_finishing(self, state: Any) -> None:
        """Called when Finishing Touches begin."""

    def pay_finishing(self, state: Any, player: int, action: Action) -> int:
        """Pay for a Finish of one of this expansion's ``action_kinds`` once its pieces are
        placed; return how many of its placements it paid (the others cost a point each)."""
        return 0

    def tie_break(self, state: Any, tied: list[int]) -> list[int]:
        """Return the seats among ``tied`` (equal scores) that stay tied, before the base game's
        tie-breakers."""
        return tied

    def completed_elsewhere(self, state: Any, player: int) -> tuple[int, ...]:
        """Return the cards ``player`` completed that are no longer in its victory pile (their
        points stay in its score; they count as completed)."""
        return ()

    # -- results, tables, text -------------------------------------------------------------------
    def result_json(self, state: Any, result: dict[str, Any]) -> None:
        """Add this expansion's part to a finished game's record ``result`` (``result_keys``)."""

    def summary_json(self, state: Any, out: dict[str, Any]) -> None:
        """Add this expansion's part to a state's JSON (``record.state_json``: what ``replay
        --json`` prints and each step of the viewer draws; ``out["players"]`` per seat)."""

    def seat_columns(self, state: Any, player: int) -> dict[str, Any]:
        """Return this expansion's columns of a seat row of the outcome tables."""
        return {}

    def game_columns(self, state: Any) -> dict[str, Any]:
        """Return this expansion's columns of a game row of the outcome tables."""
        return {}

    def round_columns(self, state: Any, player: int) -> dict[str, Any]:
        """Return this expansion's columns of a ``rounds`` row (``player`` at a round's end)."""
        return {}

    def provisional(self, state: Any) -> tuple[str, ...]:
        """Return the names of the provisional data this game used (beyond the catalogue's)."""
        return ()

    def player_text(self, state: Any, player: int) -> str:
        """Return text added to a player's line of the state drawing ("" for none)."""
        return ""

    def render_lines(self, state: Any) -> list[str]:
        """Return lines added to the state drawing (after the reserve)."""
        return []

    def check_invariants(self, state: Any) -> None:
        """Raise ``InvariantError`` unless this expansion's invariants hold in ``state``."""


# the registry checks every expansion extends this class, and guards a user's class's hooks:
# what they raise is one line naming the class and hook (``registry.PluginError``)
declare_expansion_base(Expansion)


# Every hook a class may override; Hooks lists, per hook, the expansions in play that do.
HOOKS = (
    "copy_block",
    "view_block",
    "redeal_block",
    "resample_hidden",
    "deal",
    "setup_json",
    "record_json",
    "record_hint",
    "add_actions",
    "wrap_actions",
    "free_actions",
    "has_piece_action",
    "placeable",
    "check",
    "placement_error",
    "upgrade_error",
    "before_apply",
    "after_action",
    "puzzle_completed",
    "reward_received",
    "end_turn",
    "ends_game_at_round_end",
    "start_finishing",
    "tie_break",
    "completed_elsewhere",
    "result_json",
    "summary_json",
    "seat_columns",
    "game_columns",
    "round_columns",
    "provisional",
    "player_text",
    "render_lines",
    "check_invariants",
)


def _overrides(x: Expansion, hook: str) -> bool:
    return getattr(type(x), hook) is not getattr(Expansion, hook)


class Hooks(Sealed):
    """The expansions one ``Rules`` plays, and per hook the ones that implement it (in order).

    Built once per rules object (``hooks_of``) and shared by every game, copy and view of them:
    sealed once built, its dictionaries read-only (the expansions it holds: see ``Expansion``).
    """

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        played = [cls(rules) for cls in expansion_classes() if cls.played(rules)]
        played.sort(key=lambda x: (x.order, x.name))
        self.all: tuple[Expansion, ...] = tuple(played)
        slots: dict[str, int] = {}
        for slot, x in enumerate(played):
            x._slot = slot  # Hooks places the expansions it holds
            slots[x.name] = slot
        self.slots: dict[str, int] = ReadOnlyDict(slots)
        by_hook: dict[str, tuple[Expansion, ...]] = {
            hook: tuple(x for x in played if _overrides(x, hook)) for hook in HOOKS
        }
        self.copy_block = by_hook["copy_block"]
        self.view_block = by_hook["view_block"]
        self.redeal_block = by_hook["redeal_block"]
        self.resample_hidden = by_hook["resample_hidden"]
        self.deal = by_hook["deal"]
        self.setup_json = by_hook["setup_json"]
        self.record_json = by_hook["record_json"]
        self.record_hint = by_hook["record_hint"]
        self.add_actions = by_hook["add_actions"]
        self.wrap_actions = by_hook["wrap_actions"]
        self.free_actions = by_hook["free_actions"]
        self.has_piece_action = by_hook["has_piece_action"]
        self.placeable = by_hook["placeable"]
        self.check = by_hook["check"]
        self.placement_error = by_hook["placement_error"]
        self.upgrade_error = by_hook["upgrade_error"]
        self.before_apply = by_hook["before_apply"]
        self.after_action = by_hook["after_action"]
        self.puzzle_completed = by_hook["puzzle_completed"]
        self.reward_received = by_hook["reward_received"]
        self.end_turn = by_hook["end_turn"]
        self.ends_game_at_round_end = by_hook["ends_game_at_round_end"]
        self.start_finishing = by_hook["start_finishing"]
        self.tie_break = by_hook["tie_break"]
        self.completed_elsewhere = by_hook["completed_elsewhere"]
        self.result_json = by_hook["result_json"]
        self.summary_json = by_hook["summary_json"]
        self.seat_columns = by_hook["seat_columns"]
        self.game_columns = by_hook["game_columns"]
        self.round_columns = by_hook["round_columns"]
        self.provisional = by_hook["provisional"]
        self.player_text = by_hook["player_text"]
        self.render_lines = by_hook["render_lines"]
        self.check_invariants = by_hook["check_invariants"]
        # who owns each action kind, special reward and phase
        action_owner: dict[str, Expansion] = {}
        phase_owner: dict[str, Expansion] = {}
        reward_names: dict[str, Expansion] = {}
        for x in played:
            for kind in x.action_kinds:
                action_owner[kind] = x
            for phase in x.phases:
                phase_owner[phase] = x
            for reward in x.rewards:
                reward_names[reward] = x
        self.action_owner: dict[str, Expansion] = ReadOnlyDict(action_owner)
        self.phase_owner: dict[str, Expansion] = ReadOnlyDict(phase_owner)
        self.reward_names: dict[str, Expansion] = ReadOnlyDict(reward_names)
        self.result_keys: tuple[str, ...] = tuple(k for x in played for k in x.result_keys)
        self.seal()

    def get(self, name: str) -> Expansion | None:
        """Return the expansion ``name`` when these rules play it, else None."""
        slot = self.slots.get(name)
        return None if slot is None else self.all[slot]


_HOOKS: dict[int, Hooks] = {}


def hooks_of(rules: Rules) -> Hooks:
    """Return the hooks of a rules object (built once per object)."""
    h = _HOOKS.get(id(rules))
    if h is None or h.rules is not rules:
        if len(_HOOKS) > 4096:
            _HOOKS.clear()
        h = _HOOKS[id(rules)] = Hooks(rules)
    return h
