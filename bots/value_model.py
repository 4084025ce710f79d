"""The learned evaluation's model file: read, check, name by its hash, evaluate.

A model file is JSON (``write_model`` writes one, ``projectl-sim train-value`` trains one)::

    {"format": "projectl-sim value model", "format_version": 1,
     "feature_version": 2, "features": [names...],
     "outputs": ["win", "margin"], "margin_scale": 10.0,
     "mean": [...], "scale": [...],              # the inputs' standardisation
     "layers": [{"weights": [[...], ...], "biases": [...]}, ...],   # weights[input][unit]
     "training": {...}}                           # how it was trained (for the reader)

Its outputs are the seat's win share (a chance, 0-1) and its final margin over the best rival
divided by ``margin_scale``. The file's hash (the first 12 hex digits of its SHA-256) names the
model in the bot's spec (``value:hash=...``) and so in every record and table row that used it;
a spec naming a hash that the file does not have is refused. A file that is missing, truncated,
not a model, trained on another version of the features, of the wrong shape (no layers, a layer
that does not fit the one before), or holding a number that is not finite or outside its range
(``LIMITS``: a diverged fit or an edited file) is one line naming what is wrong (``UsageError``),
when the file is read: such a model never plays.

The shipped model is ``projectl_sim/data/models/value.json``; the models kept beside it (candidates,
and the one that shipped before it) are played by their bare names.
"""

from __future__ import annotations

import hashlib
import json
import math
import struct
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from bots.features import FEATURE_NAMES, FEATURE_VERSION
from bots.value_net import Net
from projectl_sim.errors import UsageError

FORMAT = "projectl-sim value model"
FORMAT_VERSION = 1
# beside the bots package (installed or checked out): the package data of projectl_sim
SHIPPED = Path(__file__).resolve().parent.parent / "projectl_sim" / "data" / "models" / "value.json"
HASH_DIGITS = 12
OUTPUTS = ["win", "margin"]
# The range of each kind of number a model file holds: (low, high, the range in words). A fit's
# weights are a few units (the shipped model's are below 2.5: the inputs are standardised and the
# fit penalises large weights), so a number far outside is a diverged fit or an edited file, whose
# bot would play nonsense under a real bot's name: it is refused when the file is read.
LIMITS: dict[str, tuple[float, float, str]] = {
    "weight": (-1e3, 1e3, "-1000 to 1000 (a trained model's weights and biases are a few units)"),
    "mean": (-1e6, 1e6, "-1e6 to 1e6 (the features' means are a few dozen at most)"),
    # a fit's scale is at least 1e-9 (a constant feature's is 1), and folded into the first
    # layer (weight / scale) it stays far from overflowing
    "scale": (1e-9, 1e6, "1e-9 to 1e6 (a standard deviation of the features)"),
    "margin_scale": (1e-3, 1e3, "0.001 to 1000 (points per unit of the margin output: 10)"),
}


class ValueModel:
    """A loaded model: its network, hash, path and what the file says of its training.

    Two evaluations of the same network: ``evaluate`` (one vector, ``bots.value_net.Net``:
    plain lists, exact and compiled) and ``evaluate_rows`` (many vectors at once, numpy: the
    bots score all candidates of a decision in one call). Measured (``benchmarks/value.py``,
    the shipped model): a vector costs about 20 us through ``Net`` compiled (60 pure), 6 us
    through numpy alone, and 0.3-1 us a row in a batch of 20-30; the two agree to 1e-12.
    """

    def __init__(
        self, net: Net, arrays: list[tuple[Any, Any]], digest: str, path: Path, meta: dict[str, Any]
    ) -> None:
        self.net = net
        self.arrays = arrays  # per layer (weights[input][unit], biases), standardisation folded
        self.hash = digest
        self.path = path
        self.margin_scale = float(meta.get("margin_scale", 10.0))
        self.training: dict[str, Any] = dict(meta.get("training", {}))

    def evaluate(self, x: list[float]) -> tuple[float, float]:
        """Return (win chance, margin in points) of a feature vector."""
        out = self.net.evaluate(x)
        win = out[0]
        win = 0.0 if win < 0.0 else 1.0 if win > 1.0 else win
        return win, out[1] * self.margin_scale

    def evaluate_rows(self, rows: list[list[float]]) -> list[tuple[float, float]]:
        """Return (win chance, margin in points) of each feature vector of ``rows``."""
        # the rows joined into one list and packed as C doubles by ``struct``, which numpy reads
        # as they are: half the instructions of ``np.fromiter`` on the chained rows (measured,
        # 9 rows of 69: 76K against 148K instructions; numpy converts each float through its
        # generic item setter), the same numbers
        width = len(rows[0]) if rows else 0
        flat: list[float] = []
        for row in rows:
            flat += row
        raw = struct.pack(f"{len(flat)}d", *flat)
        act = np.frombuffer(raw, np.float64).reshape(len(rows), width)
        last = len(self.arrays) - 1
        for k, (w, b) in enumerate(self.arrays):
            act = act @ w
            act += b  # in place: the same sums, one array fewer
            if k < last:
                np.maximum(act, 0.0, out=act)
        # the two outputs read once and clipped and scaled as floats (the same numbers as numpy's
        # clip and product, without their four arrays: 170K -> 143K instructions for 8 rows)
        scale = self.margin_scale
        return [
            (0.0 if win < 0.0 else 1.0 if win > 1.0 else win, margin * scale)
            for win, margin in act.tolist()
        ]


