"""Balance search: the rule parameters that make a balance objective smallest, then confirmed.

``tune`` asks Optuna (its TPE sampler, seeded) for settings of the parameters searched, plays
each setting as an ordinary run of ``games_per_trial`` games per configuration, and tells Optuna
the run's objective (``analysis.objectives``), until the budget of games is spent. Every search
run has the same root seed, so every setting is played on the same deals (common random
numbers): the differences between settings are not drowned by the luck of the deal, and a
setting asked for again is answered from its first run at no cost (the objective on those deals
is already known). The price is that the search can fit those deals; so the best few settings
(``confirm``), and the rulebook's own setting beside them, are played again on fresh deals (a new
root seed, shared by all of them: a paired run) and reported with 95% bootstrap intervals over
the deals, and each one's difference from the best confirmed. A small space of whole numbers and
choices (``GRID_LIMIT`` settings) that the budget holds is searched whole, each setting once; one
the budget does not hold is searched by TPE, and the report names the settings it left out and
the budget that holds them all. An objective that is not a number (no game measured it) stops
the search with an error naming the trial, never a verdict.

Two more searches share this machinery. ``objective_name="tiers"`` plays each setting as a round
robin of skill tiers (``tiers``, 2 players, both seatings on the same deals) and scores it by its
distance from a target win-rate matrix and first-player rate (``TiersTarget``, read by
``parse_tiers_target``): rules that keep skill rewarded and seats fair. ``bot=`` tunes a bot's
own parameters instead of the rules' (``parse_bot_param``; a float range is searched as floats):
each setting is the candidate ``BOT:NAME=V,...`` seated against every bot of ``field`` (one
line-up per opponent), scored by minus its win rate (objective ``strength``) on deals shared by
every setting, and confirmed like a rules search, the bot's defaults in the rulebook's place.

A tune folder holds ``search/trial-NNN/`` and ``confirm/NAME/`` (ordinary run folders),
``trials.csv`` (one row per search trial), ``confirmed.csv``, ``tune.json`` (what was asked),
``report.txt`` and ``tune.png`` (the objective against each parameter).
"""

from __future__ import annotations

import itertools
import json
import math
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from bots.params import Range
from projectl_sim.analysis.data import load_run
from projectl_sim.analysis.objectives import (
    OBJECTIVES,
    TIERS,
    TiersTarget,
    game_matrix,
    objective,
    paired_intervals,
)
from projectl_sim.errors import UsageError
from projectl_sim.experiments.tiers import tiers_round_robin
from projectl_sim.loading import base_catalogue, load_catalogue
from projectl_sim.rules import is_run_switch, puzzle_key, switch_default, switch_value
from projectl_sim.sim import runner
from projectl_sim.sim.spec import MAX_GAMES, RunSpec, configurations, rules_of

if TYPE_CHECKING:
    from matplotlib.figure import Figure

SEARCH, CONFIRM = "search", "confirm"
RULEBOOK = "rulebook"


@dataclass(frozen=True)
class Param:
    """One parameter searched: a whole-number range, or a list of values to choose from."""

    name: str
    low: int | float | None = None
    high: int | float | None = None
    choices: tuple[Any, ...] = ()
    continuous: bool = False  # a float range (bot tuning): searched as floats

    @property
    def values(self) -> tuple[Any, ...]:
        if self.choices:
            return self.choices
        assert self.low is not None and self.high is not None
        if self.continuous:
            return (self.low, self.high)
        return tuple(range(int(self.low), int(self.high) + 1))

    @property
    def size(self) -> int:
        """Return how many settings the parameter has (a float range: practically endless)."""
        return 10**6 if self.continuous else len(self.values)

    def text(self) -> str:
        if self.choices:
            return f"{self.name}={','.join(map(str, self.choices))}"
        return f"{self.name}={self.low}..{self.high}"


def parse_param(text: str) -> Param:
    """Return the ``Param`` of ``NAME=LOW..HIGH`` or ``NAME=V1,V2,...``; a bad one is one line."""
    name, eq, raw = text.partition("=")
    name, raw = name.strip(), raw.strip()
    if not eq or not name or not raw:
        raise UsageError(f"--param {text!r}: use NAME=LOW..HIGH or NAME=V1,V2,...")
    if not is_run_switch(name) or name == "added_puzzles":
        raise UsageError(
            f"--param {name}: not a rules parameter or switch (black_deck_3p, row_size, "
            "max_unfinished, actions_per_turn, points.ID, ...; see run --help)"
        )
    try:
        if ".." in raw:
            lo_text, _, hi_text = raw.partition("..")
            low, high = switch_value(name, lo_text), switch_value(name, hi_text)
            if not isinstance(low, int) or isinstance(low, bool) or not isinstance(high, int):
                raise UsageError(f"rule {name}: a range LOW..HIGH needs whole numbers")
            if low > high:
                raise UsageError(f"rule {name}: the range {low}..{high} is empty")
            return Param(name, low, high)
        choices = tuple(dict.fromkeys(switch_value(name, v) for v in raw.split(",")))
    except UsageError as exc:
        raise UsageError(f"--param {text!r}: {str(exc).partition(': ')[2] or exc}") from None
    return Param(name, choices=choices)


