"""The ``play``, ``replay`` and ``bots`` subcommands: one game, one record, the bots."""

from __future__ import annotations

import argparse
import json
import os
import secrets
import sys
import time
from pathlib import Path
from typing import Any

from bots.params import Range
from projectl_sim.cli.numbers import Number
from projectl_sim.cli.options import (
    PROG,
    catalogue_of,
    finesse_options,
    game_options,
    one_expansion_set,
    parse_switches,
    refuse_empty,
)
from projectl_sim.errors import UsageError
from projectl_sim.expansions.finesse import credits
from projectl_sim.registry import PluginError, is_class_spec, load_variant, variant_names
from projectl_sim.rules import EXPANSIONS, Rules, parse_expansions, run_switches
from projectl_sim.variants.solo import SoloState


def cmd_play(args: argparse.Namespace) -> int:
    from bots import make_bot
    from projectl_sim.cli.human import human_seats
    from projectl_sim.engine.record import write_record
    from projectl_sim.engine.render import render
    from projectl_sim.engine.result_check import rules_print
    from projectl_sim.sim.play import BotError, GameOutcome, play_game
    from projectl_sim.sim.task import check_played

    check_play_values(args)
    if args.web and args.from_run is not None:
        raise UsageError("--web plays a new game with a person in it: it cannot replay --from RUN")
    replayed: GameOutcome | None = None  # a run's game, played again under its limits
    replayed_record: dict[str, Any] = {}
    if args.from_run is not None:
        # one game of a run, again, from its row: the run's rules, seats and seed, played in a
        # worker process under the run's time limits (a game that hung there stops here too)
        from projectl_sim.engine.record import replay
        from projectl_sim.sim.runner import game_from_run, play_from_run

        if args.game is None:
            raise UsageError("--from needs --game ID (a game_id of the run's tables)")
        given = [flag for flag, dest in _GAME_FLAGS if _given(getattr(args, dest, None))]
        if given:
            raise UsageError(
                f"--from plays game {args.game} of {args.from_run} with the run's own rules, bots "
                f"and seed: {', '.join(given)} cannot change them (play a new game without --from)"
            )
        game_id(args.game, args.from_run)
        rules, bots, seed = game_from_run(args.from_run, args.game)
        players = rules.players
        record, _, error = play_from_run(args.from_run, args.game)
        if error is not None:
            if args.record:
                write_record(record, args.record)
                print(f"partial record written to {args.record}", file=sys.stderr)
            raise BotError(error, -1)
        state = replay(record, rules.catalogue, rules.expansion_data, on_step=_check_replayed).state
        replayed = GameOutcome(state, None, seed)
        replayed_record = record
    else:
        if args.game is not None:
            raise UsageError("--game goes with --from RUN (a game of a run's tables)")
        default = "human,random" if args.web else "random,random"
        from projectl_sim.sim.spec import split_lineup

        specs = split_lineup(args.bots or default)
        players = args.players or len(specs)
        if len(specs) < players:
            specs = [specs[i % len(specs)] for i in range(players)]
        if len(specs) != players:
            seats = f"{players} player{'s' if players != 1 else ''}"
            raise UsageError(f"{seats} but {len(specs)} bots given (--bots, one per seat)")
        bots = [make_bot(s) for s in specs]
        one_expansion_set(args.expansions)
        try:
            wanted = args.variant or "standard"
            name = load_variant(wanted) if is_class_spec(wanted) else wanted
            variant = {"variant": name} | (
                {"difficulty": args.difficulty} if args.difficulty else {}
            )
            cat = catalogue_of(args, parse_expansions(args.expansions)[0])
            rules = Rules(
                players=players,
                catalogue=cat,
                **variant,
                **finesse_options(args, cat),
                **parse_switches(args.rule),
            )
        except TypeError as exc:
            raise UsageError(str(exc)) from None
        from projectl_sim.sim.spec import check_decks

        check_decks(rules, args.catalogue, least=True)  # a game it cannot deal (run: smaller)
        seed = args.seed if args.seed is not None else secrets.randbelow(2**31)
    humans = human_seats(bots)
    if args.web and not humans:
        raise UsageError(
            "--web plays a new game with a person in it: name a human seat in --bots "
            "(e.g. --bots human,greedy)"
        )
    if humans and not args.record:
        args.record = str(default_record())
    try:
        if replayed is not None:
            outcome = replayed
        elif args.web:
            outcome = _play_in_browser(rules, bots, seed, humans, args)
            if isinstance(outcome, int):
                return outcome  # left before the end: the record so far is written
        elif humans:
            outcome = _play_with_people(rules, bots, seed, humans, args.record)
            if isinstance(outcome, int):
                return outcome  # a person left: the record so far is written
        else:
            expected = rules_print(rules)
            outcome = play_game(rules, bots, seed, timed=True, on_step=_check)
            check_played(outcome, rules, expected)  # a bot that bent the game: exit 1, one line
    except (BotError, PluginError) as exc:
        partial = getattr(exc, "outcome", None)
        if args.record and partial is not None and partial.record is not None:
            write_record(partial.record_json(), args.record)
            print(f"partial record written to {args.record}", file=sys.stderr)
        raise
    state = outcome.state
    if args.record:
        write_record(
            replayed_record if replayed is not None else outcome.record_json(), args.record
        )
    if args.json:
        from projectl_sim.engine.record import result_of

        print(json.dumps({"seed": seed, "seats": [repr(b) for b in bots]} | result_of(state)))
    else:
        scores = state.final_scores()
        cat = rules.catalogue
        played = _expansions_words(rules)
        if isinstance(state, SoloState):
            print(f"seed {seed}, solo ({rules.difficulty}) against the mastermind, {played}")
        else:
            print(f"seed {seed}, {players} players, {played}, first player {state.first_player}")
        for p in range(players):
            pile = " ".join(cat.puzzles[c].id for c in state.piles[p])
            print(
                f"  seat {p} {bot_label(bots[p]):<10} score {scores[p]:>3}  "
                f"completed {len(state.piles[p]):>2}  unfinished {len(state.slots[p])}  [{pile}]"
            )
        if isinstance(state, SoloState):
            pile = " ".join(cat.puzzles[c].id for c in state.solo.opponent_pile)
            print(
                f"  opponent ({rules.difficulty}) score {state.opponent_score():>3}  "
                f"completed {len(state.solo.opponent_pile):>2}  [{pile}]"
            )
        fin = credits(state)
        if fin is not None:
            held = ", ".join(f"seat {p} {fin.total(p)}" for p in range(players))
            print(f"  credits: {held}; bank {fin.bank}; inserts {sum(fin.inserts)}")
        ended = "by the rules" if not state.truncated else f"truncated ({state.end_reason})"
        print(
            f"winners: {', '.join(f'seat {w}' for w in state.winners()) or 'the opponent'}; "
            f"{state.round} rounds, {state.turn - 1} turns, ended {ended}"
        )
        if args.record:
            print(f"record written to {args.record}")
            if humans:
                print(f"watch it again: {PROG} view {args.record}")
    if args.show:
        print(render(state))
    if not args.record and not args.json:  # last, after the board too (also in one pipe)
        sys.stdout.flush()
        print("no record written: --record FILE writes one to replay", file=sys.stderr)
    return 0


