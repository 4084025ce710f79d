"""Expert iteration: the learned evaluation trained on its own search, generation after generation.

Each generation ``g`` (folder ``OUT/gen-NNN``) does four steps, each written once and skipped when
it is already there, so a killed training goes on where it stopped:

1. **Self-play** (``selfplay/VARIANT``): the current search player (``SEARCH``: the flat search,
   ``mcts:leaf=value,tree=turn,width=0``, on the current model) plays every seat of ``games``
   games per variant, across the player counts and expansion sets asked for, through the
   product's runner (``sim.runner``: ``--jobs``, the backends, resume), every game recorded.
2. **Positions** (``positions.npz``): every game's record is replayed; every decision position of
   the Play phase (mid-turn positions included) is kept with chance ``1/every`` (drawn from the
   game's seed) and searched again, from the mover's view, by the same search with its own seeded
   ``rng``; over the leaves of the candidate it chose, the search's mean predicted win share and
   margin for each player are the search targets of that player's row (``search.npz`` holds the
   margins; ``every_seat``: every seat's row, else the mover's only). The search's own value
   mixes the two outputs (half the win share, half a logistic of the margin), so each output
   is taught on its own scale. Every row also holds the game's final win share and margin.
3. **Fit** (``model.json``; ``accuracy.csv``, and the incumbent's ``accuracy_parent.csv``): the
   rows of the last ``window`` generations (and any ``extra`` rows), each searched row's targets
   ``mix`` times the search's plus ``1 - mix`` times the final result (a row no search labelled:
   the final result, or with ``anchor`` the incumbent's own values), fitted from the
   incumbent's network (``fine_tune``: a few epochs of scikit-learn's ``MLPRegressor`` from its
   weights, one BLAS thread, seeded; ``fresh``: afresh as ``learn.value.fit`` fits), the
   accuracy scored on this generation's held-out games.
4. **Gate** (``gate/``, ``generation.json``): the candidate's search against the incumbent's on
   shared deals, both seatings of each deal (the runner's round robin), 2 players. The candidate
   becomes the incumbent when its score share reaches ``gate_share`` (AlphaGo Zero's 55% by
   default) and the lower end of its 95% interval over deals is above 50% (a 100-game gate
   resolves about 9 points either way); ``generation.json`` says which, with the interval.

**Rollout labels** (``labels="rollouts"``, ``train-value --generations G --labels rollouts``):
the player of steps 1 and 4 is ``player`` (the value bot) on the current model; step 2 scores,
at about one of its Play decisions in ``every``, every candidate ``scorer`` compares, each
after-state played to the end ``2 R`` times by greedy (``learn.rollouts``, the rows
``tools/value_oracle.py`` writes; ``rollouts.npz``, each row's ``game`` its decision's number);
step 3 fits afresh as the one-off training does (``learn.value.fit``, seed ``seed``) on the
outcome rows' training games (``base``, its held-out games by ``seed``) plus the ``extra`` rows
and the last ``window`` generations' rollout rows, each added row counted ``extra_weight``
times: a recipe's fit with the generations' rows added. This is the labelling that made
candidate models beat the shipped one by hand (``docs/benchmarks.md``).

Seeds: generation ``g``'s seeds (self-play, labelling, fit, gate) are drawn from
``SeedSequence([seed, g])``; the runner spawns each game's seed from its root seed in the parent,
so the same ``seed`` gives the same positions, models and hashes for any ``jobs`` and backend.
Every file is written under a temporary name and renamed into place; the folder is held by the
run's writer lock (``sim.tables.writer_lock``) while the training writes there.
"""

from __future__ import annotations

import json
import math
import os
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from projectl_sim.errors import RunFailed, RunInterrupted, UsageError

SEARCH = "mcts:leaf=value,tree=turn,width=0,iterations={iterations}"
GEN_FORMAT = "gen-{:03d}"
SEARCH_FILE = "search.npz"  # the search's mean predicted margin of each row of positions.npz


@dataclass(frozen=True)
class Plan:
    """What an expert iteration plays and fits (every field is in each model's training)."""

    generations: int = 3
    games: int = 40  # self-play games per player count and expansion set, each generation
    iterations: int = 32  # the search's iterations per decision
    every: int = 4  # one Play decision position in ``every`` is searched again and kept
    players: tuple[int, ...] = (2, 3, 4)  # the standard variant's player counts
    variants: tuple[str, ...] = ("standard",)  # solo is played at 1, line_clear at 5
    expansions: tuple[tuple[str, ...], ...] = ((),)
    hidden: tuple[int, ...] = (32,)
    mix: float = 1.0  # a searched row's targets: mix x the search's + (1 - mix) x the final result
    window: int = 3  # generations of positions the fit reads
    gate_games: int = 40  # games of the gate (half as many deals, each played both ways)
    gate_share: float = 0.55
    seed: int = 1
    start: str = ""  # the first incumbent: a model file ("" the shipped model)
    test_share: float = 0.2
    fresh: bool = False  # fit each candidate afresh (``hidden``), not from the incumbent's network
    # rows no search labelled (the other seats') take the incumbent's own values as targets, not
    # the final result: the fit moves the evaluation only where the search disagrees with it
    anchor: bool = False
    # every seat's row takes the search's value for that seat (the chosen candidate's mean for
    # each player: one value per player), not only the mover's
    every_seat: bool = True
    # what labels the positions: "search" (the search's values at its positions) or "rollouts"
    # (``learn.rollouts``: every candidate of ``scorer`` at ``player``'s own decisions, each
    # after-state valued by 2 x ``rollouts`` greedy rollouts to the end)
    labels: str = "search"
    player: str = "value"  # rollouts: the player of the self-play and the gate (model appended)
    scorer: str = "value:places=2,upgrades=0"  # rollouts: whose candidates are scored
    rollouts: int = 2  # rollouts: R, 2R rollouts a candidate
    extra_weight: int = 1  # rollouts: each added row (extra, generations') counts K times

    def search(self, model: str) -> str:
        """Return the search player's spec on ``model`` (a model file's path): with rollout
        labels, ``player`` on it."""
        if self.labels == "rollouts":
            return on_model(self.player, model)
        return SEARCH.format(iterations=self.iterations) + f",model={model}"

    def training(self) -> dict[str, Any]:
        """Return the plan as a model file's ``training`` entry (lists, not tuples)."""
        out = asdict(self)
        out["players"] = list(self.players)
        out["variants"] = list(self.variants)
        out["expansions"] = ["+".join(e) or "none" for e in self.expansions]
        out["hidden"] = list(self.hidden)
        return out


