"""The ``deals`` subcommand: how much the deal decides in a run, and its most lopsided deals as
records for the viewer."""

from __future__ import annotations

import argparse
import shlex
from pathlib import Path
from typing import Any

from projectl_sim.cli.options import PROG
from projectl_sim.errors import UsageError

DEALS_HELP = """\
Per configuration and outcome (the first player's win; in a line-up of different bots, a bot's),
the share of the outcome's variance the deal explains (one-way random-effects ICC, 95% bootstrap
interval over the deals) and the seed metrics of 'Seeding for Success' (span, trimmed span,
outlier deals, entropy, decided deals). Play the run with --deal-replicates K so each deal is
played K times under every seating with the bots' seeds varied. Then the most lopsided deals:
their games are written as records (RUN/deals/game-ID.json, played again from their rows when
the run wrote none) that `projectl-sim view FILE` opens. Writes RUN/deals/deals.csv too."""


def cmd_deals(args: argparse.Namespace) -> int:
    """Print the deal-variance table and write the lopsided deals' records."""
    from projectl_sim.analysis.data import load_run
    from projectl_sim.analysis.deals import deal_lines, deal_variance, lopsided_deals
    from projectl_sim.board.study import refuse_a_study
    from projectl_sim.engine.record import write_record
    from projectl_sim.sim.runner import record_from_run

    if args.top < 1:
        raise UsageError(f"--top {args.top}: list at least one deal")
    if args.write < 0:
        raise UsageError(f"--write {args.write}: give 0 (no records) or more deals")
    refuse_a_study(args.run, "deals")
    run = load_run(args.run)
    table = deal_variance(run.seats, run.games)
    lines = deal_lines(table)
    if not lines:
        raise UsageError(
            f"{args.run}: no deal was played more than once, so nothing tells the deal from the "
            "rest: play it with --deal-replicates K (or a line-up of different bots)"
        )
    out = Path(args.out) if args.out else Path(args.run) / "deals"
    try:
        out.mkdir(parents=True, exist_ok=True)
        table.to_csv(out / "deals.csv", index=False)
    except OSError as exc:
        raise UsageError(f"cannot write to {out}: {exc.strerror}") from None
    print("\n".join(lines))
    lop = lopsided_deals(run.seats, run.games, top=args.top)
    print("\nmost lopsided deals (smallest binomial p against the configuration's rate):")
    written: dict[int, Path] = {}
    for (config_id, outcome), group in lop.groupby(["config_id", "outcome"], sort=True):
        print(f"  configuration {config_id}, {outcome}:")
        for rank, r in enumerate(group.to_dict("records")):
            ids = [int(g) for g in str(r["game_ids"]).split()]
            print(
                f"    deal {r['deal']} (seed {r['seed']}): {100 * r['rate']:.0f}% in its "
                f"{r['games']} games against {100 * r['overall']:.0f}% overall, p "
                f"{r['p_value']:.3g}; games {' '.join(map(str, ids))}"
            )
            if rank >= args.write:
                continue
            for game_id in ids:
                if game_id in written:
                    continue
                record, _, _ = record_from_run(args.run, game_id)
                path = out / f"game-{game_id:08d}.json"
                write_record(record, path)
                written[game_id] = path
    if written:
        first = next(iter(written.values()))
        print(
            f"\n{len(written)} records written to {out}; open one: {PROG} view "
            f"{shlex.quote(str(first))}"
        )
    return 0


def register(subparsers: Any) -> None:
    """Add ``deals`` to the command line's subparsers."""
    de = subparsers.add_parser(
        "deals",
        help="how much the deal decides, and the most lopsided deals",
        description=DEALS_HELP,
    )
    de.add_argument("run", metavar="RUN", help="run folder (best played with --deal-replicates)")
    de.add_argument(
        "--top", type=int, default=3, metavar="N", help="lopsided deals listed per row (default 3)"
    )
    de.add_argument(
        "--write",
        type=int,
        default=1,
        metavar="K",
        help="write the records of the K most lopsided deals per row (default 1; 0: none)",
    )
    de.add_argument("--out", metavar="DIR", help="where the records go (default RUN/deals)")
    de.set_defaults(func=cmd_deals)