# ``play``'s numbers, checked before a game is set up (a seed numpy cannot take, a player count
# no game seats: 99999999999999999999 would make as many seats first); both are optional
_SEED = Number("--seed", int, None, Range(0), "game seed", metavar="S")
_PLAYERS = Number("--players", int, None, Range(1, 6), "player count")
_PORT = Number("--port", int, None, Range(0, 65535), "port (0: any free one)", metavar="N")


def check_play_values(args: argparse.Namespace) -> None:
    """Refuse a bad value of ``play``'s flags (one line naming the flag) before any work."""
    refuse_empty(args, "--bots", "--variant", "--difficulty", "--host")
    for number in (_SEED, _PLAYERS, _PORT):
        if getattr(args, number.dest) is not None:
            number.parse(getattr(args, number.dest))
    web_only = [f for f, given in _WEB_FLAGS if _given(getattr(args, given))]
    if web_only and not args.web:
        raise UsageError(f"{web_only[0]} goes with --web (the page served to play in a browser)")
    if args.host is not None:
        from projectl_sim.web import loopback_host

        loopback_host(args.host)


# the flags of ``play --web`` alone
_WEB_FLAGS = (("--port", "port"), ("--host", "host"), ("--no-browser", "no_browser"))
WEB_PORT = 8765  # --web's port when none is given