def on_model(spec: str, model: str) -> str:
    """Return bot ``spec`` with ``model=`` set to ``model``."""
    return f"{spec}{',' if ':' in spec else ':'}model={model}"


@dataclass
class Generation:
    """One generation's outcome, as ``generation.json`` holds it."""

    generation: int
    incumbent: str  # the model file the generation played with
    incumbent_hash: str
    candidate_hash: str
    kept: bool
    gate: dict[str, Any]
    data: dict[str, Any]
    seconds: dict[str, float] = field(default_factory=dict)


def seeds(plan: Plan, generation: int) -> dict[str, int]:
    """Return generation ``generation``'s seeds: self-play, labelling, fit and gate."""
    state = np.random.SeedSequence([plan.seed, generation]).generate_state(4, dtype=np.uint32)
    return dict(zip(("selfplay", "label", "fit", "gate"), (int(s) for s in state), strict=True))


def _variant_players(plan: Plan, variant: str) -> tuple[int, ...]:
    if variant == "solo":
        return (1,)
    if variant == "line_clear":
        return (5,)
    return plan.players


def _options(jobs: int, backend: str, scheduler: str | None, quiet: bool) -> Any:
    from projectl_sim.sim.runner import RunOptions

    return RunOptions(jobs=jobs, backend=backend, scheduler=scheduler, quiet=quiet)


def _run(spec_data: dict[str, Any], run_dir: Path, options: Any) -> None:
    """Play (or finish) a runner run in ``run_dir``."""
    from projectl_sim.sim import runner, tables
    from projectl_sim.sim.spec import RunSpec

    spec = RunSpec.from_mapping(spec_data)
    resume = (run_dir / "manifest.json").exists()
    if resume:
        tables.read_manifest(run_dir)
    result = runner.run(None if resume else spec, run_dir, resume=resume, options=options)
    if not result.complete:
        raise RunFailed(f"{run_dir}: the run did not complete; run the training again to finish")


def self_play(plan: Plan, model: str, gen_dir: Path, seed: int, options: Any) -> list[Path]:
    """Play generation's self-play games (one run per variant); return the run folders."""
    bot = plan.search(model)
    dirs = []
    for variant in plan.variants:
        players = _variant_players(plan, variant)
        run_dir = gen_dir / "selfplay" / variant
        _run(
            {
                "bots": [",".join([bot] * n) for n in players],
                "variant": [variant],
                "expansions": ["+".join(e) or "none" for e in plan.expansions],
                "games": plan.games,
                "seed": seed,
                "records": "all",
                "tables": "core",
            },
            run_dir,
            options,
        )
        dirs.append(run_dir)
    return dirs


def _final(state: Any, player: int) -> tuple[float, float]:
    """Return ``player``'s win share and margin over the best rival (solo: the mastermind) of a
    finished game."""
    final = state.final_scores()
    winners = state.winners()
    if state.rules.solo:
        margin = final[player] - state.opponent_score()
    else:
        margin = final[player] - max(final[r] for r in range(state.n) if r != player)
    return (1.0 / len(winners) if player in winners else 0.0), float(margin)


def _searcher(spec: str) -> Any:
    """Return the search player of ``spec`` that keeps, for its chosen root candidate, each
    player's mean predicted win share and margin over its leaves (``seat_targets``): the two
    outputs of the evaluation, each on its own scale (the search's value mixes them)."""
    from bots import make_bot
    from bots.features import position_features
    from bots.mcts import MCTSBot
    from projectl_sim.engine import OVER

    class Searcher(MCTSBot):
        """``MCTSBot`` that sums each root candidate's leaves' predictions per player."""

        def act(self, view: Any, rng: random.Random) -> Any:
            self.sums: dict[Any, list[list[float]]] = {}
            self.pick: Any = None
            self.seat_targets: list[tuple[float, float]] = []
            return super().act(view, rng)

        def _iterate(self, root: Any, pick: Any, *args: Any) -> None:
            self.pick = pick
            super()._iterate(root, pick, *args)

        def _leaf_values(
            self, state: Any, rng: random.Random, model: Any, turn_ends: int = 1
        ) -> list[float]:
            # plays ``state`` on to the leaf
            values = super()._leaf_values(state, rng, model, turn_ends)
            if state.phase == OVER:
                out = [_final(state, p) for p in range(state.n)]
            else:
                rows = [
                    position_features(state, p, self._private & ~(1 << p), self._per_card)
                    for p in range(state.n)
                ]
                vm = self.value_model
                assert vm is not None  # the searcher's leaf is the learned one (leaf=value)
                out = vm.evaluate_rows(rows)
            sums = self.sums.setdefault(self.pick, [[0.0] * state.n, [0.0] * state.n, [0.0]])
            for p, (win, margin) in enumerate(out):
                sums[0][p] += win
                sums[1][p] += margin
            sums[2][0] += 1.0
            return values

        def _search_halving(self, root: Any, *args: Any) -> Any:
            done, best = super()._search_halving(root, *args)
            sums = self.sums.get(best)
            if sums and sums[2][0]:
                n = sums[2][0]
                self.seat_targets = [(w / n, m / n) for w, m in zip(sums[0], sums[1], strict=True)]
            return done, best

    bot = make_bot(spec)  # the spec checked and parsed as every bot's
    out = Searcher(**{k: bot.options[k] for k in bot.given})
    out.seat_targets = []
    return out