def parse_bot_param(bot: str, text: str) -> Param:
    """Return the ``Param`` of a bot's parameter ``NAME=LOW..HIGH`` (a float range when the
    parameter is a float) or ``NAME=V1,V2,...``, each end checked by the bot (one line)."""
    from bots import make_bot

    name, eq, raw = text.partition("=")
    name, raw = name.strip(), raw.strip()
    if not eq or not name or not raw:
        raise UsageError(f"--param {text!r}: use NAME=LOW..HIGH or NAME=V1,V2,...")
    base = make_bot(bot)
    if name not in base.params:
        from projectl_sim.errors import unknown_name

        raise UsageError(f"--param: {unknown_name(f'{base.name} parameter', name, base.params)}")
    default = base.params[name][0]
    numeric = isinstance(default, (int, float)) and not isinstance(default, bool)
    if ".." in raw and numeric:
        lo_text, _, hi_text = raw.partition("..")
        kind = float if isinstance(default, float) else int
        try:
            low, high = kind(lo_text), kind(hi_text)
        except ValueError:
            raise UsageError(f"--param {text!r}: {name} takes {kind.__name__} values") from None
        if low > high:
            raise UsageError(f"--param {text!r}: the range {low}..{high} is empty")
        check = base.params[name][2] if len(base.params[name]) > 2 else None
        if kind is float and isinstance(check, Range) and high > low:
            # a bound the bot leaves out (risk > 0) is searched from just inside it
            step = round((high - low) * 1e-3, 6)
            low = low + step if check.open_low and low == check.low else low
            high = high - step if check.open_high and high == check.high else high
        for v in (low, high):
            make_bot(_candidate(bot, {name: v}))  # out of the bot's range: its one line
        return Param(name, low, high, continuous=kind is float)
    choices = tuple(dict.fromkeys(v.strip() for v in raw.split(",") if v.strip()))
    for v in choices:
        make_bot(_candidate(bot, {name: v}))
    if numeric:
        kind = float if isinstance(default, float) else int
        choices = tuple(kind(v) for v in choices)
    return Param(name, choices=choices)


def _candidate(bot: str, setting: Mapping[str, Any]) -> str:
    """Return the bot spec of a setting of its parameters (``greedy:risk=0.4,reward=1``)."""
    from bots import split_spec

    if not setting:
        return bot
    source, rest = split_spec(bot)
    given = dict(kv.split("=", 1) for kv in rest.split(",") if "=" in kv)
    given |= {k: str(v) for k, v in setting.items()}
    return source + ":" + ",".join(f"{k}={v}" for k, v in given.items())


def parse_tiers_target(text: str | None, tiers: Sequence[str]) -> TiersTarget:
    """Return the target of ``--objective tiers``: a TOML or JSON file, or ``KEY=V,...``.

    Inline keys: ``stronger=T`` (every tier's win rate against each tier after it: tiers are
    given strongest first; default 0.6) and ``first=F`` (the first player's win rate, default
    0.5; ``first=none``: not targeted). A file holds ``first_player = F`` and a table ``beats``
    of tables: ``[beats."mcts:leaf=value"]`` ``value = 0.6``, ``greedy = 0.75`` (the row beats
    the column at that rate); pairs it leaves out are not targeted.
    """
    import tomllib

    from bots import make_bot

    names = {t: repr(make_bot(t)) for t in tiers}
    order = list(names.values())
    if len(order) < 2:
        raise UsageError("--tiers: give two or more tiers, strongest first")
    path = Path(text) if text else None
    if path is not None and path.suffix in (".toml", ".json"):
        try:
            raw = path.read_text(encoding="utf-8")
            data = tomllib.loads(raw) if path.suffix == ".toml" else json.loads(raw)
        except OSError as exc:
            raise UsageError(f"--tiers-target {path}: cannot read ({exc.strerror})") from None
        except (ValueError, tomllib.TOMLDecodeError) as exc:
            raise UsageError(f"--tiers-target {path}: malformed ({exc})") from None
        if not isinstance(data, dict) or not isinstance(data.get("beats", {}), dict):
            raise UsageError(f"--tiers-target {path}: expected first_player and a beats table")
        unknown = sorted(set(data) - {"first_player", "beats"})
        if unknown:
            raise UsageError(f"--tiers-target {path}: unknown key {unknown[0]!r}")
        beats: dict[tuple[str, str], float] = {}
        for row, cells in data.get("beats", {}).items():
            if not isinstance(cells, dict):
                raise UsageError(f"--tiers-target {path}: beats.{row} is not a table")
            for col, value in cells.items():
                a, b = (names.get(x) or repr(make_bot(x)) for x in (row, col))
                if a not in order or b not in order or a == b:
                    raise UsageError(
                        f"--tiers-target {path}: {row} against {col} is no pair of --tiers"
                    )
                beats[(a, b)] = _rate(value, f"beats.{row}.{col}")
        first = data.get("first_player", 0.5)
        return TiersTarget(beats, None if first is None else _rate(first, "first_player"))
    given: dict[str, str] = {}
    for item in (text or "").split(","):
        if not item.strip():
            continue
        key, eq, value = item.partition("=")
        if not eq or key.strip() not in ("stronger", "first"):
            raise UsageError(
                f"--tiers-target {text!r}: give stronger=T,first=F, or a .toml/.json file"
            )
        given[key.strip()] = value.strip()
    stronger = _rate(given.get("stronger", "0.6"), "stronger")
    first_text = given.get("first", "0.5")
    first = None if first_text == "none" else _rate(first_text, "first")
    pairs = {(a, b): stronger for i, a in enumerate(order) for b in order[i + 1 :]}
    return TiersTarget(pairs, first)


def _rate(value: Any, name: str) -> float:
    try:
        rate = float(value)
    except (TypeError, ValueError):
        rate = math.nan
    if not 0 <= rate <= 1:
        raise UsageError(f"--tiers-target: {name} = {value!r} is not a win rate from 0 to 1")
    return rate


