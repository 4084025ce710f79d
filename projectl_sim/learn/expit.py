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

    def search(self, model: str) -> str:
        """Return the search player's spec on ``model`` (a model file's path)."""
        return SEARCH.format(iterations=self.iterations) + f",model={model}"

    def training(self) -> dict[str, Any]:
        """Return the plan as a model file's ``training`` entry (lists, not tuples)."""
        out = asdict(self)
        out["players"] = list(self.players)
        out["variants"] = list(self.variants)
        out["expansions"] = ["+".join(e) or "none" for e in self.expansions]
        out["hidden"] = list(self.hidden)
        return out


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

        def _leaf_values(self, state: Any, rng: random.Random, model: Any) -> list[float]:
            values = super()._leaf_values(state, rng, model)  # plays ``state`` on to the leaf
            if state.phase == OVER:
                out = [_final(state, p) for p in range(state.n)]
            else:
                rows = [
                    position_features(state, p, self._private & ~(1 << p), self._per_card)
                    for p in range(state.n)
                ]
                out = self.value_model.evaluate_rows(rows)
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


def _label_batch(
    paths: list[tuple[int, str]], spec: str, every: int, seed: int, every_seat: bool
) -> list[tuple[Any, ...]]:
    from projectl_sim.engine.record import read_record

    # a bot per game: a game's rows never depend on which games shared its worker
    return [
        label_game(read_record(p), _searcher(spec), every, seed, game, every_seat)
        for game, p in paths
    ]


def positions(
    plan: Plan, runs: Sequence[Path], model: str, seed: int, jobs: int, say: Callable[[str], None]
) -> tuple[Any, np.ndarray]:
    """Return the searched positions of the self-play runs' records (game order), and each
    row's search margin (NaN: not searched)."""
    from joblib import Parallel, delayed

    from bots.features import FEATURE_NAMES
    from projectl_sim.learn.value import COLUMNS, Positions, split_evenly

    paths: list[tuple[int, str]] = []
    for run in runs:
        for path in sorted((run / "records").glob("game-*.json")):
            paths.append((len(paths), str(path)))
    spec = plan.search(model)
    started = time.monotonic()
    results: list[tuple[Any, ...]] = []
    chunks = split_evenly(paths, jobs * 4)
    for k in range(0, len(chunks), jobs):
        batch = chunks[k : k + jobs]
        if jobs == 1:
            results += [
                r for c in batch for r in _label_batch(c, spec, plan.every, seed, plan.every_seat)
            ]
        else:
            parts = Parallel(n_jobs=jobs)(
                delayed(_label_batch)(c, spec, plan.every, seed, plan.every_seat) for c in batch
            )
            results += [r for part in parts for r in part]
        eta = _eta(started, len(results), len(paths))
        say(f"searched positions of {len(results)}/{len(paths)} games{eta}")
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
    quiet: bool = False,
    echo: Callable[[str], None] | None = None,
) -> list[Generation]:
    """Run (or go on with) the expert iteration of ``plan`` in ``out``; return its generations."""
    from bots.value_model import load_model, model_path
    from projectl_sim.learn.value import Positions, joined, require_fit_library, sole_writer

    require_fit_library()
    say = echo or (lambda line: None)
    start = plan.start or str(model_path(""))
    load_model(start)  # a bad start model: one line before anything is played
    more = None
    for path in extra:
        rows = Positions.load(path, "--extra-positions")
        more = joined(more, rows) if more is not None else rows
    out.mkdir(parents=True, exist_ok=True)
    options = _options(jobs, backend, scheduler, quiet)
    done: list[Generation] = []
    with sole_writer(out):
        _check_plan(out, plan)
        incumbent = str(Path(start).resolve())
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
                gen = _generation(plan, g, gen_dir, incumbent, options, jobs, more, out, say)
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
    more: Any,
    out: Path,
    say: Callable[[str], None],
) -> Generation:
    import csv

    from bots.value_model import load_model, write_model
    from projectl_sim.learn.value import (
        ACCURACY_COLUMNS,
        MARGIN_SCALE,
        accuracy,
        check_fit,
        fit,
        held_out,
        joined,
        write_csv,
    )

    s = seeds(plan, g)
    seconds: dict[str, float] = {}
    gen_dir.mkdir(parents=True, exist_ok=True)
    t = time.monotonic()
    say(f"generation {g}: self-play with {Path(incumbent).name} ({load_model(incumbent).hash})")
    runs = self_play(plan, incumbent, gen_dir, s["selfplay"], options)
    seconds["selfplay"] = round(time.monotonic() - t, 1)
    pos_path = gen_dir / "positions.npz"
    t = time.monotonic()
    if pos_path.exists():
        pos, search_margin = _read_positions(gen_dir)
    else:
        pos, search_margin = positions(plan, runs, incumbent, s["label"], jobs, say)
        if not len(pos):
            raise UsageError(
                f"generation {g}: its games gave no positions (one Play decision in --every "
                f"{plan.every} is searched): play more --games, or lower --every"
            )
        tmp = gen_dir / f".{os.getpid()}.{SEARCH_FILE}"
        np.savez_compressed(tmp, margin=search_margin)
        os.replace(tmp, gen_dir / SEARCH_FILE)
        tmp = gen_dir / f".{os.getpid()}.positions.npz"
        pos.save(tmp)
        os.replace(tmp, pos_path)  # last: the step is done once its positions are in place
    seconds["label"] = round(time.monotonic() - t, 1)
    model_file = gen_dir / "model.json"
    t = time.monotonic()
    if not model_file.exists():
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
        check_fit(layers)
        training = {
            "method": "expert iteration (projectl_sim.learn.expit)",
            "generation": g,
            "parent": load_model(incumbent).hash,
            "seeds": s,
            # the plan without its length: a generation's model is the same in a longer run
            "plan": {k: v for k, v in plan.training().items() if k != "generations"},
            "fit_rows": len(rows),
            "data": data_summary(pos),
        }
        tmp = gen_dir / f".{os.getpid()}.model.json"
        write_model(tmp, mean, scale, layers, MARGIN_SCALE, training)
        acc = accuracy(load_model(str(tmp)), pos.subset(test))
        write_csv(gen_dir / "accuracy.csv", acc, ACCURACY_COLUMNS, csv)
        # the incumbent on the same held-out games: what the generation's fit changed
        acc = accuracy(load_model(incumbent), pos.subset(test))
        write_csv(gen_dir / "accuracy_parent.csv", acc, ACCURACY_COLUMNS, csv)
        os.replace(tmp, model_file)
    seconds["fit"] = round(time.monotonic() - t, 1)
    candidate = load_model(str(model_file))
    t = time.monotonic()
    result = gate(plan, str(model_file.resolve()), incumbent, gen_dir, s["gate"], options)
    seconds["gate"] = round(time.monotonic() - t, 1)
    return Generation(
        generation=g,
        incumbent=incumbent,
        incumbent_hash=load_model(incumbent).hash,
        candidate_hash=candidate.hash,
        # "beats": the share reaches the rule and its interval's lower end clears an even match
        kept=bool(result["share"] >= plan.gate_share and result["ci_low"] > 0.5),
        gate=result,
        data=data_summary(pos),
        seconds=seconds,
    )


__all__ = [
    "Generation",
    "Plan",
    "data_summary",
    "gate",
    "iterate",
    "label_game",
    "match",
    "seeds",
    "targets",
]