def label_game(
    record: dict[str, Any], bot: Any, every: int, seed: int, game: int, every_seat: bool = True
) -> tuple[list[list[float]], list[list[float]], list[float], str, str]:
    """Replay one record; return its kept rows' features, label columns (``learn.value.COLUMNS``,
    the root value column the search's mean predicted win share of the row's seat, or only the
    mover's when not ``every_seat``), the search's mean predicted margins, its expansion label
    and variant (no rows: a game not over)."""
    from projectl_sim.engine import OVER, PLAY
    from projectl_sim.engine.record import replay
    from projectl_sim.learn.value import seat_rows

    pick = random.Random(seed ^ game)
    feats: list[list[float]] = []
    meta: list[list[float]] = []
    search_margin: list[float] = []

    def on_step(state: Any, seat: int, action: Any) -> None:
        if state.phase != PLAY or pick.random() * every >= 1.0:
            return
        mover = state.current
        rng = random.Random(pick.getrandbits(64))
        bot(state.view(mover), rng)
        values = list(bot.seat_targets) if bot.root_value >= 0 else []
        for q, (row, old) in enumerate(seat_rows(state)):
            feats.append(row)
            win, margin = values[q] if values and (every_seat or q == mover) else (math.nan,) * 2
            meta.append([game, state.n, q, 0.0, 0.0, old, win])
            search_margin.append(margin)

    state = replay(record, on_step=on_step).state
    rules = state.rules
    table = "+".join(sorted(rules.expansions)) or "base"
    if state.phase != OVER or state.truncated or not feats:
        return [], [], [], table, rules.variant
    for row in meta:
        row[4], row[3] = _final(state, int(row[2]))
    return feats, meta, search_margin, table, rules.variant


def _each_game(
    paths: list[tuple[int, str]],
    per_game: Callable[..., tuple[Any, ...]],
    make: Callable[[str], Any],
    spec: str,
    options: dict[str, Any],
) -> list[tuple[Any, ...]]:
    """Return ``per_game(record, bot, game=game, **options)`` for each (game, path) of a batch,
    the bot made by ``make(spec)`` afresh for each game."""
    from projectl_sim.engine.record import read_record

    # a bot per game: a game's rows never depend on which games shared its worker
    return [per_game(read_record(p), make(spec), game=game, **options) for game, p in paths]


def _games_in_batches(
    runs: Sequence[Path],
    jobs: int,
    parts: int,
    work: tuple[Callable[..., tuple[Any, ...]], Callable[[str], Any], str, dict[str, Any]],
    say: Callable[[str], None],
    progress: str,
) -> list[tuple[Any, ...]]:
    """Return the rows of ``work`` (``_each_game``'s per-game function, bot maker, spec and
    options) for the runs' records in game order, the games split in ``parts`` batches played
    ``jobs`` at a time; after each, ``progress`` (its ``{done}`` and ``{total}`` the games) is
    said with the ETA."""
    from joblib import Parallel, delayed

    from projectl_sim.learn.value import split_evenly

    paths: list[tuple[int, str]] = []
    for run in runs:
        for path in sorted((run / "records").glob("game-*.json")):
            paths.append((len(paths), str(path)))
    started = time.monotonic()
    results: list[tuple[Any, ...]] = []
    chunks = split_evenly(paths, parts)
    for k in range(0, len(chunks), jobs):
        batch = chunks[k : k + jobs]
        if jobs == 1:
            results += [r for c in batch for r in _each_game(c, *work)]
        else:
            done = Parallel(n_jobs=jobs)(delayed(_each_game)(c, *work) for c in batch)
            results += [r for part in done for r in part]
        eta = _eta(started, len(results), len(paths))
        say(progress.format(done=len(results), total=len(paths)) + eta)
    return results


def positions(
    plan: Plan, runs: Sequence[Path], model: str, seed: int, jobs: int, say: Callable[[str], None]
) -> tuple[Any, np.ndarray]:
    """Return the searched positions of the self-play runs' records (game order), and each
    row's search margin (NaN: not searched)."""

    from bots.features import FEATURE_NAMES
    from projectl_sim.learn.value import COLUMNS, Positions

    options = {"every": plan.every, "seed": seed, "every_seat": plan.every_seat}
    work = (label_game, _searcher, plan.search(model), options)
    progress = "searched positions of {done}/{total} games"
    results = _games_in_batches(runs, jobs, jobs * 4, work, say, progress)
    feats = [row for r in results for row in r[0]]
    metas = [row for r in results for row in r[1]]
    margins = [m for r in results for m in r[2]]
    tables = [r[3] for r in results for _ in r[0]]
    variants = [r[4] for r in results for _ in r[0]]
    x = np.asarray(feats, dtype=np.float64).reshape(-1, len(FEATURE_NAMES))
    meta = np.asarray(metas, dtype=np.float64).reshape(-1, len(COLUMNS))
    pos = Positions(
        x=x,
        game=meta[:, 0].astype(np.int64),
        players=meta[:, 1].astype(np.int64),
        margin=meta[:, 3],
        win=meta[:, 4],
        old_margin=meta[:, 5],
        root_value=meta[:, 6],
        table=np.asarray(tables, dtype=str),
        variant=np.asarray(variants, dtype=str),
    )
    return pos, np.asarray(margins, dtype=np.float64)


