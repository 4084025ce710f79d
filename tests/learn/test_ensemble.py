"""The mean of value models as one model file (``projectl_sim.learn.ensemble``)."""

from __future__ import annotations

from itertools import pairwise
from pathlib import Path

import numpy as np
import pytest

from bots.features import FEATURE_NAMES
from bots.value_model import load_model, write_model
from projectl_sim.errors import UsageError
from projectl_sim.learn.ensemble import main, write_ensemble

N = len(FEATURE_NAMES)


def member(path: Path, hidden: tuple[int, ...], seed: int) -> Path:
    """Write a random model of ``hidden`` ReLU layers with its own standardisation."""
    rng = np.random.default_rng(seed)
    sizes = (N, *hidden, 2)
    layers = [
        (rng.normal(0, 0.3, (a, b)).tolist(), rng.normal(0, 0.1, b).tolist())
        for a, b in pairwise(sizes)
    ]
    mean = rng.normal(0, 1, N).tolist()
    scale = rng.uniform(0.5, 2.0, N).tolist()
    write_model(path, mean, scale, layers, 10.0, {"seed": seed})
    return path


def test_the_ensemble_gives_the_mean_of_its_members(tmp_path: Path) -> None:
    paths = [member(tmp_path / f"m{k}.json", (3 + k,), k) for k in range(3)]
    out = tmp_path / "ens.json"
    write_ensemble(out, paths)
    ens = load_model(str(out))
    assert len(ens.arrays[0][1]) == 3 + 4 + 5  # every member's hidden units side by side
    members = [load_model(str(p)) for p in paths]
    rng = np.random.default_rng(9)
    for _ in range(20):
        x = rng.normal(0, 2, N).tolist()
        want = np.mean([m.net.evaluate(x) for m in members], axis=0)
        got = ens.net.evaluate(x)
        # the file keeps 7 significant digits of each weight
        assert np.allclose(got, want, rtol=1e-5, atol=1e-5)
        # and not the first member's alone (the mean really mixes them)
        assert not np.allclose(got, members[0].net.evaluate(x), atol=1e-3)


def test_the_same_members_give_the_same_bytes(tmp_path: Path) -> None:
    paths = [member(tmp_path / f"m{k}.json", (4,), k) for k in range(2)]
    a = write_ensemble(tmp_path / "a.json", paths)
    b = write_ensemble(tmp_path / "b.json", paths)
    assert a == b
    assert (tmp_path / "a.json").read_bytes() == (tmp_path / "b.json").read_bytes()


def test_a_deeper_member_is_refused_in_one_line(tmp_path: Path, capsys) -> None:
    paths = [member(tmp_path / "a.json", (4,), 0), member(tmp_path / "b.json", (4, 3), 1)]
    with pytest.raises(UsageError, match="model 2 has 2 hidden layers"):
        write_ensemble(tmp_path / "e.json", paths)
    assert main([str(tmp_path / "e.json"), *map(str, paths)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("error: ")
    assert not (tmp_path / "e.json").exists()


def test_a_missing_member_or_too_few_arguments(tmp_path: Path, capsys) -> None:
    good = member(tmp_path / "a.json", (4,), 0)
    assert main([str(tmp_path / "e.json"), str(good), str(tmp_path / "nope.json")]) == 2
    assert "no such file" in capsys.readouterr().err
    assert main([str(tmp_path / "e.json"), str(good)]) == 2