@dataclass
class TuneResult:
    """A finished search: its folder, the trials, the confirmed settings and the report.

    ``trials`` has a row per setting searched (``value`` on the search's shared deals, and when
    known its 95% interval ``ci_low``, ``ci_high`` and the paired difference from the search's
    best ``diff``, ``diff_low``, ``diff_high``); ``confirmed`` a row per setting played again on
    fresh deals (``diff*``: from the best confirmed; ``vs_rulebook*``: from the rulebook's
    setting, when it was played). ``rulebook`` is the rulebook's setting (None: a card the
    catalogue lacks).
    """

    out: Path
    objective: str
    params: tuple[Param, ...]
    trials: pd.DataFrame
    confirmed: pd.DataFrame
    seed: int
    confirm_seed: int
    target: Any = None  # a number, or the TiersTarget of the tiers objective
    games_played: int = 0
    notes: list[str] = field(default_factory=list)
    rulebook: dict[str, Any] | None = None
    games_per_trial: int | None = None
    bot: str | None = None  # bot tuning: the bot whose parameters were searched

    @property
    def best(self) -> dict[str, Any]:
        """Return the confirmed setting of the smallest value (parameter -> value); whether it is
        measurably better than the rulebook's is ``verdict``'s to say."""
        row = self.confirmed.sort_values("value").iloc[0]
        return {p.name: row[p.name] for p in self.params}

    @property
    def goal(self) -> str:
        """Return what is made small: the objective, or its distance from the target (the
        tiers objective: its distance from the tiers target; bot tuning: minus the bot's win
        rate)."""
        if self.bot is not None:
            return f"minus {self.bot}'s win rate"
        if self.objective == TIERS:
            return "tiers distance"
        return self.objective if self.target is None else f"|{self.objective} - {self.target:g}|"

    def _target_lines(self) -> list[str]:
        """Return what the tiers objective or a bot's tuning measured against, in words."""
        if self.bot is not None:
            return [
                f"(strength: minus the win rate of {self.bot} with the setting, against its field)"
            ]
        if self.objective != TIERS or self.target is None:
            return []
        shown = self.target.text() if isinstance(self.target, TiersTarget) else self.target
        return [f"(tiers target: {shown}; the root mean square of the win rates' distances)"]

    @property
    def rulebook_tag(self) -> str:
        """Return how the report marks the rulebook's setting (bot tuning: the bot's own)."""
        return "  (the bot's defaults)" if self.bot is not None else "  (the rulebook's)"

    def _setting(self, row: Mapping[str, Any]) -> str:
        return ", ".join(f"{p.name}={_shown(row[p.name])}" for p in self.params)

    def is_rulebook(self, row: Mapping[str, Any]) -> bool:
        """Return whether a row of ``trials`` or ``confirmed`` is the rulebook's setting."""
        if self.rulebook is None:
            return row.get("name") == RULEBOOK
        return _setting_key({p.name: _shown(row[p.name]) for p in self.params}) == _setting_key(
            {k: _shown(v) for k, v in self.rulebook.items()}
        )

    def noise_warning(self) -> str | None:
        """Return a warning when the search's trials are too small to rank the settings: more
        settings are within noise of the search's best (the paired 95% interval of their
        difference includes 0) than were confirmed, so which ones were confirmed is luck. The
        games a trial would need come from the interval widths: the first setting left out is
        told from the best when its interval's half-width, shrinking as 1/sqrt(games), falls
        below its difference."""
        t = self.trials
        if t.empty or "diff_low" not in t or not np.isfinite(t["diff_low"]).any():
            return None
        ranked = t.sort_values(["value", "trial"]).reset_index(drop=True)
        names = [p.name for p in self.params]
        played = {
            _setting_key({n: _shown(r[n]) for n in names})
            for r in self.confirmed.to_dict("records")
        }
        confirmed = sum(
            _setting_key({n: _shown(r[n]) for n in names}) in played
            for r in ranked.to_dict("records")
        )
        within = (ranked["diff_low"] <= 0) & (ranked["diff_high"] >= 0)
        tied = ranked[within]
        if len(tied) <= confirmed or confirmed >= len(ranked):
            return None
        if (ranked["diff_low"] == 0).all() and (ranked["diff_high"] == 0).all():
            return (
                "note: every setting searched measured the same on every deal of the search: "
                "the parameter did not change these games."
            )
        per = self.games_per_trial or int(ranked["games"].iloc[0])
        text = (
            f"warning: trials of {per} games per configuration are too small to rank the "
            f"settings: {len(tied)} of {len(ranked)} are within noise of the search's best (the "
            f"95% interval of their paired difference from it includes 0), more than the "
            f"{confirmed} confirmed, so which ones were confirmed is partly luck"
        )
        # the interval's lower end reaches 0 from diff - diff_low away: it leaves 0 out once
        # that distance, shrinking as 1/sqrt(games), falls below the difference itself
        left = tied[tied.index >= confirmed]
        left = left[(left["diff"] > 0) & (left["diff"] > left["diff_low"])]
        if len(left):
            r = left.iloc[0]
            need = math.ceil(per * ((r["diff"] - r["diff_low"]) / r["diff"]) ** 2)
            if need > per:
                text += (
                    f"; about {need} games per trial (--games-per-trial) would tell "
                    f"{self._setting(r)} ({r['diff']:+.4f}), the first left out, from the best"
                )
        return text + "."

    def verdict(self) -> str:
        """Return the line that says what the confirmation found, in words: a setting is called
        best only when the 95% interval of its difference from the rulebook's (or, without the
        rulebook's, from every other confirmed setting) leaves out 0."""
        c = self.confirmed.sort_values("value").reset_index(drop=True)
        if c.empty:
            return "verdict: no setting was confirmed."
        others = c[[not self.is_rulebook(r) for r in c.to_dict("records")]]
        rulebook = c[[self.is_rulebook(r) for r in c.to_dict("records")]]
        if not rulebook.empty and "vs_rulebook_low" in c:
            rule = rulebook.iloc[0]
            rule_text = f"the rulebook's {self._setting(rule)}"
            if others.empty:
                return (
                    f"verdict: the search's best was {rule_text}, confirmed alone: nothing to "
                    "compare it with (--confirm K confirms more settings beside it)."
                )
            better = others[others["vs_rulebook_high"] < 0]
            worse = others[others["vs_rulebook_low"] > 0]
            if not better.empty:
                b = better.iloc[0]
                return (
                    f"best: {self._setting(b)}, better than {rule_text} by "
                    f"{b['vs_rulebook']:+.4f} [{b['vs_rulebook_low']:+.4f}, "
                    f"{b['vs_rulebook_high']:+.4f}] on the same fresh deals."
                )
            if worse.empty:
                return (
                    "verdict: no setting is distinguishable from the rulebook's at this budget "
                    f"(every confirmed difference's 95% interval includes 0): keep {rule_text}, "
                    "or confirm on more games (--confirm-games) to see a smaller difference."
                )
            worse_text = (
                f"the other {len(others)} {'is' if len(others) == 1 else 'are'} measurably worse"
                if len(worse) == len(others)
                else f"{len(worse)} of the {len(others)} others are measurably worse"
            )
            if self.is_rulebook(c.iloc[0].to_dict()):
                return f"best: {rule_text} itself; {worse_text} at this budget."
            return (
                f"verdict: no setting is measurably better than {rule_text} at this budget "
                f"(the lower ones are within noise of it); {worse_text}."
            )
        top = c.iloc[0]
        tied = c.iloc[1:][(c["diff_low"].iloc[1:] <= 0) & (c["diff_high"].iloc[1:] >= 0)]
        if len(c) > 1 and len(tied) == len(c) - 1:
            return (
                "verdict: no confirmed setting is distinguishable from the others at this budget "
                "(every confirmed difference's 95% interval includes 0)."
            )
        if tied.empty:
            return f"best: {self._setting(top)} (every other confirmed setting measurably worse)."
        near = "; ".join(self._setting(r) for r in tied.to_dict("records"))
        return f"best: {self._setting(top)} or, within noise of it, {near}."

    def text(self) -> str:
        """Return the report ``tune`` prints: every setting searched, the rulebook's marked, a
        warning when the trials are too small to rank them, the confirmation and its verdict."""
        per = (
            f", {self.games_per_trial} games per configuration each" if self.games_per_trial else ""
        )
        lines = [
            f"tune {self.goal} over {', '.join(p.text() for p in self.params)}: "
            f"{len(self.trials)} settings searched on the same deals (seed {self.seed}){per}, "
            f"{self.games_played} games in all",
            *self._target_lines(),
            *self.notes,
        ]
        intervals = "diff_low" in self.trials and np.isfinite(self.trials["diff_low"]).any()
        lines.append(
            "search, every setting tried (best first"
            + (
                "; diff: from the search's best on the same deals, 95% bootstrap over the deals, "
                "* : leaves out 0):"
                if intervals
                else "):"
            )
        )
        width = max([len(self._setting(r)) for r in self.trials.to_dict("records")] + [20])
        rows = self.trials.sort_values(["value", "trial"]).to_dict("records")
        best_trial = rows[0]["trial"] if rows else None
        for r in rows:
            tag = self.rulebook_tag if self.is_rulebook(r) else ""
            diff = ""
            if intervals and r["trial"] == best_trial:
                diff = "  (the reference)".ljust(32)
            elif intervals and np.isfinite(r["diff_low"]):
                mark = " *" if r["diff_low"] > 0 or r["diff_high"] < 0 else "  "
                diff = (
                    f"  diff {r['diff']:+.4f} [{r['diff_low']:+.4f}, {r['diff_high']:+.4f}]{mark}"
                )
            lines.append(
                f"  {self._setting(r):<{width}} {r['value']:8.4f}{diff}  ({r['games']} games){tag}"
            )
        if self.rulebook is not None and not any(self.is_rulebook(r) for r in rows):
            shown = ", ".join(f"{k}={_shown(v)}" for k, v in self.rulebook.items())
            lines.append(f"  (the rulebook's {shown} was not searched: it is confirmed below)")
        warning = self.noise_warning()
        if warning:
            lines.append(warning)
        vs = "vs_rulebook_low" in self.confirmed
        lines.append(
            f"confirmed on fresh shared deals (seed {self.confirm_seed}), 95% bootstrap intervals "
            "over the deals; "
            + (
                "diff: from the rulebook's setting, on the same deals (* : leaves out 0):"
                if vs
                else "diff: from the best, on the same deals (* : leaves out 0):"
            )
        )
        key = (
            ("vs_rulebook", "vs_rulebook_low", "vs_rulebook_high")
            if vs
            else (
                "diff",
                "diff_low",
                "diff_high",
            )
        )
        reference = (
            self.confirmed.sort_values("value")["name"].iloc[0] if len(self.confirmed) else None
        )
        for r in self.confirmed.sort_values("value").to_dict("records"):
            tag = self.rulebook_tag if self.is_rulebook(r) else ""
            d, lo, hi = (r[k] for k in key)
            mark = " *" if lo > 0 or hi < 0 else "  "
            own = self.is_rulebook(r) if vs else r["name"] == reference
            diff = (
                "(the reference)".ljust(30)
                if own
                else f"diff {d:+.4f} [{lo:+.4f}, {hi:+.4f}]{mark}"
            )
            scored = f"{r['value']:8.4f} [{r['ci_low']:.4f}, {r['ci_high']:.4f}]"
            lines.append(
                f"  {self._setting(r):<{width}} {scored:<27} {diff}  ({r['games']} games){tag}"
            )
        lines.append(self.verdict())
        text = "\n".join(lines)
        # bot tuning: the bot's own defaults stand where the rulebook's setting does
        return text.replace("the rulebook's", "the bot's default") if self.bot else text


