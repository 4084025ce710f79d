"""How often ``cards`` flags a card on the real catalogue (false positives), and how often it
finds a planted strong one (power), over repeated root seeds.

Run: ``.venv/bin/python tools/card_flags.py [--seeds 20] [--games 200] [--bots greedy] [--jobs N]
[--no-boost] [--placebo [--shuffles K]] [--runs DIR] [--wald]``. Each seed plays two runs of
``--games`` two-player games: the real catalogue, and the same with one white card (``--boost``,
default W12) worth 3 points more (``--no-boost``: the real catalogue only, half the time, for the
false-positive rate alone). On the real catalogue every flag counts as a false positive if no card
differs from its peers (the check's premise: the printed cards are balanced to within what such a
run can see); the Benjamini-Yekutieli flags then keep the share of runs with any flag at or below
5%. Prints, with Wilson 95% intervals: the share of real runs with a flag (and which cards), and the
share of boosted runs that flag the boosted card as the strongest with its interval above 0.
``--placebo`` also counts the flags of each real run with its games' outcomes shuffled between games
(the first player's edge kept, any card's gone): the flags' false-positive rate when the premise
holds by construction, ``--shuffles`` times per run. ``--save`` keeps every real run's card rows, to
tell a card that really differs from a loose interval. ``--runs`` keeps the real runs and reuses
them, so that ``--wald`` (the p-values from the interval's standard error, as before the score test)
tests the same runs and shuffles.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from projectl_sim.analysis import cards, failures  # noqa: E402
from projectl_sim.analysis.data import load_run  # noqa: E402
from projectl_sim.analysis.stats import wilson  # noqa: E402
from projectl_sim.sim import runner  # noqa: E402
from projectl_sim.sim.runner import RunOptions  # noqa: E402
from projectl_sim.sim.spec import RunSpec  # noqa: E402


def strength(
    folder: Path,
    bots: str,
    games: int,
    seed: int,
    rules: dict,
    jobs: int | None = None,
    shuffles: int = 0,
) -> tuple[pd.DataFrame, list[pd.DataFrame]]:
    """Return the run's card strength (the run is played unless ``folder`` holds it complete),
    and that of ``shuffles`` copies of it with its games' outcomes shuffled between games."""
    spec = RunSpec.from_mapping(
        {"bots": [bots], "players": [2], "games": games, "seed": seed, "rules": rules}
    )
    resume = (folder / "manifest.json").is_file()  # kept by --runs: finished, or finish it
    runner.run(spec, folder, resume=resume, options=RunOptions(jobs=jobs, quiet=True))
    run = load_run(folder)
    catalogue = failures.catalogue_cards(run.manifest)
    real = cards.card_strength(run.seats, run.events, catalogue)
    rng = np.random.default_rng(seed)
    placebos = [
        cards.card_strength(shuffle_outcomes(run.seats, rng), run.events, catalogue)
        for _ in range(shuffles)
    ]
    return real, placebos


def false_flags(rows: pd.DataFrame, runs: int, t_bound: float = 3.5) -> str:
    """Return the line that tells the flags of cards that really differ from false ones: a card
    whose mean excess over the runs is more than ``t_bound`` standard errors of that mean from 0
    differs from its peers (for these bots); a run that flags any other card is a false positive.
    """
    by_card = rows.groupby("card")["excess"].agg(["mean", "std", "count"])
    t = by_card["mean"] / (by_card["std"] / np.sqrt(by_card["count"]))
    differ = set(by_card.index[t.abs() > t_bound])
    flags = rows[rows["flag"].fillna("") != ""]
    false_runs = flags[~flags["card"].isin(differ)]["seed"].nunique()
    low, high = wilson(false_runs, runs)
    return (
        f"{len(differ)} of {len(by_card)} tested cards differ from their peers (mean excess over "
        f"the runs beyond {t_bound} standard errors); runs flagging any other card (false "
        f"positives): {false_runs} of {runs} ({false_runs / runs:.1%}, 95% CI "
        f"{low:.1%}-{high:.1%}; nominal at most 5%)"
    )