ROLLOUTS_FILE = "rollouts.npz"  # with rollout labels: a generation's rows


def rollout_game(
    record: dict[str, Any], scorer: Any, every: int, rollouts: int, seed: int, game: int
) -> tuple[list[tuple[list[list[float]], list[float], list[float]]], int, str, str]:
    """Replay one record; at about one Play decision in ``every`` (chance drawn from ``seed``
    and ``game``), score every candidate ``scorer`` compares by greedy rollouts
    (``learn.rollouts``); return each scored decision's rows (features, win shares, margins),
    the game's player count, expansion label (``learn.value``'s) and variant."""
    from bots.greedy import GreedyBot
    from projectl_sim.engine import PLAY
    from projectl_sim.engine.record import replay
    from projectl_sim.learn.rollouts import decision_rows, score_position

    pick = random.Random(seed ^ game)
    views: list[tuple[Any, int]] = []

    def on_step(state: Any, seat: int, action: Any) -> None:
        if state.phase == PLAY and pick.random() * every < 1.0:
            views.append((state.view(state.current), pick.getrandbits(31) + 1))

    state = replay(record, on_step=on_step).state
    greedy = GreedyBot(endgame=0)
    out = []
    for view, key in views:
        _, wins, margins, _, feats = score_position(view, scorer, greedy, rollouts, key)
        out.append(decision_rows(wins, margins, feats))
    table = "+".join(sorted(state.rules.expansions)) or "base"
    return out, state.n, table, state.rules.variant


def rollout_positions(
    plan: Plan, runs: Sequence[Path], model: str, seed: int, jobs: int, say: Callable[[str], None]
) -> Any:
    """Return the rollout-labelled rows of the self-play runs' records (game order), each
    row's ``game`` its decision's number (as ``tools/value_oracle.py`` numbers them)."""

    from bots import make_bot
    from bots.features import FEATURE_NAMES
    from projectl_sim.learn.value import Positions

    options = {"every": plan.every, "rollouts": plan.rollouts, "seed": seed}
    work = (rollout_game, make_bot, on_model(plan.scorer, model), options)
    # a game takes a second or more to score: progress (and its ETA) every twentieth of them
    parts = max(jobs * 4, 20)
    progress = "scored decisions of {done}/{total} games by rollouts"
    results = _games_in_batches(runs, jobs, parts, work, say, progress)
    x: list[list[float]] = []
    win: list[float] = []
    margin: list[float] = []
    decision: list[int] = []
    players: list[int] = []
    table: list[str] = []
    variant: list[str] = []
    k = 0
    for decisions, n, t, v in results:
        for fx, fw, fm in decisions:
            x += fx
            win += fw
            margin += fm
            decision += [k] * len(fx)
            players += [n] * len(fx)
            table += [t] * len(fx)
            variant += [v] * len(fx)
            k += 1
    rows = len(x)
    return Positions(
        x=np.asarray(x, dtype=np.float64).reshape(-1, len(FEATURE_NAMES)),
        game=np.asarray(decision, dtype=np.int64),
        players=np.asarray(players, dtype=np.int64),
        margin=np.asarray(margin, dtype=np.float64),
        win=np.asarray(win, dtype=np.float64),
        old_margin=np.zeros(rows),
        root_value=np.full(rows, np.nan),
        table=np.asarray(table, dtype=str),
        variant=np.asarray(variant, dtype=str),
    )


def _eta(started: float, done: int, total: int) -> str:
    if not done or done >= total:
        return ""
    left = (time.monotonic() - started) / done * (total - done)
    return f", about {_minutes(left)} left"


def _minutes(seconds: float) -> str:
    return f"{seconds / 60:.1f} min" if seconds >= 60 else f"{seconds:.0f} s"


def targets(
    pos: Any, mix: float, anchor: Any = None, search_margin: np.ndarray | None = None
) -> Any:
    """Return ``pos`` with each searched row's targets blended with the search's: the win share
    with its mean predicted win share (``root_value``), the margin with its mean predicted margin
    (``search_margin``, when given); given a model ``anchor``, the rows no search labelled take
    that model's values."""
    from projectl_sim.learn.value import Positions, predict

    searched = ~np.isnan(pos.root_value)
    win = np.where(searched, mix * np.nan_to_num(pos.root_value) + (1 - mix) * pos.win, pos.win)
    margin = pos.margin.astype(np.float64).copy()
    if search_margin is not None:
        both = searched & ~np.isnan(search_margin)
        margin[both] = mix * search_margin[both] + (1 - mix) * margin[both]
    if anchor is not None and (~searched).any():
        own_win, own_margin = predict(anchor, pos.x[~searched])
        win[~searched] = np.clip(own_win, 0.0, 1.0)
        margin[~searched] = own_margin  # points, as the final margins
    columns = {f: getattr(pos, f) for f in pos.__dataclass_fields__}
    columns["win"] = win
    columns["margin"] = margin
    return Positions(**columns)