# the flags that choose a new game's rules, seats and seed: ``play --from`` replays a run's game
_GAME_FLAGS = (
    ("--seed", "seed"),
    ("--bots", "bots"),
    ("--players", "players"),
    ("--variant", "variant"),
    ("--difficulty", "difficulty"),
    ("--expansions", "expansions"),
    ("--catalogue", "catalogue"),
    ("--tiles", "tiles"),
    ("--ambassador", "ambassador"),
    ("--rule", "rule"),
)
# the largest game id a run's tables can hold (an int64 column)
_MAX_GAME_ID = 2**63 - 1


def _given(value: Any) -> bool:
    """Return whether a flag's value was given (argparse's defaults: None, False, [])."""
    return value is not None and value is not False and value != []


def game_id(value: int, run: str) -> int:
    """Return ``--game ID`` checked to be an id a run's tables can hold (one line otherwise)."""
    if not 0 <= value <= _MAX_GAME_ID:
        raise UsageError(f"--game {value}: {run} has no such game (its game ids count from 0)")
    return value


def _check(state: Any, seat: int, action: Any) -> None:
    """Check the game's invariants after each action ``play`` applies (a user's expansion or
    variant that breaks one is named: ``sim.play.check_step``)."""
    from projectl_sim.sim.play import check_step

    check_step(state, seat)


def _check_replayed(state: Any, seat: int, action: Any) -> None:
    if action is not None:
        _check(state, seat, action)


def bot_label(bot: Any) -> str:
    """Return how ``play`` names a bot: its spec, a user's class by the name it declares
    (``placer:eagerness=0.5``, as the analysis does; ``--json`` keeps the spec)."""
    from bots import declared_name, split_spec

    spec = repr(bot)
    source = split_spec(spec)[0]
    name = declared_name(source) if ":" in source and spec.startswith(source) else None
    return name + spec[len(source) :] if name else spec


def _expansions_words(rules: Rules) -> str:
    """Return the expansions a game plays, as ``play`` names them (``expansions ghost_piece+
    finesse``; ``no expansion``), with the provisional puzzle sets it deals from."""
    names = [n for n in EXPANSIONS if n in rules.expansions]
    names += sorted(set(rules.expansions) - set(names))  # a user's own
    if not names:
        return "no expansion"
    provisional = list(rules.catalogue.provisional_sets)
    also = f" (provisional puzzles: {'+'.join(provisional)})" if provisional else ""
    return f"expansions {'+'.join(names)}{also}"