def wald_p_values() -> None:
    """Test with the interval's standard error, as ``cards`` did before its p-values took the
    null's (for comparing the two on the same runs and shuffles)."""
    lift = cards._Lifts.lift

    def wald(self: cards._Lifts, x: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
        value, influence, _ = lift(self, x)
        return value, influence, influence

    cards._Lifts.lift = wald  # type: ignore[method-assign]


def shuffle_outcomes(seats: pd.DataFrame, rng: np.random.Generator) -> pd.DataFrame:
    """Return ``seats`` with each game's win shares (by turn order) given to another game of its
    configuration: the first player's edge stays, any card's is gone (a true null)."""
    out = seats.copy()
    for _, rows in seats.groupby("config_id"):
        wide = rows.pivot(index="game_id", columns="turn_order", values="win_share")
        moved = pd.DataFrame(
            wide.to_numpy()[rng.permutation(len(wide))], index=wide.index, columns=wide.columns
        ).stack()
        at = pd.MultiIndex.from_frame(rows[["game_id", "turn_order"]])
        out.loc[rows.index, "win_share"] = moved.reindex(at).to_numpy()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--bots", default="greedy")
    parser.add_argument("--boost", default="W12")
    parser.add_argument("--first-seed", type=int, default=1000)
    parser.add_argument("--jobs", type=int, default=None, help="worker processes (default: all)")
    parser.add_argument(
        "--no-boost", action="store_true", help="the real catalogue only (no power check)"
    )
    parser.add_argument(
        "--placebo",
        action="store_true",
        help="also count the flags of each real run with its outcomes shuffled between games",
    )
    parser.add_argument(
        "--shuffles",
        type=int,
        default=1,
        help="with --placebo: shuffles per run (each counted; shuffles of one run share its cards)",
    )
    parser.add_argument(
        "--runs",
        type=Path,
        help="keep the real runs in this folder and reuse the ones it holds (default: played in "
        "a temporary folder and deleted)",
    )
    parser.add_argument(
        "--wald",
        action="store_true",
        help="p-values from the interval's standard error (cards before the null's was used)",
    )
    parser.add_argument(
        "--save",
        type=Path,
        help="append every real run's card rows (with its seed) to this CSV file: a card's "
        "excess over the seeds tells a real difference (its mean) from a loose interval (its "
        "spread)",
    )
    args = parser.parse_args()
    if args.wald:
        wald_p_values()
    with_flag = found = placebo_flag = placebo_runs = 0
    names: Counter[str] = Counter()
    excesses: list[pd.DataFrame] = []  # every real run's tested cards: card, excess, flag, seed
    if args.save:
        args.save.unlink(missing_ok=True)
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        for k in range(args.seeds):
            seed = args.first_seed + k
            folder = (args.runs or Path(tmp)) / f"real-{seed}"
            shuffles = args.shuffles if args.placebo else 0
            real, placebos = strength(folder, args.bots, args.games, seed, {}, args.jobs, shuffles)
            flagged = cards.flagged(real)
            placebo_runs += len(placebos)
            placebo_flag += sum(bool(len(cards.flagged(p))) for p in placebos)
            if args.save:  # appended seed by seed: a long check stopped early keeps its rows
                real.assign(seed=seed).to_csv(args.save, mode="a", header=k == 0, index=False)
            with_flag += bool(len(flagged))
            names.update(flagged["card"])
            tested = real[real["excess"].notna()]
            excesses.append(tested[["card", "excess", "flag"]].assign(seed=seed))
            if len(flagged):  # as it happens: a long check stopped early still tells
                print(f"seed {seed}: flags {', '.join(flagged['card'])}", flush=True)
            if (k + 1) % 50 == 0 and k + 1 < args.seeds:
                print(
                    f"{k + 1} seeds: {with_flag} flag a card"
                    + (f" ({placebo_flag} shuffled)" if args.placebo else ""),
                    flush=True,
                )
            if args.runs is None:
                shutil.rmtree(folder)  # (hundreds of seeds: keep /tmp small)
            if args.no_boost:
                continue
            boosted, _ = strength(
                Path(tmp) / f"boost-{seed}",
                args.bots,
                args.games,
                seed,
                {
                    f"points.{args.boost}": [
                        int(real.set_index("card").loc[args.boost, "points"]) + 3
                    ]
                },
                args.jobs,
            )
            shutil.rmtree(Path(tmp) / f"boost-{seed}")
            top = boosted.iloc[0]
            found += bool(
                top["card"] == args.boost and top["flag"] == "strong" and top["lift_low"] > 0
            )
    n = args.seeds
    low, high = wilson(with_flag, n)
    plow, phigh = wilson(found, n)
    print(
        f"{n} seeds x {args.games} two-player games of {args.bots} "
        f"({time.perf_counter() - start:.0f} s)"
    )
    print(
        f"real catalogue: {with_flag} of {n} runs flag a card ({with_flag / n:.0%}, 95% CI "
        f"{low:.0%}-{high:.0%}; nominal at most 5%); cards flagged: "
        f"{', '.join(f'{c} x{k}' for c, k in names.most_common()) or 'none'}"
    )
    if n >= 10:
        print(false_flags(pd.concat(excesses, ignore_index=True), n))
    if args.placebo:
        low, high = wilson(placebo_flag, placebo_runs)
        print(
            f"outcomes shuffled between games: {placebo_flag} of {placebo_runs} shuffled runs "
            f"flag a card ({placebo_flag / placebo_runs:.1%}, 95% CI {low:.1%}-{high:.1%})"
        )
    if args.no_boost:
        return
    print(
        f"{args.boost} +3 points: found as the strongest, flagged, lift above 0 in {found} of {n} "
        f"runs ({found / n:.0%}, 95% CI {plow:.0%}-{phigh:.0%})"
    )


if __name__ == "__main__":
    main()