def _read_positions(gen_dir: Path) -> tuple[Any, np.ndarray | None]:
    """Return a generation's positions and its search margins (None: a file without them)."""
    from projectl_sim.learn.value import Positions

    pos = Positions.load(gen_dir / "positions.npz")
    path = gen_dir / SEARCH_FILE
    if not path.exists():
        return pos, None
    with np.load(path, allow_pickle=False) as data:
        margin = np.asarray(data["margin"], dtype=np.float64)
    if margin.shape != (len(pos),):
        raise UsageError(f"{path}: {margin.shape} margins for {len(pos)} positions; remove both")
    return pos, margin


def fine_tune(
    start: str, pos: Any, seed: int, max_iter: int = 10
) -> tuple[list[float], list[float], list[tuple[list[list[float]], list[float]]]]:
    """Fit ``pos`` starting from model file ``start``'s network and standardisation (the
    incumbent's knowledge kept, its values moved toward the search's); return ``fit``'s parts."""
    import warnings

    from sklearn.exceptions import ConvergenceWarning
    from sklearn.neural_network import MLPRegressor
    from threadpoolctl import threadpool_limits

    from projectl_sim.learn.value import MARGIN_SCALE

    data = json.loads(Path(start).read_text())
    mean = np.asarray(data["mean"], dtype=float)
    scale = np.asarray(data["scale"], dtype=float)
    layers = data["layers"]
    x = (pos.x - mean) / scale
    y = np.column_stack([pos.win, pos.margin / MARGIN_SCALE])
    net = MLPRegressor(
        hidden_layer_sizes=tuple(len(layer["biases"]) for layer in layers[:-1]),
        activation="relu",
        alpha=1e-4,
        batch_size=256,
        learning_rate_init=3e-4,
        max_iter=max_iter,  # a few epochs from the incumbent's weights: moved, not refitted
        random_state=seed,
        warm_start=True,
    )
    with threadpool_limits(1), warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        warnings.simplefilter("ignore", UserWarning)  # the tiny batch that builds the layers
        net.partial_fit(x[:2], y[:2])  # builds the layers; replaced by the incumbent's next
        net.coefs_ = [np.asarray(layer["weights"], dtype=float) for layer in layers]
        net.intercepts_ = [np.asarray(layer["biases"], dtype=float) for layer in layers]
        net.fit(x, y)
    out = [(w.tolist(), b.tolist()) for w, b in zip(net.coefs_, net.intercepts_, strict=True)]
    return mean.tolist(), scale.tolist(), out


def data_summary(pos: Any) -> dict[str, Any]:
    """Return what a generation's positions hold: counts per table, the search's values."""
    searched = ~np.isnan(pos.root_value)
    per: dict[str, int] = {}
    for n, v, t in zip(pos.players.tolist(), pos.variant.tolist(), pos.table.tolist(), strict=True):
        key = f"{n}p {v} {t}"
        per[key] = per.get(key, 0) + 1
    gap = pos.root_value[searched] - pos.win[searched]
    return {
        "games": len(np.unique(pos.game)),
        "positions": len(pos),
        "searched": int(searched.sum()),
        "per_table": dict(sorted(per.items())),
        "search_value_mean": round(float(np.mean(pos.root_value[searched])), 4)
        if searched.any()
        else None,
        "search_minus_result_mean": round(float(np.mean(gap)), 4) if searched.any() else None,
    }


def match(
    a: str, b: str, run_dir: Path, games: int, seed: int, options: Any, players: int = 2
) -> dict[str, Any]:
    """Play bot ``a`` against bot ``b`` on shared deals, every seating of each deal (the
    runner's round robin, resumable), into ``run_dir``; return ``a``'s score share (win share)
    with its 95% interval over deals (paired: a deal's seatings averaged first)."""
    from bots import make_bot
    from projectl_sim.sim.summary import read_run

    _run(
        {
            "round_robin": ",".join([a, b]),
            "players": [players],
            "games": games,
            "seed": seed,
            "tables": "core",
        },
        run_dir,
        options,
    )
    seats, table = read_run(run_dir)
    failed = int(table["error"].notna().sum())
    seats = seats[seats["error"].isna()]
    mine = seats[seats["bot"] == repr(make_bot(a))]  # a bot's name is its repr (the model's hash)
    per_deal = mine.groupby("deal")["win_share"].mean().to_numpy(dtype=float)
    n = len(per_deal)
    share = float(per_deal.mean()) if n else math.nan
    half = 1.96 * float(per_deal.std(ddof=1)) / math.sqrt(n) if n > 1 else math.nan
    cpu = mine["decision_cpu_mean"] * mine["decisions"]
    return {
        "games": len(mine),
        "deals": n,
        "failed": failed,
        "share": round(share, 4),
        "ci_low": round(max(0.0, share - half), 4),
        "ci_high": round(min(1.0, share + half), 4),
        "ms_per_decision": round(1000 * float(cpu.sum() / max(1, mine["decisions"].sum())), 3),
    }


def gate(
    plan: Plan, candidate: str, incumbent: str, gen_dir: Path, seed: int, options: Any
) -> dict[str, Any]:
    """Play the candidate's search against the incumbent's on shared deals, both seatings;
    return the candidate's score share with its paired 95% interval over deals."""
    a, b = plan.search(candidate), plan.search(incumbent)
    result = match(a, b, gen_dir / "gate", plan.gate_games, seed, options)
    return {**result, "threshold": plan.gate_share}


def _finite(data: Any) -> Any:
    """Return ``data`` with NaN numbers as None (JSON has no NaN)."""
    if isinstance(data, float) and math.isnan(data):
        return None
    if isinstance(data, dict):
        return {k: _finite(v) for k, v in data.items()}
    if isinstance(data, list):
        return [_finite(v) for v in data]
    return data


