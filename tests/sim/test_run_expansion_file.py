"""``run --expansion-file NAME=FILE`` plays the user's puzzle file, not the shipped set."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from projectl_sim.cli import main

MY_PHOENIX = {
    "format": "projectl-catalogue/1",
    "expansion": "phoenix",
    "title": "two puzzles of a test",
    "provisional": False,
    "pieces": {},
    "puzzles": [
        {
            "id": "MP01",
            "colour": "black",
            "points": 6,
            "reward": "mono",
            "rows": ["#####", "#####", "###..", "###..", "....."],
        },
        {
            "id": "MP02",
            "colour": "black",
            "points": 6,
            "reward": "domino",
            "rows": ["####.", "####.", "####.", "####.", "#...."],
        },
    ],
}


def test_a_run_plays_the_users_puzzle_file(tmp_path: Path) -> None:
    path = tmp_path / "my_phoenix.json"
    path.write_text(json.dumps(MY_PHOENIX))
    out = tmp_path / "run"
    code = main(
        [
            "run",
            "--bots",
            "greedy",
            "--players",
            "2",
            "--expansions",
            "none,phoenix",
            "--expansion-file",
            f"phoenix={path}",
            "--games",
            "6",
            "--seed",
            "3",
            "--jobs",
            "1",
            "--out",
            str(out),
            "--quiet",
        ]
    )
    assert code == 0
    seats = pd.read_parquet(out / "seats.parquet")
    done = " ".join(seats.puzzles_completed.dropna())
    assert "PB0" not in done  # no shipped Phoenix puzzle was dealt
    with_file = seats[seats.expansions == "phoenix"]
    assert with_file.puzzles_completed.str.contains("MP0").any()
    # the user's file says it is not provisional, so no row is marked provisional
    assert not seats.provisional_data.any()
    manifest = json.loads((out / "manifest.json").read_text())
    used = {c["config_id"]: c["expansion_files"] for c in manifest["configs"]}
    assert used[0] == [] and used[1] == [["phoenix", str(path)]]
