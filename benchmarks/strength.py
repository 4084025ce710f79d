"""Head-to-head strength on shared deals: does a search gain with budget, does a model beat another.

Run: ``.venv/bin/python benchmarks/strength.py --out DIR [--games N] [--seed S] [--jobs J]
[--players N] [--variant V] [--expansions E] (--pair A B)... | --scaling TEMPLATE --budgets 8,32,128
| --solo A B [--difficulty D]``, or ``strength.py (--pair A B | --solo A B) --pool DIR...``, or
``strength.py --ladder DIR... [--anchor SPEC]``.

Each pair plays ``--games`` 2-player games, every deal under both seatings (the runner's round
robin, resumable: ``DIR/NN``), and prints bot A's score share with its 95% interval over deals
(a deal's two seatings averaged first: ``learn.expit.match``) and each bot's CPU per decision,
measured in the same run. ``--scaling`` makes the pairs of a bot spec at 4x a budget against
itself at that budget (``TEMPLATE`` holds ``{it}``; e.g. ``"mcts:leaf=value,tree=turn,width=0,
iterations={it}"``): the issue asks 55% at each.

``--bias TEMPLATE --budgets 32,128`` asks why a search does or does not gain: it plays
``--games`` 2-player games of the spec against itself at each budget and compares, decision by
decision, the chosen candidate's mean value in the search (``root_value``) with what the game
then gave the mover (the same scale: half the win share, half the logistic of the final margin).
A search that maximises over noisy values overrates its choice, and more so the more lines it
compares; the printed bias is that overrating, with its 95% interval clustered by game.

Other settings (``--players N``, ``--variant``, ``--expansions a+b``): each pair's game seats bot A
once and bot B in every other seat, under every rotation of the line-up over the seats, on shared
deals. A's score share is how often it finishes ahead of a B seat (rank against rank, a tie half),
averaged over its B opponents, so 50% is even at any player count; its win share is printed beside
it (an even table gives 1/N). ``--solo A B`` plays each deal of the solo variant (``--difficulty``)
once with each bot: its win rates, and A's points (and the mastermind's) minus B's paired by
deal. ``--pool DIR...`` reads finished (or stopped) runs of one pair instead of playing, and pools
their deals; with ``--solo A B`` it reads each bot's games from the first run that played it, so
two bots played in different runs of the same deals (``--seed``) are paired.

``--converge TEMPLATE --budgets 12,48,192,768`` asks whether a budget still changes a search's
choices (the flat search's root: ``mcts:leaf=value,tree=turn``): at every 8th decision of
``--games`` self-play games of ``value`` it runs the spec at each budget from one seed, and a
reference that visits every root candidate ``--reference`` times in common worlds at the
search's own depth and again one turn of the searching seat deeper. It prints how often two
budgets choose alike, and how often each budget picks each reference's best (with the search's
greedy prior) and what it gives up against it (its regret, in the search's value), with 95%
intervals over decisions.

``--ladder DIR...`` places the players of several runs on one scale, as ``projectl-sim ladder``
rates its own round robin: one joint Plackett-Luce fit over every finished game of the runs (a
ladder's ``OUT/run`` and the matches that add players to it), on the Elo scale with ``--anchor``
(greedy) at 0, each bot's CPU a decision beside (the runs' seats tables, weighted by decisions).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path
from typing import Any

_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]


def main() -> int:
    from projectl_sim.errors import ProjectLError
    from projectl_sim.sim.runner import RunOptions

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, help="the runs' folder (not with --bias or --pool)")
    ap.add_argument("--pair", nargs=2, action="append", default=[], metavar=("A", "B"))
    ap.add_argument("--scaling", metavar="TEMPLATE")
    ap.add_argument("--bias", metavar="TEMPLATE")
    ap.add_argument("--converge", metavar="TEMPLATE")
    ap.add_argument("--reference", type=int, default=64, help="--converge: worlds a candidate")
    ap.add_argument("--solo", nargs=2, metavar=("A", "B"))
    ap.add_argument("--pool", nargs="+", type=Path, metavar="DIR")
    ap.add_argument("--ladder", nargs="+", type=Path, metavar="DIR")
    ap.add_argument("--anchor", default="greedy", help="--ladder's bot at 0 (a spec as rated)")
    ap.add_argument("--budgets", default="8,32")
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--variant", default="standard")
    ap.add_argument("--expansions", default="none", help="a '+' list, or none")
    ap.add_argument("--difficulty", default="normal", help="the solo variant's difficulty")
    ap.add_argument(
        "--rule",
        action="append",
        default=[],
        metavar="SWITCH=VALUE",
        help="a rules switch, e.g. endless_white_deck=true (the Endless White Deck is a switch)",
    )
    ap.add_argument("--games", type=int, default=100)
    ap.add_argument("--seed", type=int, default=53)
    ap.add_argument("--jobs", type=int, default=1)
    args = ap.parse_args()
    if args.games < 2:
        ap.error("--games must be at least 2")
    if args.bias:
        return _bias(args.bias, [int(b) for b in args.budgets.split(",")], args.games, args.seed)
    if args.converge:
        if args.reference < 2:
            ap.error("--reference must be at least 2")
        budgets = [int(b) for b in args.budgets.split(",")]
        return _converge(args.converge, budgets, args.games, args.seed, args.reference)
    if args.ladder:
        return _ladder(args.ladder, args.anchor)
    if args.pool and args.solo:
        try:
            print(_solo_line(*args.solo, _solo(args.pool, tuple(args.solo))))
        except ProjectLError as exc:
            print(f"strength.py: {exc}", file=sys.stderr)
            return 2
        return 0
    if args.pool:
        if len(args.pair) != 1:
            ap.error("--pool reads the runs of one --pair A B")
        try:
            print(_HEADER)
            print(_line(*args.pair[0], _score(args.pool)))
        except ProjectLError as exc:
            print(f"strength.py: {exc}", file=sys.stderr)
            return 2
        return 0
    if args.out is None:
        ap.error("give --out DIR")
    options = RunOptions(jobs=args.jobs, quiet=True)
    setting = {
        "variant": [args.variant],
        "expansions": [args.expansions],
        "games": args.games,
        "seed": args.seed,
        "tables": "core",
        "rules": {},
    }
    for text in args.rule:
        switch, _, value = text.partition("=")
        if not value:
            ap.error(f"--rule {text!r}: give SWITCH=VALUE")
        try:
            setting["rules"][switch] = [json.loads(value)]
        except ValueError:
            setting["rules"][switch] = [value]
    try:
        _check_expansions(args.expansions)
        if args.solo:
            a, b = args.solo
            spec = {
                **setting,
                "bots": [a, b],
                "players": [1],
                "variant": ["solo"],
                "difficulty": [args.difficulty],
            }
            _play(spec, args.out / "solo", options)
            print(_solo_line(a, b, _solo([args.out / "solo"])))
            return 0
        pairs = [tuple(p) for p in args.pair]
        if args.scaling:
            for it in (int(b) for b in args.budgets.split(",")):
                pairs.append((args.scaling.format(it=4 * it), args.scaling.format(it=it)))
        if not pairs:
            ap.error("give --pair A B, --scaling TEMPLATE or --solo A B")
        print(_HEADER)
        for k, (a, b) in enumerate(pairs):
            if args.players == 2:  # the round robin's line-ups: the runs made before resume
                who: dict[str, Any] = {"round_robin": ",".join([a, b])}
            else:
                who = {"bots": [",".join([a] + [b] * (args.players - 1))]}
            _play({**setting, **who, "players": [args.players]}, args.out / f"{k:02d}", options)
            print(_line(a, b, _score([args.out / f"{k:02d}"])), flush=True)
    except ProjectLError as exc:
        print(f"strength.py: {exc}", file=sys.stderr)
        return 2
    return 0


_HEADER = (
    f"{'bot A':44s} {'bot B':36s} setting            games  A score share [95%]    "
    "A win share  A ms/dec  B ms/dec"
)


def _line(a: str, b: str, r: dict[str, Any]) -> str:
    return (
        f"{a:44s} {b:36s} {r['setting']:18s} {r['games']:5d}  {r['share']:6.1%} "
        f"[{r['ci_low']:.1%}, {r['ci_high']:.1%}]  {r['win_share']:6.1%}      "
        f"{r['ms_a']:8.2f}  {r['ms_b']:8.2f}"
    )


def _check_expansions(text: str) -> None:
    """Refuse an expansion name the run spec would drop (a registered module that is no
    expansion of the list, such as the Endless White Deck's: it is a rules switch)."""
    from projectl_sim.errors import UsageError
    from projectl_sim.rules import EXPANSION_ALIASES
    from projectl_sim.sim.spec import RunSpec

    asked = [n.strip() for n in text.replace(",", "+").split("+")]
    asked = [n for n in asked if n not in ("", "none", "all")]
    spec = RunSpec.from_mapping({"bots": ["random,random"], "expansions": [text]})
    kept = set(spec.expansions[0])
    dropped = [n for n in asked if EXPANSION_ALIASES.get(n, n) not in kept]
    if dropped:
        raise UsageError(
            f"--expansions: {', '.join(dropped)} is not played as an expansion (the Endless "
            "White Deck is --rule endless_white_deck=true)"
        )


def _play(spec_data: dict[str, Any], run_dir: Path, options: Any) -> None:
    """Play (or finish) a runner run in ``run_dir``."""
    from projectl_sim.errors import RunInterrupted, UsageError
    from projectl_sim.sim import runner, tables
    from projectl_sim.sim.spec import RunSpec

    spec = RunSpec.from_mapping(spec_data)
    resume = (run_dir / "manifest.json").exists()
    if resume:
        tables.read_manifest(run_dir)
    try:
        done = runner.run(None if resume else spec, run_dir, resume=resume, options=options)
    except RunInterrupted as exc:
        # the saved games stay: the same command with the same --out plays only the rest
        saved = str(exc).split("; finish with")[0]
        raise UsageError(f"{saved}; run the same command again to finish") from None
    if not done.complete:
        raise UsageError(f"{run_dir}: the run did not complete; run the command again to finish")


def _ladder(run_dirs: list[Path], anchor: str) -> int:
    """Print one joint ladder over the runs' games (the ladder's fit and table), ``anchor`` at 0."""
    import pandas as pd

    from projectl_sim.errors import ProjectLError
    from projectl_sim.experiments.ladder import format_ladder, ladder_table

    parts = []
    try:
        for k, run_dir in enumerate(run_dirs):
            seats = _seats(run_dir)[0]
            parts.append(seats.assign(run=k))  # game ids repeat from one run to the next
    except ProjectLError as exc:
        print(f"strength.py: {exc}", file=sys.stderr)
        return 2
    seats = pd.concat(parts, ignore_index=True)
    if anchor not in set(seats["bot"]):
        rated = ", ".join(sorted(set(seats["bot"])))
        print(f"strength.py: --anchor {anchor!r} is not a rated bot ({rated})", file=sys.stderr)
        return 2
    print(format_ladder(ladder_table(seats, anchor)))
    return 0


def _seats(run_dir: Path) -> tuple[Any, dict[str, Any]]:
    """Return a run's seat rows of games played without an error (a stopped run's parts too)
    and its manifest."""
    import pandas as pd

    from projectl_sim.sim import tables

    manifest = tables.read_manifest(run_dir)
    files = [run_dir / "seats.parquet"]
    if not files[0].exists():
        files = sorted((run_dir / "parts" / "seats").glob("*.parquet"))
    if not files:
        return pd.DataFrame(), manifest
    seats = pd.concat([pd.read_parquet(f) for f in files], ignore_index=True)
    bad = seats.loc[seats["error"].notna(), "game_id"].unique()
    return seats[~seats["game_id"].isin(bad)], manifest


def _ms(rows: Any) -> float:
    return float(
        1000
        * (rows["decision_cpu_mean"] * rows["decisions"]).sum()
        / max(1, rows["decisions"].sum())
    )


def _interval(values: Any) -> tuple[float, float, float]:
    import numpy as np

    values = np.asarray(values, dtype=float)
    mean = float(values.mean()) if len(values) else math.nan
    half = (
        1.96 * float(values.std(ddof=1)) / math.sqrt(len(values)) if len(values) > 1 else math.nan
    )
    return mean, mean - half, mean + half


def _score(run_dirs: list[Path]) -> dict[str, Any]:
    """Return bot A's score share against the B seats over the runs' full deals (every seating
    played), with its 95% interval over deals; A is the first bot of each run's line-up."""
    import pandas as pd

    per_deal, a_rows, b_rows, settings = [], [], [], set()
    for run_dir in run_dirs:
        seats, manifest = _seats(run_dir)
        config = manifest["configs"][0]
        switches = "".join(f" {k}={v}" for k, v in sorted(config["switches"].items()))
        settings.add(
            f"{config['players']}p {config['variant']} "
            f"{'+'.join(config['expansions']) or 'none'}{switches}"
        )
        if seats.empty:
            continue
        mine = seats["bot"] == config["lineup"][0]
        a, b = seats[mine], seats[~mine]
        pairs = a[["game_id", "deal", "rank", "win_share"]].merge(
            b[["game_id", "rank"]], on="game_id", suffixes=("", "_b")
        )
        pairs["score"] = (pairs["rank"] < pairs["rank_b"]) + 0.5 * (
            pairs["rank"] == pairs["rank_b"]
        )
        games = pairs.groupby("game_id").agg(
            deal=("deal", "first"), score=("score", "mean"), win=("win_share", "first")
        )
        deals = games.groupby("deal").agg(
            score=("score", "mean"), win=("win", "mean"), n=("score", "size")
        )
        full = deals[deals["n"] == len(config["rotations"])]
        per_deal.append(full)
        a_rows.append(a[a["deal"].isin(full.index)])
        b_rows.append(b[b["deal"].isin(full.index)])
    if len(settings) > 1:
        from projectl_sim.errors import UsageError

        raise UsageError(f"the runs play different settings ({', '.join(sorted(settings))})")
    deals = pd.concat(per_deal) if per_deal else pd.DataFrame({"score": [], "win": [], "n": []})
    a_all, b_all = pd.concat(a_rows), pd.concat(b_rows)
    share, low, high = _interval(deals["score"])
    return {
        "setting": settings.pop(),
        "games": len(a_all),
        "deals": len(deals),
        "share": share,
        "ci_low": max(0.0, low),
        "ci_high": min(1.0, high),
        "win_share": float(deals["win"].mean()),
        "ms_a": _ms(a_all),
        "ms_b": _ms(b_all),
    }


def _solo(run_dirs: list[Path], names: tuple[str, ...] = ()) -> dict[str, Any]:
    """Return each bot's solo win rate, points and the mastermind's points, and A's minus B's
    paired by deal. Each bot's seats come from the first run that played it (stopped runs'
    parts too), so runs of the same deals pool; ``names`` default to the first run's two."""
    from projectl_sim.errors import UsageError
    from projectl_sim.sim.spec import run_bot_name

    runs = []
    for run_dir in run_dirs:
        seats, manifest = _seats(run_dir)
        configs = manifest["configs"]
        if any(c["variant"] != "solo" for c in configs):
            raise UsageError(f"{run_dir}: not a solo run")
        if not seats.empty:
            games = _games(run_dir)[["game_id", "opponent_score"]]
            seats = seats.merge(games, on="game_id")
        runs.append((seats, manifest, configs[0]["difficulty"]))
    if not names:
        names = tuple(c["lineup"][0] for c in runs[0][1]["configs"][:2])
    if len({difficulty for _, _, difficulty in runs}) > 1:
        raise UsageError("the runs are of different difficulties")
    rows = []
    for name in names:
        # as given, or as a run names it (a model's hash added: ``run_bot_name``)
        known = {name, run_bot_name(name)}
        held = [s for s, _, _ in runs if not s.empty and known & set(s["lineup"])]
        if not held:
            raise UsageError(f"no run played {name!r}")
        rows.append(held[0][held[0]["lineup"].isin(known)].set_index("deal"))
    a, b = rows
    both = a.index.intersection(b.index)
    a, b = a.loc[both], b.loc[both]
    if not (a["seed"] == b["seed"]).all():
        raise UsageError("the runs dealt different games (a different --seed?): nothing to pair")
    return {
        "deals": len(both),
        "difficulty": runs[0][2],
        "win_a": _interval(a["won"].astype(float)),
        "win_b": _interval(b["won"].astype(float)),
        "win_diff": _interval(a["won"].astype(float) - b["won"].astype(float)),
        "points_a": float(a["score"].mean()),
        "points_b": float(b["score"].mean()),
        "points_diff": _interval(a["score"] - b["score"]),
        "mastermind_a": float(a["opponent_score"].mean()) if len(both) else math.nan,
        "mastermind_b": float(b["opponent_score"].mean()) if len(both) else math.nan,
        "mastermind_diff": _interval(a["opponent_score"] - b["opponent_score"]),
        "ms_a": _ms(a),
        "ms_b": _ms(b),
        "s_a": _s_game(a),
        "s_b": _s_game(b),
    }


def _games(run_dir: Path) -> Any:
    """Return a run's game rows (a stopped run's parts too)."""
    import pandas as pd

    files = [run_dir / "games.parquet"]
    if not files[0].exists():
        files = sorted((run_dir / "parts" / "games").glob("*.parquet"))
    return pd.concat([pd.read_parquet(f) for f in files], ignore_index=True)


def _s_game(rows: Any) -> float:
    """Return the CPU seconds a game the seat's decisions took (over its games)."""
    return float((rows["decision_cpu_mean"] * rows["decisions"]).sum() / max(1, len(rows)))


def _solo_line(a: str, b: str, r: dict[str, Any]) -> str:
    def ci(x: tuple[float, float, float], pct: bool = True) -> str:
        if pct:
            return f"{x[0]:.1%} [{max(-1.0, x[1]):.1%}, {min(1.0, x[2]):.1%}]"
        return f"{x[0]:+.2f} [{x[1]:+.2f}, {x[2]:+.2f}]"

    return "\n".join(
        [
            f"solo ({r['difficulty']}), {r['deals']} deals each played by both bots",
            f"  A {a}: wins {ci(r['win_a'])}, points {r['points_a']:.2f}, "
            f"{r['ms_a']:.2f} ms/dec, {r['s_a']:.2f} s/game",
            f"  B {b}: wins {ci(r['win_b'])}, points {r['points_b']:.2f}, "
            f"{r['ms_b']:.2f} ms/dec, {r['s_b']:.2f} s/game",
            f"  A - B: wins {ci(r['win_diff'])}, points {ci(r['points_diff'], pct=False)}, "
            f"the mastermind's points {ci(r['mastermind_diff'], pct=False)} "
            f"({r['mastermind_a']:.2f} against {r['mastermind_b']:.2f})",
        ]
    )


class _Noting:
    """A seat that notes, at each searched decision, the chosen candidate's search value."""

    def __init__(self, bot: Any, seat: int, noted: list[tuple[int, float]]) -> None:
        self.bot, self.seat, self.noted = bot, seat, noted
        self.cpu = 0.0
        self.calls = 0

    def __call__(self, view: Any, rng: Any) -> Any:
        self.bot.root_value = -1.0
        start = time.process_time()
        action = self.bot(view, rng)
        self.cpu += time.process_time() - start
        self.calls += 1
        if self.bot.root_value >= 0:
            self.noted.append((self.seat, self.bot.root_value))
        return action


def _bias(template: str, budgets: list[int], games: int, seed: int) -> int:
    """Print each budget's search value of its choices against the outcomes the games gave."""
    import numpy as np

    from bots import make_bot
    from bots.heuristics import cost_model
    from projectl_sim.analysis.stats.clusters import clustered_mean
    from projectl_sim.rules import Rules
    from projectl_sim.sim.play import play_game

    rules = Rules(players=2)
    seeds = [int(s.generate_state(1)[0]) for s in np.random.SeedSequence(seed).spawn(games)]
    print(f"{'search':58s} decisions  value   outcome  bias [95%]             ms/dec")
    for it in budgets:
        spec = template.format(it=it)
        values: list[float] = []
        outcomes: list[float] = []
        game_of: list[int] = []
        cpu = calls = 0.0
        for g, game_seed in enumerate(seeds):
            noted: list[tuple[int, float]] = []
            seats = [_Noting(make_bot(spec), k, noted) for k in range(2)]
            end = play_game(rules, seats, game_seed, record=False).state
            # what the game gave each seat, on the search's own scale (its value of a finished
            # game: half the win share, half the logistic of the margin)
            final = seats[0].bot._values(end, cost_model(end))
            for k, v in noted:
                values.append(v)
                outcomes.append(final[k])
                game_of.append(g)
            cpu += sum(t.cpu for t in seats)
            calls += sum(t.calls for t in seats)
        mean, se, n, _ = clustered_mean(np.asarray(values) - np.asarray(outcomes), game_of)
        half = 1.96 * se
        print(
            f"{spec:58s} {n:9d}  {np.mean(values):.3f}   {np.mean(outcomes):.3f}   "
            f"{mean:+.3f} [{mean - half:+.3f}, {mean + half:+.3f}]  "
            f"{1000 * cpu / max(1.0, calls):8.2f}",
            flush=True,
        )
    return 0


def _converge(template: str, budgets: list[int], games: int, seed: int, worlds: int) -> int:
    """Print how often budgets choose alike and how close each comes to the references' best."""
    import random

    import numpy as np

    from bots import make_bot
    from bots.mcts import MCTSBot, _Node
    from projectl_sim.engine import PLAY
    from projectl_sim.rules import Rules
    from projectl_sim.sim.play import play_game

    class Probe(MCTSBot):
        """The search, then each root candidate visited ``worlds`` times from a fresh root."""

        deeper = 0  # turns of the searching seat added to every leaf

        def _leaf_values(self, state: Any, rng: Any, model: Any, turn_ends: int = 1) -> Any:
            return super()._leaf_values(state, rng, model, turn_ends + self.deeper)

        def _search_halving(self, root, cands, view, worlds_, rng, model, stop):  # type: ignore[no-untyped-def]
            done, best = super()._search_halving(root, cands, view, worlds_, rng, model, stop)
            self.reference = {}
            if self.deeper >= 0 and self.reference_worlds:
                fresh = _Node(view.n)
                for _ in range(self.reference_worlds):
                    for a in cands:
                        self._iterate(fresh, a, view, worlds_, rng, model, stop)
                me = view.current
                self.reference = {
                    a: fresh.children[a].w[me] / fresh.children[a].n
                    + (self.prior if a == cands[0] else 0.0)
                    for a in cands
                }
            return done, best

    rules = Rules(players=2)
    seeds = [int(s.generate_state(1)[0]) for s in np.random.SeedSequence(seed).spawn(games)]
    views: list[Any] = []
    count = [0]
    for game_seed in seeds:

        def note(state: Any, seat: int, action: Any) -> None:
            if state.phase == PLAY:
                count[0] += 1
                if count[0] % 8 == 0:
                    views.append(state.view(state.current))

        play_game(
            rules, [make_bot("value"), make_bot("value")], game_seed, record=False, on_step=note
        )
    choices: list[list[Any]] = []
    refs: list[list[dict[Any, float]]] = []
    cpu = [0.0] * len(budgets)
    for i, view in enumerate(views):
        row, ref = [], []
        for j, it in enumerate(budgets):
            bot = Probe(**make_bot(template.format(it=it)).options)
            bot.reference_worlds = 0
            start = time.process_time()
            row.append(bot(view, random.Random(i)))
            cpu[j] += time.process_time() - start
        for deeper in (0, 1):
            bot = Probe(**make_bot(template.format(it=budgets[0])).options)
            bot.reference_worlds, bot.deeper = worlds, deeper
            bot(view, random.Random(i))
            ref.append(bot.reference)
        if ref[0]:  # searched (more than one candidate)
            choices.append(row)
            refs.append(ref)
    n = len(choices)
    if not n:
        print("strength.py: no searched decision", file=sys.stderr)
        return 2

    def share(hits: list[bool]) -> str:
        # the share with its 95% Wilson interval
        k, m, z = sum(hits), len(hits), 1.96
        p = k / m
        mid = (p + z * z / (2 * m)) / (1 + z * z / m)
        half = z * math.sqrt(p * (1 - p) / m + z * z / (4 * m * m)) / (1 + z * z / m)
        return f"{100 * p:5.1f}% [{100 * (mid - half):5.1f}, {100 * (mid + half):5.1f}]"

    print(f"{template}: {n} decisions of {games} value games, reference {worlds} worlds each")
    for j in range(1, len(budgets)):
        same = [c[j] == c[j - 1] for c in choices]
        print(f"  the same choice at {budgets[j - 1]} and {budgets[j]}: {share(same)}")
    for d, label in ((0, "at the search's depth"), (1, "one turn deeper")):
        print(f"  reference {label}:")
        for j, it in enumerate(budgets):
            hits, regret = [], []
            for c, r in zip(choices, refs, strict=True):
                values = r[d]
                best = max(values.values())
                hits.append(values[c[j]] == best)
                regret.append(best - values[c[j]])
            m = float(np.mean(regret))
            half = 1.96 * float(np.std(regret)) / math.sqrt(n)
            print(
                f"    {it:5d} iterations ({1000 * cpu[j] / len(views):6.1f} ms): picks its best "
                f"{share(hits)}, regret {m:.4f} [{m - half:.4f}, {m + half:.4f}]"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