_LOADED: dict[tuple[str, int, int], ValueModel] = {}


def model_path(name: str) -> Path:
    """Return the file a ``model=`` value names: "" or "shipped" the shipped model; a bare name
    (no folder, no suffix) of a model file shipped beside it, such as a candidate's
    ``candidate-a0bf61a97e76`` or the previous default ``previous-1f4245d84f5c``, that file;
    anything else a path."""
    if name in ("", "shipped"):
        return SHIPPED
    if name and Path(name).name == name and not Path(name).suffix:
        beside = SHIPPED.parent / f"{name}.json"
        if beside.is_file():
            return beside
    return Path(name).expanduser().resolve()


def model_name(path: Path) -> str:
    """Return the ``model=`` value naming ``path``: a shipped file's bare name, else its path."""
    if path.parent == SHIPPED.parent and path != SHIPPED and model_path(path.stem) == path:
        return path.stem
    return str(path)


def kept_name(digest: str) -> str:
    """Return the bare name of a model file kept beside the shipped one for the hash ``digest``
    (``previous-1f4245d84f5c``: files are named by their hash), or "" when there is none."""
    if len(digest) != HASH_DIGITS or not all(c in "0123456789abcdef" for c in digest):
        return ""
    found = sorted(SHIPPED.parent.glob(f"*-{digest}.json"))
    return found[0].stem if found else ""


def load_model(name: str = "") -> ValueModel:
    """Return the model a ``model=`` value names, read once per process (per file version)."""
    path = model_path(name)
    where = "the shipped value model" if path == SHIPPED else f"value model {name}"
    where = where if name == str(path) else f"{where} ({path})"  # the file, wherever run
    try:
        st = path.stat()
    except OSError:
        raise UsageError(f"{where}: no such file") from None
    key = (str(path), st.st_mtime_ns, st.st_size)
    hit = _LOADED.get(key)
    if hit is not None:
        return hit
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise UsageError(f"{where}: cannot read it ({exc.strerror})") from None
    digest = hashlib.sha256(raw).hexdigest()[:HASH_DIGITS]
    if raw.startswith(b"PK"):  # a zip archive: train-value's positions.npz beside the model
        raise UsageError(f"{where}: not a value model file (a zip archive: a positions file?)")
    try:
        data = json.loads(raw)
    except (ValueError, UnicodeDecodeError) as exc:
        raise UsageError(
            f"{where}: not a value model file (truncated or not JSON: {exc})"
        ) from None
    net, arrays, meta = _parse(data, where)
    model = ValueModel(net, arrays, digest, path, meta)
    _LOADED[key] = model
    return model


