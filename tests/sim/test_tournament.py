"""Round robins: every N-subset of the bots under every rotation, on deals they share."""

from __future__ import annotations

import itertools
from collections import defaultdict
from pathlib import Path

import pytest

import bots
from bots.random_bot import RandomBot
from projectl_sim.cli import main
from projectl_sim.errors import UsageError
from projectl_sim.sim import runner, tables
from projectl_sim.sim.spec import (
    PER_CONFIGURATION,
    RunSpec,
    merge_sources,
    plan,
    run_id_of,
    spec_list,
)

BOTS = ["random", "greedy", "greedy:preset=rush_black", "other"]


class OtherBot(RandomBot):
    name = "other"


@pytest.fixture(autouse=True)
def other_bot(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(bots.REGISTRY, "other", OtherBot)  # the runner hands it to its workers


def round_robin(**settings: object) -> RunSpec:
    return RunSpec.from_mapping({"round_robin": ",".join(BOTS), "games": 4, "seed": 3} | settings)


@pytest.mark.parametrize("players", [[2], [3], [4], [2, 3, 4]])
def test_the_configurations_are_exactly_the_subsets_with_every_rotation(
    players: list[int],
) -> None:
    configs, tasks = plan(round_robin(players=players), 3)
    expected = [s for n in players for s in itertools.combinations(BOTS, n)]
    assert [c.lineup for c in configs] == expected
    for c in configs:
        assert c.rotations == tuple(range(c.players))  # distinct bots: every seat shift
    seatings = defaultdict(set)
    for t in tasks:
        seatings[t.config_id, t.deal].add(configs[t.config_id].seated(t.rotation))
    for (config_id, _), seen in seatings.items():
        lineup = configs[config_id].lineup
        # each bot plays each seat once per deal
        assert len(seen) == len(lineup)
        for seat in range(len(lineup)):
            assert {s[seat] for s in seen} == set(lineup)


def test_players_default_to_pairs_and_every_subset_of_a_setting_shares_the_deals() -> None:
    spec = round_robin(expansions=["none", "finesse"])
    configs, tasks = plan(spec, 3)
    assert {c.players for c in configs} == {2}
    assert len(configs) == 6 * 2
    seeds = defaultdict(set)
    for t in tasks:
        c = configs[t.config_id]
        seeds[c.expansions, t.deal].add(t.seed)
    # one seed per deal for all six pairs of a setting, and both settings on the same deals
    assert all(len(s) == 1 for s in seeds.values())
    assert seeds[(), 0] == seeds[("finesse",), 0] and seeds[(), 0] != seeds[(), 1]
    # the older scheme: a round robin's settings deal differently
    configs, tasks = plan(spec, 3, seed_scheme=PER_CONFIGURATION)
    old = {(configs[t.config_id].expansions, t.deal): t.seed for t in tasks}
    assert old[(), 0] != old[("finesse",), 0]
    # a run of line-ups shares its deals too; under the older scheme, a child per configuration
    lineups = RunSpec.from_mapping({"bots": ["random,greedy", "random,other"], "seed": 3})
    configs, tasks = plan(lineups, 3)
    assert len({t.seed for t in tasks if t.deal == 0}) == 1
    configs, tasks = plan(lineups, 3, seed_scheme=PER_CONFIGURATION)
    assert len({t.seed for t in tasks if t.deal == 0}) == 2
    assert all(c.deals_of is None for c in configs)


def test_a_round_robin_reads_back_from_its_manifest_form() -> None:
    spec = round_robin(players=[2, 3])
    again = RunSpec.from_mapping(spec.to_json())
    assert again == spec and run_id_of(again, 3) == run_id_of(spec, 3)
    assert "bots" not in spec.to_json()
    configs, tasks = plan(spec, 3)
    configs2, tasks2 = plan(again, 3)
    assert configs == configs2 and list(tasks) == list(tasks2)


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("rr.toml", 'round_robin = ["random", "greedy", "other"]\nplayers = [2, 3]\ngames = 4\n'),
        ("rr.yaml", "round_robin: [random, greedy, other]\nplayers: [2, 3]\ngames: 4\n"),
    ],
)
def test_a_config_file_round_robin_is_the_flags_one(tmp_path: Path, name: str, text: str) -> None:
    from projectl_sim.sim.spec import read_config_file

    path = tmp_path / name
    path.write_text(text)
    from_file = RunSpec.from_mapping(merge_sources(None, None, read_config_file(path), {}))
    flags = {"round_robin": "random,greedy,other", "players": "2,3", "games": 4}
    from_flags = RunSpec.from_mapping(merge_sources(None, None, None, flags))
    assert from_file == from_flags
    configs, _ = plan(from_file, 3)
    assert sorted(",".join(c.lineup) for c in configs) == sorted(
        ["random,greedy", "random,other", "greedy,other", "random,greedy,other"]
    )