def default_record() -> Path:
    """Return where a game with a person in it is recorded without ``--record``: named by the
    time alone (the seed, which deals the decks again, is in the record, never in a name the
    person's page can show while the game runs)."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    return Path("results") / "games" / f"game-{stamp}.json"


def _play_with_people(
    rules: Rules, bots: list[Any], seed: int, humans: list[int], path: str
) -> Any:
    """Play a game with people at the terminal; return its outcome, or the exit status when a
    person left (1; 130 for Ctrl-C), the record so far written to ``path``."""
    from projectl_sim.cli.human import SeatLeft, Terminal
    from projectl_sim.engine import deal, new_game
    from projectl_sim.engine.record import write_record
    from projectl_sim.sim.play import BotError, TakeBacks, game_seeds, play_game

    names = [repr(b) for b in bots]
    backs = TakeBacks(humans)
    term = Terminal(names, humans, backs)
    for seat in humans:
        bots[seat].terminal = term
    term.start(new_game(rules, setup=deal(rules, game_seeds(seed, rules.players)[0])))

    def seated(bot: Any) -> Any:
        # Ctrl-C while a bot thinks leaves the game as cleanly as at a prompt
        def decide(view: Any, rng: Any) -> Any:
            try:
                return bot(view, rng)
            except KeyboardInterrupt:
                term.left = "interrupted"
                raise SeatLeft(term.left) from None

        return decide

    seats = [bot if seat in humans else seated(bot) for seat, bot in enumerate(bots)]
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    who = ", ".join(f"seat {s}" for s in humans)
    others = ", ".join(f"seat {s} {names[s]}" for s in range(len(bots)) if s not in humans)
    # not the seed: it deals the decks again, which the person must not see (the record has it)
    print(f"you play {who}" + (f" against {others}" if others else ""))
    print(f"type ? for help; the record will be written to {path}")
    try:
        return play_game(
            rules,
            seats,
            seed,
            seat_names=names,
            timed=True,
            take_backs=backs,
            on_step=lambda state, seat, action: (
                _check(state, seat, action),
                term.observe(state, seat, action),
            ),
        )
    except BotError as exc:
        if not term.left:
            raise
        partial = exc.outcome  # type: ignore[attr-defined]
        write_record(partial.record_json(), path)
        n = len(partial.record.moves)
        print(
            f"{PROG}: {term.left}: the game so far ({n} actions) is in {path} "
            f"({PROG} view {path} to watch it)",
            file=sys.stderr,
        )
        return 130 if term.left == "interrupted" else 1


def _play_in_browser(
    rules: Rules, bots: list[Any], seed: int, humans: list[int], args: argparse.Namespace
) -> Any:
    """Serve the game on a loopback page (``projectl_sim.web``); return its outcome once over,
    or the exit status when the person left before the end (1; 130 for Ctrl-C)."""
    import webbrowser

    from projectl_sim.sim.play import GameOutcome
    from projectl_sim.web import SeatServer, Session, loopback_host

    port = WEB_PORT if args.port is None else args.port
    host = loopback_host("127.0.0.1" if args.host is None else args.host)
    server = SeatServer(host, port)  # a port in use: one line, no game dealt
    names = [repr(b) for b in bots]
    path = args.record
    with server:
        server.session = session = Session(rules, bots, seed, humans, path, names)
        who = ", ".join(f"seat {s}" for s in humans)
        others = ", ".join(f"seat {s} {names[s]}" for s in range(len(bots)) if s not in humans)
        print(f"you play {who}" + (f" against {others}" if others else ""))
        print(f"open {server.url} in a browser (this machine only); the record goes to {path}")
        print("the page's leave button or Ctrl-C stops the server", flush=True)
        # without a display, Python's webbrowser would start a text browser in this terminal
        desktop = sys.platform != "linux" or any(
            os.environ.get(v) for v in ("DISPLAY", "WAYLAND_DISPLAY")
        )
        if not args.no_browser and desktop:
            webbrowser.open(server.url)
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            if not session.over:
                print(f"{PROG}: interrupted: the game so far is in {path}", file=sys.stderr)
                return 130
        if not session.over:
            n = len(session.writer.moves)
            print(
                f"{PROG}: left the game: the game so far ({n} actions) is in {path} "
                f"({PROG} view {path} to watch it)",
                file=sys.stderr,
            )
            return 1
        return GameOutcome(session.state, session.writer, seed)


def cmd_replay(args: argparse.Namespace) -> int:
    from projectl_sim.engine.record import read_record, replay, summary_json
    from projectl_sim.engine.render import render

    refuse_empty(args, "--expansions")
    record = read_record(args.file)
    played = record.get("rules", {}).get("expansions") if isinstance(record, dict) else None
    played = played if isinstance(played, list) else []
    cat = catalogue_of(args, [n for n in played if isinstance(n, str)])
    tiles = finesse_options(args, cat).get("finesse_tiles")
    rep = replay(record, cat, finesse_tiles=tiles)
    for w in rep.warnings:
        print(f"{PROG}: warning: {w}", file=sys.stderr)
    state = rep.state
    if args.json:
        print(json.dumps(summary_json(rep)))
    else:
        over = state.is_over
        scores = state.final_scores() if over else state.scores
        status = "game over" if over else f"in progress ({state.phase}, round {state.round})"
        print(f"valid: {rep.actions} actions, {status}")
        print(
            "scores: "
            + ", ".join(f"seat {p} {s}" for p, s in enumerate(scores))
            + (f", opponent {state.opponent_score()}" if isinstance(state, SoloState) else "")
        )
        fin = credits(state)
        if fin is not None:
            print(
                "credits (active+inactive): "
                + ", ".join(f"seat {p} {fin.active[p]}+{fin.inactive[p]}" for p in range(state.n))
                + f", bank {fin.bank}"
            )
        if over:
            print(f"winners: {', '.join(f'seat {w}' for w in state.winners()) or 'the opponent'}")
    if args.show:
        print(render(state))
    return 0


def cmd_bots(args: argparse.Namespace) -> int:
    import projectl_sim.cli.human  # noqa: F401  (registers the human seat)
    from bots import describe_bots

    print("\n".join(describe_bots(args.names)))
    return 0


def register(sub: Any) -> None:
    """Add ``play``, ``replay`` and ``bots`` to the command line's subparsers."""
    play = sub.add_parser("play", help="play one seeded game and print its summary")
    play.add_argument("--seed", type=int, help="game seed (chosen and printed if absent)")
    play.add_argument(
        "--bots", help="comma list of bot specs, one per seat (default random,random)"
    )
    play.add_argument("--players", type=int, help="player count (default: number of bots)")
    play.add_argument(
        "--record", metavar="FILE", help="write the game record here (none without it)"
    )
    play.add_argument("--show", action="store_true", help="draw the final state as text")
    play.add_argument("--json", action="store_true", help="print the result as JSON")
    play.add_argument(
        "--variant",
        help=f"{', '.join(variant_names())} (default standard; solo is 1 player, line_clear 5-6), "
        "or your own: FILE.py:CLASS, MODULE:CLASS",
    )
    play.add_argument(
        "--from",
        dest="from_run",
        metavar="RUN",
        help="replay one game of a run folder (with --game)",
    )
    play.add_argument("--game", type=int, metavar="ID", help="with --from: the game_id to play")
    play.add_argument("--difficulty", help="solo: normal (default), hard or unbeatable")
    game_options(
        play,
        expansions=f"the expansion set to play: names joined with + ({', '.join(EXPANSIONS)}; "
        "ghost+finesse plays both), all or none (default); NAME=FILE plays your own puzzle file "
        "for a set",
    )
    play.add_argument(
        "--ambassador", action="store_true", help="finesse: deal from the Ambassador Pack tiles too"
    )
    play.add_argument(
        "--rule",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help=f"set a rules switch or parameter ({', '.join(run_switches())}, points.ID, reward.ID)",
    )
    web = play.add_argument_group("in the browser")
    web.add_argument(
        "--web",
        action="store_true",
        help="play in a browser page served on this machine (default --bots human,random)",
    )
    web.add_argument(
        "--port", type=int, help=f"--web: the page's port (default {WEB_PORT}; 0: any free one)"
    )
    web.add_argument("--host", help="--web: a loopback address (default 127.0.0.1)")
    web.add_argument(
        "--no-browser", action="store_true", help="--web: print the address, open no browser"
    )
    play.set_defaults(func=cmd_play)

    rep = sub.add_parser("replay", help="replay and validate a game record")
    rep.add_argument("file", help="record JSON file")
    rep.add_argument("--json", action="store_true", help="print the final state as JSON")
    rep.add_argument("--show", action="store_true", help="draw the final state as text")
    game_options(
        rep,
        expansions="replay with your own puzzle file for an expansion set the record plays",
        expansions_metavar="NAME=FILE",
    )
    rep.set_defaults(func=cmd_replay)

    bots = sub.add_parser("bots", help="list every bot with its parameters")
    bots.add_argument(
        "names",
        nargs="*",
        metavar="BOT",
        help="only these bots (greedy, mcts, FILE.py:CLASS, ...; default: every one)",
    )
    bots.set_defaults(func=cmd_bots)
