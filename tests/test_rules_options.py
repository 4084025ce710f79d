"""How ``Rules`` resolves the options the expansions and variants declare (``projectl_sim.rules``).

Every option declared when the rules are built reads as a plain attribute: its value when its
expansion or variant is played, its default when not (``rules.insert_cost`` of a game without
Finesse, which bots read in their hot loops). A class registered after the rules were built is
resolved on its first read. None of it is a field: comparing, hashing, pickling and the record
form see the options played only.
"""

from __future__ import annotations

import pickle
from collections.abc import Iterator
from typing import ClassVar

import pytest

import projectl_sim.rules as rules_module
from projectl_sim import Expansion, Rules
from projectl_sim.options import Option
from projectl_sim.registry import declared_options, register_expansion, unregister_expansion


class _Tithe(Expansion):
    """A house rule with an option and data of its own (nothing of it is played here)."""

    name: ClassVar[str] = "tithe"
    data_name: ClassVar[str] = "tithe_table"
    options: ClassVar[tuple[Option, ...]] = (
        Option("tithe_pieces", 2, "pieces a tithe takes", low=0, high=3),
    )


@pytest.fixture
def tithe() -> Iterator[None]:
    register_expansion(_Tithe)
    try:
        yield
    finally:
        unregister_expansion(_Tithe.name)


def test_every_declared_option_reads_as_its_value_or_its_default() -> None:
    played = Rules(players=2, expansions={"finesse", "ghost_piece"}, insert_cost=3)
    base = Rules(players=2)
    for name, option in declared_options().items():
        assert getattr(base, name) == option.default, name
        if name in played.options:
            assert getattr(played, name) == played.options[name], name
    assert played.insert_cost == 3 and base.insert_cost == 2
    assert base.finesse_tiles is None  # an expansion's data: None, its shipped data


def test_a_read_does_not_consult_the_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    rules = Rules(players=2, expansions={"ghost_piece"}, ghost_action="free")

    def refuse() -> None:
        raise AssertionError("the registry was asked again")

    monkeypatch.setattr(rules_module, "declared_options", refuse)
    monkeypatch.setattr(rules_module, "data_names", refuse)
    assert (rules.insert_cost, rules.ghost_action, rules.finesse_tiles) == (2, "free", None)


def test_a_class_registered_after_the_rules_is_resolved_on_its_first_read(tithe: None) -> None:
    unregister_expansion(_Tithe.name)
    rules = Rules(players=2)
    with pytest.raises(AttributeError, match="tithe_pieces"):
        _ = rules.tithe_pieces
    register_expansion(_Tithe)
    assert "tithe_pieces" in declared_options()  # the registry's cache saw the new class
    assert rules.tithe_pieces == 2 and rules.tithe_table is None
    assert Rules(players=2, expansions={"tithe"}, tithe_pieces=0).tithe_pieces == 0


def test_a_forgotten_class_leaves_the_declarations() -> None:
    register_expansion(_Tithe)
    assert "tithe_pieces" in declared_options()
    unregister_expansion(_Tithe.name)
    assert "tithe_pieces" not in declared_options()
    with pytest.raises(AttributeError, match="tithe_pieces"):
        _ = Rules(players=2).tithe_pieces


def test_the_defaults_held_are_no_part_of_equality_hash_pickle_or_record(tithe: None) -> None:
    unregister_expansion(_Tithe.name)
    before = Rules(players=2, expansions={"ghost_piece"})
    register_expansion(_Tithe)
    after = Rules(players=2, expansions={"ghost_piece"})  # holds tithe_pieces, before does not
    assert "tithe_pieces" in vars(after) and "tithe_pieces" not in vars(before)
    assert before == after and hash(before) == hash(after)
    assert before.to_json() == after.to_json() and "tithe_pieces" not in after.to_json()
    assert "tithe_pieces" not in after.options and after.options == before.options
    again = pickle.loads(pickle.dumps(after))
    assert again == after and again.tithe_pieces == 2 and again.insert_cost == 2


def test_an_unknown_name_is_still_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="insert_cots"):
        _ = Rules(players=2).insert_cots