def _write_json(path: Path, data: Any) -> None:
    tmp = path.with_name(f".{os.getpid()}.{path.name}")
    tmp.write_text(json.dumps(_finite(data), indent=1) + "\n")
    os.replace(tmp, path)


def _check_spec(flag: str, spec: str, scorer: bool = False) -> None:
    """Refuse, in one line naming ``flag``, a bot spec that names no bot (the scorer: no value
    bot)."""
    from bots import make_bot

    try:
        bot = make_bot(spec)
    except UsageError as exc:
        raise UsageError(f"{flag}: {exc}") from None
    if scorer and not hasattr(bot, "scored"):
        raise UsageError(f"{flag} {spec}: not a value bot, the one whose candidates are scored")


def _read_generation(path: Path) -> Generation:
    try:
        data = json.loads(path.read_text())
        return Generation(**data)
    except (OSError, ValueError, TypeError) as exc:
        raise UsageError(f"{path}: not a generation summary ({exc}); remove it to redo") from None


def _check_plan(out: Path, plan: Plan) -> None:
    """Write the plan into ``out`` on the first run; refuse a different plan for a resume."""
    path = out / "plan.json"
    mine = plan.training()
    if path.exists():
        try:
            theirs = json.loads(path.read_text())
        except (OSError, ValueError) as exc:
            raise UsageError(f"{path}: not an expert iteration's plan ({exc})") from None
        # a plan written before a field was added holds that field's default
        theirs = {**Plan().training(), **theirs}
        grown = {k: v for k, v in theirs.items() if k != "generations"}
        if grown != {k: v for k, v in mine.items() if k != "generations"}:
            key = next(k for k in mine if k != "generations" and theirs.get(k) != mine[k])
            raise UsageError(
                f"--out {out} holds an expert iteration with {key}={theirs.get(key)!r}, not "
                f"{mine[key]!r}: resume it with its settings, or train into another --out"
            )
    _write_json(path, mine)


def iterate(
    out: Path,
    plan: Plan,
    *,
    jobs: int = 1,
    backend: str = "local",
    scheduler: str | None = None,
    extra: Sequence[Path] = (),
    base: Path | None = None,
    quiet: bool = False,
    echo: Callable[[str], None] | None = None,
) -> list[Generation]:
    """Run (or go on with) the expert iteration of ``plan`` in ``out``; return its generations.

    With rollout labels, each generation's fit is the one-off training's (``learn.value``) on
    ``base``'s outcome rows (its held-out games by ``plan.seed``) plus the ``extra`` rows and
    the last ``window`` generations' rollout rows, each added row counted ``extra_weight``
    times: a recipe's fit (``train-value --positions BASE --extra-positions ...``) with the
    generations' rows added."""
    from bots.value_model import load_model, model_path
    from projectl_sim.learn.value import Positions, joined, require_fit_library, sole_writer

    require_fit_library()
    say = echo or (lambda line: None)
    if plan.labels not in ("search", "rollouts"):
        raise UsageError(f"labels {plan.labels!r}: search or rollouts")
    if plan.labels == "rollouts" and base is None:
        raise UsageError(
            "rollout labels need the outcome rows the fit holds games out of: --positions FILE "
            "(a train-value run's positions.npz)"
        )
    if plan.labels == "search" and base is not None:
        raise UsageError("--positions is rollout labels' (--labels rollouts); search plays its own")
    start = str(model_path(plan.start))
    load_model(start)  # a bad start model: one line before anything is played
    _check_spec("--player" if plan.labels == "rollouts" else "the search", plan.search(start))
    if plan.labels == "rollouts":
        _check_spec("--scorer", on_model(plan.scorer, start), scorer=True)
    read = None if base is None else Positions.load(base, "--positions")
    more = None
    for path in extra:
        rows = Positions.load(path, "--extra-positions")
        more = joined(more, rows) if more is not None else rows
    inputs = {
        "base": read,
        "base_name": None if base is None else base.name,
        "extra": more,
        "extra_names": [p.name for p in extra],
    }
    out.mkdir(parents=True, exist_ok=True)
    options = _options(jobs, backend, scheduler, quiet)
    done: list[Generation] = []
    with sole_writer(out):
        _check_plan(out, plan)
        incumbent = start
        spent: list[float] = []
        for g in range(1, plan.generations + 1):
            gen_dir = out / GEN_FORMAT.format(g)
            summary = gen_dir / "generation.json"
            if summary.exists():
                gen = _read_generation(summary)
                done.append(gen)
                if gen.kept:
                    incumbent = str((gen_dir / "model.json").resolve())
                say(f"generation {g}: done before ({'kept' if gen.kept else 'not kept'})")
                continue
            began = time.monotonic()
            try:
                gen = _generation(plan, g, gen_dir, incumbent, options, jobs, inputs, out, say)
            except KeyboardInterrupt:
                # the runner's own advice names its run folder; the training goes on as a whole
                raise RunInterrupted(
                    f"interrupted in generation {g} ({gen_dir}): what it finished is kept; run "
                    "the same train-value command again to go on"
                ) from None
            _write_json(summary, asdict(gen))
            done.append(gen)
            if gen.kept:
                incumbent = str((gen_dir / "model.json").resolve())
            spent.append(time.monotonic() - began)
            left = plan.generations - g
            eta = f", about {_minutes(left * float(np.mean(spent)))} left" if left else ""
            say(
                f"generation {g}/{plan.generations}: candidate {gen.candidate_hash} scored "
                f"{gen.gate['share']:.1%} [{gen.gate['ci_low']:.1%}, {gen.gate['ci_high']:.1%}] "
                f"of {gen.gate['games']} games against {gen.incumbent_hash}: "
                f"{'kept' if gen.kept else 'not kept'} ({_minutes(spent[-1])}{eta})"
            )
    return done