def test_flags_replace_a_presets_line_ups_with_a_round_robin() -> None:
    merged = merge_sources({"bots": ["greedy,random"], "games": 5}, {"round_robin": "a,b"})
    assert merged == {"games": 5, "round_robin": "a,b"}
    merged = merge_sources({"round_robin": "a,b"}, {"bots": ["greedy"]})
    assert merged == {"bots": ["greedy"]}


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"players": [5]}, "a round robin of 4 bots cannot fill 5 seats"),
        ({"players": [1], "variant": "solo"}, "a round robin plays 2 or more players"),
        ({"round_robin": "random,greedy,random"}, "name the same bot (random) twice"),
        ({"round_robin": "greedy,greedy:risk=1.0"}, "name the same bot (greedy) twice"),
        ({"round_robin": "greedy"}, "give two or more different bots"),
        ({"bots": ["greedy,random"]}, "not both"),
        ({"round_robin": "greedy,gready"}, "unknown bot 'gready' (did you mean 'greedy'?"),
        ({"round_robin": 3}, "round_robin: a comma list of bot specs, got 3"),
        ({"round_robin": ["greedy", 3]}, "round_robin: a comma list of bot specs"),
    ],
)
def test_a_bad_round_robin_is_one_line(settings: dict[str, object], message: str) -> None:
    with pytest.raises(UsageError) as caught:
        plan(round_robin(**settings), 3)
    assert message in str(caught.value)


def test_a_line_up_too_big_for_its_table_suggests_a_round_robin(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["run", "--bots", "greedy,random,mcts,other", "--players", "2"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "has 4 bots for 2 players; to play every pair of them: --round-robin " in err
    assert "greedy,random,mcts,other --players 2" in err


def test_a_round_robin_run_ends_with_ratings_and_head_to_head(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "rr"
    argv = ["run", "--round-robin", "greedy,random,other", "--games", "6", "--seed", "8"]
    assert main([*argv, "--out", str(out), "--jobs", "1"]) == 0
    captured = capsys.readouterr()
    text = captured.out
    assert text.startswith("round robin of 3 bots: every pair at 2 players")
    # the strength sections lead, the seat advantage follows
    ratings = text.index("== Ratings")
    assert ratings < text.index("== Head to head") < text.index("== Seat advantage")
    # greedy against two random bots: a matrix with every pair, the strongest first
    matrix = text[text.index("2 players: the row bot's match score") :].splitlines()
    assert matrix[1].split() == ["1", "2", "3"]
    assert matrix[2].split()[:2] == ["1", "greedy"] and matrix[2].split()[2] == "-"
    games = tables.read_table(out, "games").to_pandas()
    assert sorted(games["lineup"].unique()) == ["greedy,other", "greedy,random", "random,other"]
    assert len(games) == 3 * 6
    # a plain resume of a finished round robin changes nothing
    again = runner.run(None, out, resume=True, options=runner.RunOptions(jobs=1, quiet=True))
    assert again.complete and again.played == 0
    assert "next:" in captured.err and f"projectl-sim report {out}" in captured.err


def test_a_spec_list_reads_a_comma_list_or_a_list_of_them_in_order() -> None:
    assert spec_list("greedy:risk=1.0,wait=2, random", "bots") == [
        "greedy:risk=1.0,wait=2",
        "random",
    ]
    assert spec_list(["value,greedy", "random"], "bots") == ["value", "greedy", "random"]
    assert spec_list("", "bots") == []
    with pytest.raises(UsageError, match=r"^tiers: a comma list of bot specs, got \{'a': 1\}$"):
        spec_list({"a": 1}, "tiers")