def _shown(v: Any) -> Any:
    """Return a value as the report shows it (a whole number read back as 14.0 shows 14)."""
    v = v.item() if isinstance(v, np.generic) else v
    if isinstance(v, float) and v.is_integer():
        return int(v)
    return v


def _setting_key(setting: Mapping[str, Any]) -> tuple[tuple[str, str], ...]:
    return tuple(sorted((k, str(v)) for k, v in setting.items()))


def _default_of(param: Param, catalogue: str | Path | None) -> Any:
    """Return the rulebook's value of a parameter (a puzzle key: the card's printed value)."""
    key = puzzle_key(param.name)
    if key is None:
        return switch_default(param.name)
    cat = base_catalogue() if catalogue is None else load_catalogue(catalogue)
    if not cat.has_puzzle(key[1]):
        return None  # the run's own check names the missing card
    card = cat.puzzle(key[1])
    return card.points if key[0] == "points" else card.reward


def tune(
    params: Sequence[Param],
    out: str | Path,
    *,
    objective_name: str,
    bots: Sequence[str] = (),
    budget: int,
    players: Sequence[int] | str | None = None,
    games_per_trial: int | None = None,
    confirm: int = 3,
    confirm_games: int | None = None,
    seed: int | None = None,
    target: float | TiersTarget | None = None,
    rules: Mapping[str, Any] | None = None,
    catalogue: str | Path | None = None,
    expansions: str | Sequence[str] | None = None,
    options: runner.RunOptions | None = None,
    echo: Any = None,
    tiers: Sequence[str] = (),
    bot: str | None = None,
    field: Sequence[str] = (),
) -> TuneResult:
    """Search ``params`` for the smallest ``objective_name`` within ``budget`` games, confirm the
    best ``confirm`` settings (and the rulebook's) on fresh deals, and write the tune folder.

    ``objective_name="tiers"``: each setting is a round robin of ``tiers`` at 2 players, scored
    against ``target`` (a ``TiersTarget``). ``bot``: the parameters are the bot's, each setting
    the candidate seated against each bot of ``field`` (objective ``strength``)."""
    import optuna

    if bot is not None:
        objective_name = "strength"
        if not field:
            raise UsageError("--bot: give the field it plays against (--field greedy,value)")
        if bots:
            raise UsageError("--bot plays its candidates against --field, not --bots line-ups")
    elif objective_name == TIERS:
        if len(tiers) < 2:
            raise UsageError("--objective tiers: give two or more --tiers, strongest first")
        if bots:
            raise UsageError("--objective tiers plays a round robin of --tiers, not --bots")
        if not isinstance(target, TiersTarget):
            target = parse_tiers_target(None, tiers)
        if players not in (None, "2", 2, [2], (2,)):
            raise UsageError("--objective tiers: its win rates are 2-player head-to-heads")
        players = None
    elif objective_name not in OBJECTIVES:
        known = [*OBJECTIVES, TIERS]
        raise UsageError(f"--objective {objective_name!r}: choose one of {', '.join(known)}")
    elif not bots:
        raise UsageError("tune needs the line-ups to play (--bots LINEUP)")
    if not params:
        raise UsageError("tune needs at least one --param NAME=LOW..HIGH")
    names = [p.name for p in params]
    if len(set(names)) != len(names):
        raise UsageError("--param: each parameter once")
    fixed = dict(rules or {})
    clash = sorted(set(fixed) & set(names))
    if clash:
        raise UsageError(f"--rule {clash[0]}: it is searched (--param), so it cannot be fixed")
    if budget < 1:
        raise UsageError(f"--budget {budget}: give the games the search may play (> 0)")
    if isinstance(target, (int, float)) and not math.isfinite(target):
        raise UsageError(f"--target {target}: give a finite number to take the distance from")
    for flag, count in (
        ("--budget", budget),
        ("--games-per-trial", games_per_trial),
        ("--confirm-games", confirm_games),
    ):
        if count is not None and count > MAX_GAMES:
            raise UsageError(f"{flag} {count}: at most {MAX_GAMES:,} games")
    if seed is not None and not 0 <= seed < 2**32:
        # Optuna's sampler takes a 32-bit seed
        raise UsageError(f"--seed {seed}: a tune's seed is a whole number from 0 to 2**32 - 1")
    space = math.prod(p.size for p in params)
    per_trial = games_per_trial or max(10, budget // min(space, 30))
    if per_trial < 1:
        raise UsageError(f"--games-per-trial {per_trial}: play at least one game")
    out = Path(out)
    if (out / "tune.json").exists():
        raise UsageError(f"{out} already holds a tune: choose another --out")
    seed = secrets.randbelow(2**32) if seed is None else seed
    confirm_seed = int(np.random.SeedSequence(seed).generate_state(1)[0])
    options = options or runner.RunOptions(quiet=True)
    who: dict[str, Any] = (
        {"round_robin": list(tiers), "players": 2}
        if objective_name == TIERS
        else {"bots": list(bots)}
    )
    grid: dict[str, Any] = who | {
        "players": who.get("players")
        or (players if isinstance(players, str) or players is None else list(players)),
        "expansions": expansions
        if isinstance(expansions, str) or not expansions
        else list(expansions),
        "catalogue": None if catalogue is None else str(catalogue),
    }

    def spec(setting: Mapping[str, Any], games: int, root: int) -> RunSpec:
        if bot is not None:  # the candidate against each bot of the field; the rules fixed
            candidate = _candidate(bot, setting)
            lineups = [f"{candidate},{opponent}" for opponent in field]
            return RunSpec.from_mapping(
                grid | {"bots": lineups, "games": games, "seed": root, "rules": fixed}
            )
        played = {"games": games, "seed": root, "rules": fixed | dict(setting)}
        if objective_name == TIERS:  # the grid names the round robin for tune.json
            rest = {k: v for k, v in grid.items() if k not in ("round_robin", "players")}
            return tiers_round_robin(tiers, rest | played)
        return RunSpec.from_mapping(grid | played)

    # check the grid at each end of every range before the first game (one line each)
    for p in params:
        for v in dict.fromkeys((p.values[0], p.values[-1])):
            for config in configurations(spec({p.name: v}, per_trial, seed)):
                rules_of(config)
    default = (
        {p.name: _bot_default(bot, p.name) for p in params}
        if bot is not None
        else {p.name: _default_of(p, catalogue) for p in params}
    )
    rulebook = default if all(v is not None for v in default.values()) else None
    per_run = _games_of(spec({p.name: p.values[0] for p in params}, per_trial, seed))
    every = _grid(params)
    # every setting of a small space fits the budget: each is played once, in order (TPE samples
    # with repeats and may leave one out); else TPE spends the budget where it looks best
    whole_grid = every is not None and len(every) * per_run <= budget
    try:
        out.mkdir(parents=True, exist_ok=True)
        (out / "tune.json").write_text(
            json.dumps(
                {
                    "objective": objective_name,
                    "target": target.text() if isinstance(target, TiersTarget) else target,
                    "bot": bot,
                    "field": list(field),
                    "tiers": list(tiers),
                    "params": [p.text() for p in params],
                    "budget": budget,
                    "games_per_trial": per_trial,
                    "confirm": confirm,
                    "seed": seed,
                    "confirm_seed": confirm_seed,
                    "rulebook": rulebook,
                    "grid": grid | {"rules": fixed},
                },
                indent=1,
            )
            + "\n",
            encoding="utf-8",
        )
    except OSError as exc:
        raise UsageError(f"cannot write to {out}: {exc.strerror}") from None

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    sampler = optuna.samplers.TPESampler(seed=seed, n_startup_trials=min(8, max(2, space // 3)))
    study = optuna.create_study(direction="minimize", sampler=sampler)
    grid_left = iter(every or ())
    seen: dict[tuple[tuple[str, str], ...], dict[str, Any]] = {}
    rows: list[dict[str, Any]] = []
    searched: list[Any] = []  # each trial's games, for the intervals over the shared deals
    played = 0
    asks = 0
    while played < budget and len(seen) < space and asks < 20 * space + 50:
        asks += 1
        if whole_grid:
            trial, setting = None, dict(next(grid_left))
        else:
            trial = study.ask()
            setting = _suggested(trial, params)
        key = _setting_key(setting)
        if key in seen and trial is not None:  # the same deals, the same answer: no games
            study.tell(trial, seen[key]["value"])
            continue
        if played + per_run > budget and rows:
            if trial is not None:
                study.tell(trial, state=optuna.trial.TrialState.FAIL)
            break
        folder = out / SEARCH / f"trial-{len(rows):03d}"
        result = runner.run(spec(setting, per_trial, seed), folder, options=options)
        run = load_run(result.out)
        matrix = game_matrix(run.seats, run.games)
        value = objective(matrix, objective_name, target)
        played += result.games
        row = {"trial": len(rows), **setting, "value": value, "games": len(matrix)}
        rows.append(row)
        if not np.isfinite(value):  # an error naming the trial, never a verdict
            pd.DataFrame(rows, columns=["trial", *names, "value", "games"]).to_csv(
                out / "trials.csv", index=False
            )
            raise UsageError(
                f"tune: trial {row['trial']} ({_described(setting)}): "
                f"{_undefined(objective_name, matrix, result.games)}; its games are in {folder}"
            )
        if trial is not None:
            study.tell(trial, value)
        seen[key] = row
        searched.append(matrix)
        if echo is not None:
            shown = ", ".join(f"{k}={v}" for k, v in setting.items())
            echo(f"trial {row['trial']}: {shown}: {value:.4f} ({played}/{budget} games)")
    trials = pd.DataFrame(rows, columns=["trial", *names, "value", "games"])
    notes: list[str] = []
    if every is not None and len(seen) < len(every):
        notes.append(_skipped(every, seen, budget, per_run, per_trial))
    if rows:  # every trial on the same deals: intervals, and differences from the best, paired
        spread = paired_intervals(
            searched, objective_name, target=target, rng=np.random.default_rng(seed)
        )
        for column in ("ci_low", "ci_high", "diff", "diff_low", "diff_high"):
            trials[column] = spread[column].to_numpy()
    trials.to_csv(out / "trials.csv", index=False)

    # confirm: the best few settings and the rulebook's, on fresh deals shared by all of them
    # (the rows, not the table: a row of a table turns whole numbers into floats)
    ranked = sorted(rows, key=lambda r: (r["value"], r["trial"]))
    candidates: list[tuple[str, dict[str, Any]]] = [
        (f"trial-{r['trial']:03d}", {n: r[n] for n in names}) for r in ranked[: max(1, confirm)]
    ]
    if rulebook is not None:
        if _setting_key(default) not in {_setting_key(s) for _, s in candidates}:
            candidates.append((RULEBOOK, default))
        else:  # the search found the rulebook's own setting among the best
            candidates = [
                (RULEBOOK if _setting_key(s) == _setting_key(default) else n, s)
                for n, s in candidates
            ]
    else:
        notes.append("(a puzzle the catalogue lacks: the rulebook's setting is not replayed)")
    c_games = confirm_games or per_trial * 2
    matrices = []
    for name, setting in candidates:
        clean = {k: _python(v) for k, v in setting.items()}
        result = runner.run(
            spec(clean, c_games, confirm_seed), out / CONFIRM / name, options=options
        )
        played += result.games
        run = load_run(result.out)
        matrix = game_matrix(run.seats, run.games)
        if not np.isfinite(objective(matrix, objective_name, target)):
            raise UsageError(
                f"tune: the confirmation of {name} ({_described(clean)}): "
                f"{_undefined(objective_name, matrix, result.games)}; its games are in "
                f"{result.out}"
            )
        matrices.append(matrix)
    names_played = [n for n, _ in candidates]
    table = paired_intervals(
        matrices,
        objective_name,
        target=target,
        rng=np.random.default_rng(confirm_seed),
        reference=names_played.index(RULEBOOK) if RULEBOOK in names_played else None,
    )
    table = table.rename(
        columns={
            "ref_diff": "vs_rulebook",
            "ref_low": "vs_rulebook_low",
            "ref_high": "vs_rulebook_high",
        }
    )
    confirmed = pd.concat(
        [
            pd.DataFrame(
                [{"name": n, **{k: _python(v) for k, v in s.items()}} for n, s in candidates]
            ),
            table,
        ],
        axis=1,
    )
    confirmed.to_csv(out / "confirmed.csv", index=False)
    result_ = TuneResult(
        out,
        objective_name,
        tuple(params),
        trials,
        confirmed,
        seed,
        confirm_seed,
        target,
        played,
        notes,
        rulebook,
        per_trial,
        bot,
    )
    if notes:  # what the search left out, for the folder read back (load_tune)
        asked = json.loads((out / "tune.json").read_text(encoding="utf-8"))
        (out / "tune.json").write_text(
            json.dumps(asked | {"notes": notes}, indent=1) + "\n", encoding="utf-8"
        )
    (out / "report.txt").write_text(result_.text() + "\n", encoding="utf-8")
    write_tune_png(result_, out / "tune.png")
    return result_


def _suggested(trial: Any, params: Sequence[Param]) -> dict[str, Any]:
    """Return the setting an Optuna trial suggests for ``params``."""
    setting: dict[str, Any] = {}
    for p in params:
        if p.choices:
            setting[p.name] = trial.suggest_categorical(p.name, list(p.choices))
        elif p.continuous:  # to 4 places: a setting the table and the spec both show
            setting[p.name] = round(trial.suggest_float(p.name, p.low, p.high), 4)
        else:
            setting[p.name] = trial.suggest_int(p.name, p.low, p.high)
    return setting


# a space this small is listed setting by setting: searched whole, or its gaps named
GRID_LIMIT = 30


def _grid(params: Sequence[Param]) -> list[dict[str, Any]] | None:
    """Return every setting of a small space of whole numbers and choices (None: a float range,
    or more than ``GRID_LIMIT`` settings)."""
    if any(p.continuous for p in params) or math.prod(p.size for p in params) > GRID_LIMIT:
        return None
    return [
        dict(zip([p.name for p in params], values, strict=True))
        for values in itertools.product(*(p.values for p in params))
    ]


def _games_of(spec: RunSpec) -> int:
    """Return the games a run of ``spec`` plays (each configuration's deals, whole rotations)."""
    return sum(
        math.ceil(spec.games / config.per_deal) * config.per_deal for config in configurations(spec)
    )


def _skipped(
    grid: Sequence[Mapping[str, Any]],
    seen: Mapping[tuple[tuple[str, str], ...], Any],
    budget: int,
    per_run: int,
    per_trial: int,
) -> str:
    """Return the note naming the settings of a small space the budget left unsearched."""
    left = [s for s in grid if _setting_key(s) not in seen]
    fits = budget // per_run
    return (
        f"(not searched: {'; '.join(_described(s) for s in left)}: the budget of {budget} games "
        f"holds {fits} trial{'s' if fits != 1 else ''} of {per_run} games ({per_trial} per "
        f"configuration); --budget {len(grid) * per_run} searches all {len(grid)} settings)"
    )


def _described(setting: Mapping[str, Any]) -> str:
    return ", ".join(f"{k}={_shown(v)}" for k, v in setting.items())


def _undefined(objective_name: str, matrix: Any, games: int) -> str:
    """Return why the objective of a run's games is not a number, in words."""
    if not len(matrix):
        return f"none of its {games} games finished, so {objective_name} is not defined"
    why = {
        "strength": "the candidate's seats are not in its tables",
        "strategy_spread": "no configuration seats two kinds of bot",
        "seat_advantage": "every configuration is solo (no seat to compare)",
        "first_player": "every configuration is solo (no seat to compare)",
        TIERS: "no pair of tiers the target names played each other",
    }.get(objective_name, "no game measured it")
    return f"{objective_name} is not defined on its {len(matrix)} finished games ({why})"


def _bot_default(bot: str, name: str) -> Any:
    """Return a bot's own value of a parameter (its spec's, else its default)."""
    from bots import make_bot

    return make_bot(bot).options[name]


def _python(v: Any) -> Any:
    """Return a numpy scalar as the Python value the run grid takes."""
    return v.item() if isinstance(v, np.generic) else v


def plot_tune(result: TuneResult, fig: Figure | None = None) -> Figure:
    """Draw the objective against each parameter: every search trial (grey, with its interval
    on the search's shared deals), the confirmed settings (red, fresh deals, 95%) and the
    rulebook's (black diamond, and a dotted line at its value); the legend sits below the panels,
    off the data."""
    from projectl_sim.analysis import plots  # the package's figure (shown by Jupyter)

    params = result.params
    if fig is None:
        fig = plots.new_figure(min(11.0, 1.2 + 3.9 * len(params)), 3.9)
    axes = fig.subplots(1, len(params), squeeze=False)[0]
    t, c = result.trials, result.confirmed
    own = "the bot's default" if result.bot is not None else "the rulebook's"
    is_rule = np.array([result.is_rulebook(r) for r in c.to_dict("records")], dtype=bool)
    for ax, p in zip(axes, params, strict=True):
        categorical = bool(p.choices) and not all(
            isinstance(v, (int, float)) and not isinstance(v, bool) for v in p.choices
        )
        order = {str(_shown(v)): i for i, v in enumerate(p.values)}
        if result.rulebook is not None and p.name in result.rulebook:  # a default not searched
            order.setdefault(str(_shown(result.rulebook[p.name])), len(order))

        def xs(values: pd.Series, _order: dict = order, _cat: bool = categorical) -> np.ndarray:
            return np.array(
                [float(_order[str(_shown(v))]) if _cat else float(v) for v in values], dtype=float
            )

        def bars(rows: pd.DataFrame) -> np.ndarray:
            v = rows["value"].to_numpy(dtype=float)
            low, high = rows["ci_low"].to_numpy(dtype=float), rows["ci_high"].to_numpy(dtype=float)
            return np.clip(np.nan_to_num(np.vstack([v - low, high - v])), 0, None)

        step = (
            1.0
            if categorical or len(p.values) < 2
            else float(np.diff(xs(pd.Series(p.values))).min())
        )
        if "ci_low" in t:
            ax.errorbar(
                xs(t[p.name]),
                t["value"],
                yerr=bars(t),
                fmt="o",
                ms=4,
                color="#8c8c8c",
                elinewidth=0.7,
                label="search (shared deals, 95%)",
            )
        else:
            ax.plot(xs(t[p.name]), t["value"], "o", ms=4, color="#8c8c8c", label="search")
        shift = 0.12 * step  # the confirmation beside the search's point at the same value
        for rows, style in (
            (
                c[~is_rule],
                {"fmt": "o", "color": "#d62728", "label": "confirmed (fresh deals, 95%)"},
            ),
            (c[is_rule], {"fmt": "D", "color": "black", "label": f"{own}, confirmed"}),
        ):
            if len(rows):
                ax.errorbar(
                    xs(rows[p.name]) + shift,
                    rows["value"],
                    yerr=bars(rows),
                    ms=5,
                    capsize=3,
                    **style,
                )
        ends = [p.values[0], p.values[-1]]  # the axis spans the values and the default
        if result.rulebook is not None and p.name in result.rulebook:
            ends.append(result.rulebook[p.name])
            at = xs(pd.Series([result.rulebook[p.name]]))[0]
            ax.axvline(at, color="black", ls=":", lw=0.9, label=f"{own} value")
        if categorical:
            ax.set_xticks(range(len(order)), list(order))
        elif len(p.values) <= 12:
            ax.set_xticks([float(v) for v in p.values])
        low_x, high_x = (
            (0.0, len(order) - 1.0)
            if categorical
            else (xs(pd.Series(ends)).min(), xs(pd.Series(ends)).max())
        )
        ax.set_xlim(low_x - 0.5 * step, high_x + 0.5 * step)
        ax.set_xlabel(p.name)
        ax.set_ylabel(result.goal)
    handles, names = axes[0].get_legend_handles_labels()
    columns = 2 if len(params) == 1 else 4  # a panel's width holds two entries a row
    fig.legend(handles, names, loc="outside lower center", ncols=columns, fontsize=8)
    fig.suptitle(f"tune: {result.goal} (smaller is better)", fontsize=10)
    return fig


def write_tune_png(result: TuneResult, path: str | Path) -> Path:
    """Write ``plot_tune``'s chart as a PNG file and return its path."""
    from projectl_sim.analysis import plots  # matplotlib only when a chart is drawn

    return plots.save(plot_tune(result), path, dpi=110)


def load_tune(out: str | Path) -> TuneResult:
    """Read a finished tune folder back (tune.json, trials.csv and confirmed.csv)."""
    out = Path(out)
    try:
        asked = json.loads((out / "tune.json").read_text(encoding="utf-8"))
        trials = pd.read_csv(out / "trials.csv")
        confirmed = pd.read_csv(out / "confirmed.csv")
    except (OSError, ValueError) as exc:
        raise UsageError(f"{out}: not a finished tune folder ({exc})") from None
    bot = asked.get("bot")
    params = tuple(parse_bot_param(bot, p) if bot else parse_param(p) for p in asked["params"])
    search = sum(load_run(p).games.shape[0] for p in sorted((out / SEARCH).glob("trial-*")))
    confirm = sum(load_run(p).games.shape[0] for p in sorted((out / CONFIRM).glob("*")))
    return TuneResult(
        out,
        asked["objective"],
        params,
        trials,
        confirmed,
        asked["seed"],
        asked["confirm_seed"],
        asked.get("target"),
        search + confirm,
        rulebook=asked.get("rulebook"),
        notes=list(asked.get("notes", [])),
        games_per_trial=asked.get("games_per_trial"),
        bot=bot,
    )