def _generation(
    plan: Plan,
    g: int,
    gen_dir: Path,
    incumbent: str,
    options: Any,
    jobs: int,
    inputs: dict[str, Any],
    out: Path,
    say: Callable[[str], None],
) -> Generation:
    from bots.value_model import load_model

    s = seeds(plan, g)
    seconds: dict[str, float] = {}
    gen_dir.mkdir(parents=True, exist_ok=True)
    t = time.monotonic()
    say(f"generation {g}: self-play with {Path(incumbent).name} ({load_model(incumbent).hash})")
    runs = self_play(plan, incumbent, gen_dir, s["selfplay"], options)
    seconds["selfplay"] = round(time.monotonic() - t, 1)
    seconds["selfplay_bot_cpu"] = round(sum(_bot_cpu(run) for run in runs), 1)
    rollouts = plan.labels == "rollouts"
    t, c = time.monotonic(), time.process_time()
    if rollouts:
        pos, search_margin = _rollout_step(plan, runs, incumbent, gen_dir, s, jobs, say), None
    else:
        pos, search_margin = _search_step(plan, g, runs, incumbent, gen_dir, s, jobs, say)
    seconds["label"] = round(time.monotonic() - t, 1)
    seconds["label_cpu"] = round(time.process_time() - c, 1)
    model_file = gen_dir / "model.json"
    t, c = time.monotonic(), time.process_time()
    if not model_file.exists():
        if rollouts:
            _rollout_fit(plan, g, pos, incumbent, gen_dir, s, inputs, out)
        else:
            _search_fit(plan, g, pos, search_margin, incumbent, gen_dir, s, inputs["extra"], out)
    seconds["fit"] = round(time.monotonic() - t, 1)
    seconds["fit_cpu"] = round(time.process_time() - c, 1)
    candidate = load_model(str(model_file))
    t = time.monotonic()
    result = gate(plan, str(model_file.resolve()), incumbent, gen_dir, s["gate"], options)
    seconds["gate"] = round(time.monotonic() - t, 1)
    seconds["gate_bot_cpu"] = round(_bot_cpu(gen_dir / "gate"), 1)
    return Generation(
        generation=g,
        incumbent=incumbent,
        incumbent_hash=load_model(incumbent).hash,
        candidate_hash=candidate.hash,
        # "beats": the share reaches the rule and its interval's lower end clears an even match
        kept=bool(result["share"] >= plan.gate_share and result["ci_low"] > 0.5),
        gate=result,
        data=rollout_summary(pos) if rollouts else data_summary(pos),
        seconds=seconds,
    )


def _bot_cpu(run_dir: Path) -> float:
    """Return the CPU seconds a run's bots spent deciding (its seats' mean x decisions)."""
    from projectl_sim.sim.summary import read_run

    seats, _ = read_run(run_dir)
    return float((seats["decision_cpu_mean"] * seats["decisions"]).sum())


def _save(pos: Any, path: Path) -> None:
    tmp = path.with_name(f".{os.getpid()}.{path.name}")
    pos.save(tmp)
    os.replace(tmp, path)


def _search_step(
    plan: Plan,
    g: int,
    runs: list[Path],
    incumbent: str,
    gen_dir: Path,
    s: dict[str, int],
    jobs: int,
    say: Callable[[str], None],
) -> tuple[Any, np.ndarray | None]:
    """Return the generation's searched positions (played and written once)."""
    pos_path = gen_dir / "positions.npz"
    if pos_path.exists():
        return _read_positions(gen_dir)
    pos, search_margin = positions(plan, runs, incumbent, s["label"], jobs, say)
    if not len(pos):
        raise UsageError(
            f"generation {g}: its games gave no positions (one Play decision in --every "
            f"{plan.every} is searched): play more --games, or lower --every"
        )
    tmp = gen_dir / f".{os.getpid()}.{SEARCH_FILE}"
    np.savez_compressed(tmp, margin=search_margin)
    os.replace(tmp, gen_dir / SEARCH_FILE)
    _save(pos, pos_path)  # last: the step is done once its positions are in place
    return pos, search_margin


def _rollout_step(
    plan: Plan,
    runs: list[Path],
    incumbent: str,
    gen_dir: Path,
    s: dict[str, int],
    jobs: int,
    say: Callable[[str], None],
) -> Any:
    """Return the generation's rollout-labelled rows (scored and written once)."""
    from projectl_sim.learn.value import Positions

    path = gen_dir / ROLLOUTS_FILE
    if path.exists():
        return Positions.load(path)
    pos = rollout_positions(plan, runs, incumbent, s["label"], jobs, say)
    _save(pos, path)
    return pos


def rollout_summary(pos: Any) -> dict[str, Any]:
    """Return what a generation's rollout rows hold: decisions and rows per table."""
    per: dict[str, list[int]] = {}
    seen: set[int] = set()
    for d, n, v, t in zip(
        pos.game.tolist(),
        pos.players.tolist(),
        pos.variant.tolist(),
        pos.table.tolist(),
        strict=True,
    ):
        key = f"{n}p {v} {t}"
        part = per.setdefault(key, [0, 0])
        part[0] += d not in seen
        part[1] += 1
        seen.add(d)
    return {
        "decisions": len(seen),
        "rows": len(pos),
        "per_table (decisions, rows)": dict(sorted(per.items())),
        "rollout_win_mean": round(float(np.mean(pos.win)), 4) if len(pos) else None,
    }


