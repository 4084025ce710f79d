"""Average value models of one hidden layer into one model file: their hidden units side by side.

Run: ``python -m projectl_sim.learn.ensemble OUT.json MODEL.json MODEL.json ...``.

Fits of the same data that differ only in their seed (the held-out games and the network's
first weights) play alike on average but each ranks a decision's candidates with its own errors;
the mean of their outputs keeps what they agree on. The mean of K networks of one ReLU layer is
itself such a network: every member's hidden units in one layer (its input weights re-expressed
for the first member's standardisation), the output weights divided by K, so the bots play it as
any model file (``value:model=OUT.json``) at K times the multiply-adds of one member (a
decision's cost is its features', not the network's). The win output is the mean before the
bots clip it to 0-1. Only a model of exactly one hidden layer is merged (deeper networks do not
add up this way); the members must share the feature version and the margin's scale.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

from bots.value_model import load_model, write_model
from projectl_sim.errors import UsageError

Layers = list[tuple[list[list[float]], list[float]]]


def average(models: list[dict[str, Any]]) -> tuple[list[float], list[float], Layers]:
    """Return the standardisation and layers of the mean of ``models`` (parsed model files)."""
    if not models:
        raise UsageError("no model to average")
    first = models[0]
    mean0 = np.asarray(first["mean"], dtype=np.float64)
    scale0 = np.asarray(first["scale"], dtype=np.float64)
    k = len(models)
    w1s, b1s, w2s, b2 = [], [], [], np.zeros(len(first["layers"][-1]["biases"]))
    for n, m in enumerate(models, 1):
        if len(m["layers"]) != 2:
            raise UsageError(
                f"model {n} has {len(m['layers']) - 1} hidden layers: only one averages exactly"
            )
        if m["feature_version"] != first["feature_version"]:
            version = m["feature_version"]
            raise UsageError(f"model {n} has feature version {version}, not the first's")
        if m["margin_scale"] != first["margin_scale"]:
            raise UsageError(f"model {n} has margin scale {m['margin_scale']}, not the first's")
        mean = np.asarray(m["mean"], dtype=np.float64)
        scale = np.asarray(m["scale"], dtype=np.float64)
        w1 = np.asarray(m["layers"][0]["weights"], dtype=np.float64)
        b1 = np.asarray(m["layers"][0]["biases"], dtype=np.float64)
        # (x - mean) / scale = ((x - mean0) / scale0) * (scale0 / scale) + (mean0 - mean) / scale
        w1s.append(w1 * (scale0 / scale)[:, None])
        b1s.append(b1 + ((mean0 - mean) / scale) @ w1)
        w2s.append(np.asarray(m["layers"][1]["weights"], dtype=np.float64) / k)
        b2 = b2 + np.asarray(m["layers"][1]["biases"], dtype=np.float64) / k
    layers: Layers = [
        (np.hstack(w1s).tolist(), np.concatenate(b1s).tolist()),
        (np.vstack(w2s).tolist(), b2.tolist()),
    ]
    return mean0.tolist(), scale0.tolist(), layers


def write_ensemble(out: Path, paths: list[Path]) -> str:
    """Check and read the model files ``paths``, write their mean to ``out``; return its hash."""
    members = [load_model(str(p)) for p in paths]  # each checked as the bots check it
    models = [json.loads(Path(m.path).read_text()) for m in members]
    mean, scale, layers = average(models)
    training = {
        "ensemble": "the mean of these models' outputs (projectl_sim.learn.ensemble)",
        "members": [{"file": str(p), "hash": m.hash} for p, m in zip(paths, members, strict=True)],
    }
    return write_model(out, mean, scale, layers, float(models[0]["margin_scale"]), training)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) < 3:
        print("usage: python -m projectl_sim.learn.ensemble OUT.json MODEL.json MODEL.json ...")
        return 2
    try:
        digest = write_ensemble(Path(args[0]), [Path(a) for a in args[1:]])
    except UsageError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(f"model {args[0]} (hash {digest}): play it as value:model={args[0]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