def _parse(data: Any, where: str) -> tuple[Net, list[tuple[Any, Any]], dict[str, Any]]:
    """Return the network a model file's JSON holds, every number checked against ``LIMITS``."""

    def bad(why: str) -> UsageError:
        return UsageError(f"{where}: {why}")

    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise bad(f'not a value model file (no "format": "{FORMAT}")')
    if data.get("format_version") != FORMAT_VERSION:
        raise bad(
            f"model format version {data.get('format_version')!r}; this build reads "
            f"{FORMAT_VERSION}"
        )
    version = data.get("feature_version")
    if version != FEATURE_VERSION:
        raise bad(
            f"trained on features version {version!r}; this build computes version "
            f"{FEATURE_VERSION} (train a model for it: projectl-sim train-value)"
        )
    names = data.get("features")
    if names != list(FEATURE_NAMES):
        raise bad("its feature names differ from this build's (a model of another build)")
    if data.get("outputs", OUTPUTS) != OUTPUTS:
        raise bad(f"its outputs are {data.get('outputs')!r}; a value model's are {OUTPUTS}")
    if not isinstance(data.get("training", {}), dict):
        raise bad('its "training" is not a mapping (what the model was trained on)')
    n = len(FEATURE_NAMES)
    mean = _numbers(data.get("mean"), "mean", n, bad)
    scale = _numbers(data.get("scale"), "scale", n, bad)
    for i in range(n):
        _check(mean[i], f"the mean of feature {i + 1} ({FEATURE_NAMES[i]})", "mean", bad)
        _check(scale[i], f"the scale of feature {i + 1} ({FEATURE_NAMES[i]})", "scale", bad)
    margin_scale = data.get("margin_scale", 10.0)
    _check(margin_scale, "margin_scale", "margin_scale", bad)
    layers = data.get("layers")
    if not isinstance(layers, list) or not layers:
        raise bad("holds no layers (a model has at least its output layer)")
    mats: list[list[list[float]]] = []
    biases: list[list[float]] = []
    sizes = [n]
    for k, layer in enumerate(layers, start=1):
        if not isinstance(layer, dict) or not isinstance(layer.get("weights"), list):
            raise bad(f'layer {k} is not {{"weights": [...], "biases": [...]}}')
        b = layer.get("biases")
        if not isinstance(b, list) or not b:
            raise bad(f"layer {k}'s biases: missing, or not a list of numbers")
        units = len(b)
        rows = layer["weights"]
        fits = len(rows) == sizes[-1] and all(isinstance(r, list) and len(r) == units for r in rows)
        if not fits:
            raise bad(
                f"layer {k}'s weights do not fit its inputs and biases (a weight from each of "
                f"its {sizes[-1]} inputs to each of its {units} units)"
            )
        for j in range(units):
            _check(b[j], f"layer {k}'s bias of unit {j + 1}", "weight", bad)
        for i, row in enumerate(rows):
            for j in range(units):
                _check(
                    row[j], f"layer {k}'s weight from input {i + 1} to unit {j + 1}", "weight", bad
                )
        mats.append(rows)
        biases.append(b)
        sizes.append(units)
    if sizes[-1] != 2:
        raise bad(f"has {sizes[-1]} outputs; a value model has 2 (win, margin)")
    mean = [float(v) for v in mean]
    scale = [float(v) for v in scale]
    mats = [[[float(v) for v in row] for row in m] for m in mats]
    biases = [[float(v) for v in b] for b in biases]
    # fold the standardisation into the first layer: w' = w / scale, b' = b - sum(w' * mean)
    first = [[w / scale[i] for w in row] for i, row in enumerate(mats[0])]
    b0 = list(biases[0])
    for i, row in enumerate(first):
        for j, w in enumerate(row):
            b0[j] -= w * mean[i]
    mats[0], biases[0] = first, b0
    # unit-major for the evaluation (bots.value_net): flat[k][j * n_in + i] = mats[k][i][j]
    flat = [[m[i][j] for j in range(len(m[0])) for i in range(len(m))] for m in mats]
    arrays = [
        (np.asarray(m, dtype=np.float64), np.asarray(b, dtype=np.float64))
        for m, b in zip(mats, biases, strict=True)
    ]
    return Net(sizes, flat, biases), arrays, {**data, "margin_scale": float(margin_scale)}


def _numbers(value: Any, what: str, length: int, bad: Callable[[str], UsageError]) -> list[Any]:
    """Return ``value`` when it is a list of one item per feature, else raise naming ``what``."""
    if not isinstance(value, list):
        raise bad(f"{what}: missing, or not a list of numbers")
    if len(value) != length:
        raise bad(f"{what} has {len(value)} values; the features are {length}")
    return value


def _check(value: Any, name: str, kind: str, bad: Callable[[str], UsageError]) -> None:
    """Refuse ``value`` unless it is a finite number inside ``LIMITS[kind]``."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise bad(f"{name} is {value!r}, not a number")
    low, high, words = LIMITS[kind]
    if isinstance(value, int) and not -1e300 < value < 1e300:
        raise bad(f"{name} is a whole number of {len(str(abs(value)))} digits, outside {words}")
    if math.isnan(value):
        raise bad(f"{name} is NaN: a model holds finite numbers only")
    if math.isinf(value):
        raise bad(f"{name} is {value}: a model holds finite numbers only")
    if not low <= value <= high:
        raise bad(f"{name} is {value:g}, outside {words}")


def write_model(
    path: Path,
    mean: list[float],
    scale: list[float],
    layers: list[tuple[list[list[float]], list[float]]],
    margin_scale: float,
    training: dict[str, Any],
) -> str:
    """Write a model file (``layers``: (weights[input][unit], biases) per layer); return its
    hash. Numbers are rounded to 7 significant digits (the file stays small and diffable)."""
    data = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "feature_version": FEATURE_VERSION,
        "features": list(FEATURE_NAMES),
        "outputs": ["win", "margin"],
        "margin_scale": margin_scale,
        "mean": [_r(v) for v in mean],
        "scale": [_r(v) for v in scale],
        "layers": [
            {"weights": [[_r(v) for v in row] for row in w], "biases": [_r(v) for v in b]}
            for w, b in layers
        ],
        "training": training,
    }
    text = json.dumps(data, separators=(",", ":"), sort_keys=False) + "\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return hashlib.sha256(text.encode()).hexdigest()[:HASH_DIGITS]


def _r(v: float) -> float:
    return float(f"{v:.7g}")


__all__ = [
    "FORMAT",
    "SHIPPED",
    "ValueModel",
    "kept_name",
    "load_model",
    "model_name",
    "model_path",
    "write_model",
]