def _write_fit(
    gen_dir: Path,
    mean: Any,
    scale: Any,
    layers: Any,
    training: dict[str, Any],
    test: Any,
    incumbent: str,
) -> None:
    """Write the candidate and its accuracy (and the incumbent's) on the held-out rows ``test``:
    the model last, so the step is done once it is in place."""
    import csv

    from bots.value_model import load_model, write_model
    from projectl_sim.learn.value import (
        ACCURACY_COLUMNS,
        MARGIN_SCALE,
        accuracy,
        check_fit,
        write_csv,
    )

    check_fit(layers)
    tmp = gen_dir / f".{os.getpid()}.model.json"
    write_model(tmp, mean, scale, layers, MARGIN_SCALE, training)
    acc = accuracy(load_model(str(tmp)), test)
    write_csv(gen_dir / "accuracy.csv", acc, ACCURACY_COLUMNS, csv)
    # the incumbent on the same held-out games: what the generation's fit changed
    acc = accuracy(load_model(incumbent), test)
    write_csv(gen_dir / "accuracy_parent.csv", acc, ACCURACY_COLUMNS, csv)
    os.replace(tmp, gen_dir / "model.json")


def _search_fit(
    plan: Plan,
    g: int,
    pos: Any,
    search_margin: np.ndarray | None,
    incumbent: str,
    gen_dir: Path,
    s: dict[str, int],
    more: Any,
    out: Path,
) -> None:
    from bots.value_model import load_model
    from projectl_sim.learn.value import fit, held_out, joined

    test = held_out(pos, plan.test_share, s["fit"])
    anchor = load_model(incumbent) if plan.anchor else None
    train = ~test
    rows = targets(
        pos.subset(train),
        plan.mix,
        anchor,
        None if search_margin is None else search_margin[train],
    )
    for back in range(g - 1, max(0, g - plan.window), -1):
        older, older_margin = _read_positions(out / GEN_FORMAT.format(back))
        rows = joined(rows, targets(older, plan.mix, anchor, older_margin))
    rows = joined(rows, more)
    if len(rows) < 50:
        raise UsageError(
            f"generation {g}: only {len(rows)} training positions: play more "
            "--selfplay-games, or lower --every"
        )
    if plan.fresh:
        mean, scale, layers = fit(rows, plan.hidden, s["fit"])
    else:
        mean, scale, layers = fine_tune(incumbent, rows, s["fit"])
    training = {
        **_training_head("expert iteration (projectl_sim.learn.expit)", plan, g, incumbent, s),
        "fit_rows": len(rows),
        "data": data_summary(pos),
    }
    _write_fit(gen_dir, mean, scale, layers, training, pos.subset(test), incumbent)


def _training_head(
    method: str, plan: Plan, g: int, incumbent: str, s: dict[str, int]
) -> dict[str, Any]:
    """Return the entries every generation's model file opens its ``training`` with."""
    from bots.value_model import load_model

    return {
        "method": method,
        "generation": g,
        "parent": load_model(incumbent).hash,
        "seeds": s,
        # the plan without its length: a generation's model is the same in a longer run
        "plan": {k: v for k, v in plan.training().items() if k != "generations"},
    }


def _rollout_fit(
    plan: Plan,
    g: int,
    pos: Any,
    incumbent: str,
    gen_dir: Path,
    s: dict[str, int],
    inputs: dict[str, Any],
    out: Path,
) -> None:
    """Fit the candidate as the one-off training fits (``learn.value.fit``, seed ``plan.seed``)
    on the outcome rows' training games plus the extra rows and the window's rollout rows,
    each added row counted ``extra_weight`` times."""
    from projectl_sim.learn.value import Positions, fit, fit_library, held_out, joined, weighted

    base = inputs["base"]
    test = held_out(base, plan.test_share, plan.seed)
    train_pos, test_pos = base.subset(~test), base.subset(test)
    added = inputs["extra"]
    gens: dict[str, int] = {}
    for back in range(max(1, g - plan.window + 1), g + 1):
        name = GEN_FORMAT.format(back)
        rows = pos if back == g else Positions.load(out / name / ROLLOUTS_FILE)
        gens[f"{name}/{ROLLOUTS_FILE}"] = len(rows)
        added = joined(added, rows) if added is not None else rows
    added = weighted(added, plan.extra_weight)
    method = "expert iteration, rollout labels (projectl_sim.learn.expit)"
    training = {
        **_training_head(method, plan, g, incumbent, s),
        # the one-off training's entries (learn.value.train), the fit it is
        "games": len(np.unique(train_pos.game)),
        "positions": len(train_pos),
        "held_out_games": len(np.unique(test_pos.game)),
        "seed": plan.seed,
        "positions_from": inputs["base_name"],
        "extra_positions": inputs["extra_names"],
        "generation_rows": gens,
        "extra_rows": 0 if added is None else len(added),
        "extra_weight": plan.extra_weight,
        "hidden": list(plan.hidden),
        "library": fit_library(),
        "data": rollout_summary(pos),
    }
    mean, scale, layers = fit(joined(train_pos, added), plan.hidden, plan.seed)
    _write_fit(gen_dir, mean, scale, layers, training, test_pos, incumbent)


__all__ = [
    "Generation",
    "Plan",
    "data_summary",
    "gate",
    "iterate",
    "label_game",
    "match",
    "rollout_game",
    "rollout_positions",
    "rollout_summary",
    "seeds",
    "targets",
]
