"""Rules and record forms shared by the expansions (Ghost Piece, Ambassador Pack,
Phoenix, Line Clear, Endless White Deck)."""

from __future__ import annotations

import json
from importlib import resources

import pytest

from projectl_sim.catalogue import EXPANSION_FILES
from projectl_sim.engine.actions import describe, from_json, to_json
from projectl_sim.errors import RecordError, RulesError
from projectl_sim.expansions.ambassador_pack import Ambassador
from projectl_sim.expansions.ghost_piece import Ghost, LevelUp
from projectl_sim.loading import base_catalogue, catalogue_from_dict, load_catalogue
from projectl_sim.rules import Rules

BASE_FILE = "data/base_catalogue.json"
GHOST_FILE = EXPANSION_FILES["ghost_piece"]


def test_puzzle_set_expansions_join_the_catalogue() -> None:
    rules = Rules(expansions={"ghost_piece", "phoenix"})
    assert rules.catalogue.expansions == ("ghost_piece", "phoenix")
    assert len(rules.catalogue.of_colour("black")) == 20 + 12 + 7
    assert rules.catalogue is Rules(expansions={"phoenix", "ghost_piece"}).catalogue
    assert Rules(expansions={"finesse"}).catalogue is base_catalogue()


def test_a_catalogue_with_sets_must_match_the_expansions_played() -> None:
    cat = load_catalogue(expansions=["phoenix"])
    assert Rules(expansions={"phoenix"}, catalogue=cat).catalogue is cat
    with pytest.raises(RulesError, match="holds the expansion puzzle sets phoenix but the rules"):
        Rules(expansions={"ghost_piece"}, catalogue=cat)
    # a user's own catalogue (no expansion sets) that has a ghost piece needs the expansion
    data = json.loads(resources.files("projectl_sim").joinpath(BASE_FILE).read_text("utf-8"))
    ghosts = json.loads(resources.files("projectl_sim").joinpath(GHOST_FILE).read_text("utf-8"))
    data["pieces"]["pent_P"] = ghosts["pieces"]["pent_P"]
    own = catalogue_from_dict(data)
    with pytest.raises(RulesError, match="has ghost pieces: play it with the ghost_piece"):
        Rules(catalogue=own)


@pytest.mark.parametrize(
    ("kwargs", "why"),
    [
        ({"players": 5}, "5 players needs the Line Clear variant"),
        ({"players": 4, "variant": "line_clear"}, "line_clear variant is for 5 or 6 players"),
        ({"players": 6, "variant": "line_clear"}, "6 players need 24 black puzzles"),
        ({"ghost_action": "free"}, "ghost_action applies to the ghost_piece expansion only"),
        ({"line_clear_order": "white_first"}, "line_clear_order applies to the line_clear"),
        ({"expansions": {"ghost_piece"}, "ghost_placement": "x"}, "unknown ghost_placement 'x'"),
        ({"endless_white_deck": 1}, "endless_white_deck must be true or false"),
    ],
)
def test_bad_expansion_settings_are_named(kwargs: dict, why: str) -> None:
    with pytest.raises(RulesError, match=why):
        Rules(**kwargs)


def test_six_players_play_with_a_set_that_brings_black_puzzles() -> None:
    rules = Rules(players=6, variant="line_clear", expansions={"phoenix"})
    assert rules.black_deck_size == 24


def test_switches_are_written_only_with_their_expansion_or_variant() -> None:
    base = Rules().to_json()
    assert "ghost_action" not in base and "line_clear_order" not in base
    assert base["endless_white_deck"] is False
    ghost = Rules(expansions={"ghost_piece"}, ghost_action="free").to_json()
    assert ghost["ghost_action"] == "free" and ghost["ghost_placement"] == "piece"
    assert Rules.from_json(ghost) == Rules(expansions={"ghost_piece"}, ghost_action="free")
    lc = Rules(players=5, variant="line_clear").to_json()
    assert lc["line_clear_order"] == "interleave"


def test_new_actions_round_trip_through_the_record_form() -> None:
    cat = load_catalogue(expansions=["ghost_piece"])
    pent, tet, mono = (cat.piece_index(p) for p in ("pent_P", "tet_O", "mono"))
    card = cat.puzzle_index("W05")
    mask = next(m for m in cat.fits(cat.puzzles[card].recess)[mono])
    for action in (
        Ghost(pent, (tet, mono), ((card, mono, mask),)),
        Ghost(pent, (tet, mono)),
        LevelUp(tet, pent),
        LevelUp(None, None),
        Ambassador(((card, mono, mask),)),
    ):
        assert from_json(to_json(action, cat, 1), cat) == (1, action)
        assert describe(action, cat)
    assert describe(LevelUp(None, None), cat) == "level up declined"


@pytest.mark.parametrize(
    ("body", "why"),
    [
        ({"type": "ghost", "ghost": "pent_P", "take": []}, "ghost 'take' must be a non-empty"),
        ({"type": "level_up", "give": "mono"}, "needs both 'give' and 'get'"),
        ({"type": "ambassador"}, "missing field 'placements'"),
        ({"type": "ghost", "ghost": "pent_Q", "take": ["mono"]}, "pent_Q"),
    ],
)
def test_malformed_new_actions_are_record_errors(body: dict, why: str) -> None:
    cat = load_catalogue(expansions=["ghost_piece"])
    with pytest.raises(RecordError, match=why):
        from_json({"player": 0, **body}, cat)
