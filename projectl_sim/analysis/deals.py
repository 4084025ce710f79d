"""How much the deal decides: the share of a configuration's outcome variance that is the deal's.

A run with ``--deal-replicates K`` plays each deal K times under every seating of its line-up,
the bots' seeds varied (``sim.spec``): the games of one deal differ in who sits where and in the
bots' dice, never in the cards. So the variance of an outcome splits into a part *between* deals
(the cards) and a part *within* them (the seats and the dice), and the share between is what the
deal decides. A run without replicates has its seatings only (``mirrored`` deals); a line-up of
one bot played once a deal has nothing within a deal and no share (its rows say so).

**Outcomes.** Per configuration: ``first_player`` (the first player's win share: does the deal
decide whether the first seat wins?) and, in a line-up of different bots, ``bot:NAME`` (that
bot's share of the wins: does the deal decide which bot wins?; of a line-up of two bots only the
first, since the other's is one less it).

**The share.** The one-way random-effects intraclass correlation, ICC(1), of the outcome with the
deal as the group, from the analysis of variance (unbalanced groups: Searle's n0)::

    MSB = sum n_d (m_d - m)^2 / (k - 1)      MSW = sum (y - m_d)^2 / (N - k)
    n0 = (N - sum n_d^2 / N) / (k - 1)       share = (MSB - MSW) / (MSB + (n0 - 1) MSW)

near 0 when the games of one deal differ as much as games of different deals, 1 when a deal's
games all end alike. The estimate can fall below 0 (deals more alike than chance), shown as 0
(``share_raw`` keeps it). Its 95% interval is a percentile bootstrap over the deals (a resample
draws the deals with replacement, each with all its games: ``RESAMPLES``, seeded, so the same
tables give the same interval); it assumes independent deals. When no deal's games differ at
all, every resample says 1; the lower bound is then the share a chance of a game going otherwise
at Wilson's upper limit of 0 in the games beyond each deal's first would give, not 1.

**The seed metrics** of Goodman, Perez-Liebana and Lucas, "Seeding for Success" (2025), on the
deals' own rates (``p_d``: the outcome's mean over a deal's games), as this module reads them:
``span`` = the largest ``p_d`` less the smallest; ``trimmed_span`` = the 95th percentile less the
5th (the span without its most extreme deals); ``outliers`` = deals whose games a two-sided exact
binomial test (against the configuration's rate) says differ, Benjamini-Hochberg at 5% over the
configuration's deals (a shared win counts as the nearest whole win); ``entropy`` = the deals'
mean binary entropy over the entropy of the pooled rate: 1 when knowing the deal leaves the
outcome as uncertain as before, 0 when every deal decides it (a deal of few games looks more
decided than it is: with 2 games its rate is 0, 1/2 or 1). ``decided`` is the share of deals
whose games all ended alike. A *lopsided* deal is one whose own rate is furthest from the
configuration's (smallest binomial p): ``lopsided_deals`` names its games, whose records
``projectl-sim deals RUN`` writes for the viewer.
"""

from __future__ import annotations

import zlib

import numpy as np
import pandas as pd

from projectl_sim.analysis.fmt import NA, pct
from projectl_sim.analysis.rows import CONFIG, finished_games, finished_seats
from projectl_sim.analysis.stats import ALPHA, q_values, wilson

__all__ = [
    "DEAL_COLUMNS",
    "RESAMPLES",
    "deal_outcomes",
    "deal_variance",
    "icc_oneway",
    "lopsided_deals",
]

RESAMPLES = 2000
LEVEL = 0.95
TRIM = 0.05  # the trimmed span drops this share of the deals at each end
_LABELS = [*CONFIG, "tier"]
DEAL_COLUMNS = [
    "config_id",
    *_LABELS,
    "outcome",
    "deals",
    "games",
    "per_deal",
    "mirrored",
    "rate",
    "share",
    "share_raw",
    "ci_low",
    "ci_high",
    "between",
    "within",
    "span",
    "trimmed_span",
    "outliers",
    "entropy",
    "decided",
]


def deal_outcomes(seats: pd.DataFrame, games: pd.DataFrame) -> pd.DataFrame:
    """Return one row per finished game and outcome: ``config_id``, ``outcome``, ``seed`` (the
    deal), ``game_id``, ``rotation``, ``replicate`` and ``y`` (the outcome, 0 to 1)."""
    ok = finished_games(games)
    ok_seats = finished_seats(seats)
    ok_seats = ok_seats[ok_seats["game_id"].isin(ok["game_id"]) & (ok_seats["players"] > 1)]
    keys = ["game_id", "config_id", "seed"]
    extra = [c for c in ("rotation", "replicate") if c in ok]
    meta = ok.set_index("game_id")[extra]
    parts = []
    first = ok_seats[ok_seats["turn_order"] == 0][[*keys, "win_share"]]
    parts.append(first.assign(outcome="first_player"))
    lineups = ok.drop_duplicates("config_id").set_index("config_id")["lineup"]
    shares = ok_seats.groupby([*keys, "bot"], sort=False)["win_share"].sum().reset_index()
    for config_id, lineup in lineups.items():
        bots = list(dict.fromkeys(str(lineup).split(",")))
        if len(bots) < 2:
            continue
        focus = bots[:1] if len(bots) == 2 else bots
        mine = shares[(shares["config_id"] == config_id) & shares["bot"].isin(focus)]
        parts.append(mine[[*keys, "win_share"]].assign(outcome="bot:" + mine["bot"].astype(str)))
    out = pd.concat(parts, ignore_index=True).rename(columns={"win_share": "y"})
    out = out.join(meta, on="game_id")
    for c in ("rotation", "replicate"):
        if c not in out:
            out[c] = 0
    out["replicate"] = out["replicate"].fillna(0).astype(int)
    return out.sort_values(["config_id", "outcome", "game_id"], kind="stable").reset_index(
        drop=True
    )


def _sums(y: np.ndarray, groups: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Return each group's count, sum and sum of squares (groups numbered 0..k-1)."""
    k = int(groups.max()) + 1 if len(groups) else 0
    n = np.bincount(groups, minlength=k).astype(float)
    s = np.bincount(groups, weights=y, minlength=k)
    q = np.bincount(groups, weights=y * y, minlength=k)
    return n, s, q


def _icc_weighted(n: np.ndarray, s: np.ndarray, q: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Return ICC(1) under each row of deal weights ``w`` (resamples x deals: how many times
    each deal is drawn); nan where it is undefined."""
    k = w.sum(axis=1)
    big_n = w @ n
    total = w @ s
    with np.errstate(invalid="ignore", divide="ignore"):
        ssw = w @ (q - np.where(n > 0, s * s / n, 0.0))
        ssb = w @ np.where(n > 0, s * s / n, 0.0) - total * total / big_n
        msb = ssb / (k - 1)
        msw = ssw / (big_n - k)
        n0 = (big_n - (w @ (n * n)) / big_n) / (k - 1)
        icc = (msb - msw) / (msb + (n0 - 1) * msw)
    icc = np.where((msw <= 1e-12) & (msb > 1e-12), 1.0, icc)  # no variation within: all the deal's
    icc = np.where((k < 2) | (big_n <= k), np.nan, icc)
    return icc


def icc_oneway(
    y: np.ndarray,
    groups: np.ndarray,
    *,
    resamples: int = RESAMPLES,
    level: float = LEVEL,
    rng: np.random.Generator | None = None,
) -> tuple[float, float, float, float, float]:
    """Return ICC(1) of ``y`` grouped by ``groups``, its bootstrap interval over the groups, and
    the between- and within-group variance components: ``(icc, low, high, between, within)``."""
    codes = pd.factorize(np.asarray(groups))[0]
    y = np.asarray(y, dtype=float)
    n, s, q = _sums(y, codes)
    k = len(n)
    icc = float(_icc_weighted(n, s, q, np.ones((1, k)))[0]) if k else np.nan
    between = within = np.nan
    if k >= 2 and n.sum() > k:
        msw = float((q - s * s / n).sum() / (n.sum() - k))
        m = s.sum() / n.sum()
        msb = float((n * (s / n - m) ** 2).sum() / (k - 1))
        n0 = (n.sum() - (n * n).sum() / n.sum()) / (k - 1)
        between, within = max(0.0, (msb - msw) / n0), msw
    low = high = np.nan
    if np.isfinite(icc) and resamples > 0:
        rng = rng or np.random.default_rng(0)
        picks = rng.integers(0, k, size=(resamples, k))
        w = np.zeros((resamples, k))
        np.add.at(w, (np.arange(resamples)[:, None], picks), 1.0)
        boot = _icc_weighted(n, s, q, w)
        boot = boot[np.isfinite(boot)]
        if len(boot):
            tail = 50 * (1 - level)
            low, high = (float(x) for x in np.percentile(boot, [tail, 100 - tail]))
    if within == 0 and between > 0 and np.isfinite(low):
        # no game went otherwise than its deal's others, so every resample says 1: yet N - k
        # such games bound the chance a game goes otherwise only to Wilson's upper limit of 0 in
        # N - k, e, and a share 1 - e (1 - e) / (p (1 - p)) is as consistent with them
        e = float(wilson(0, n.sum() - k)[1])
        p = s.sum() / n.sum()
        if 0 < p < 1:
            low = min(low, max(0.0, 1 - e * (1 - e) / (p * (1 - p))))
    return icc, low, high, between, within


def _entropy(p: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        h = -(p * np.log2(p) + (1 - p) * np.log2(1 - p))
    return np.where((p <= 0) | (p >= 1), 0.0, h)


def _per_deal(rows: pd.DataFrame) -> pd.DataFrame:
    """Return one row per deal: its games, wins (summed shares) and rate."""
    deal = rows.groupby("seed", sort=True)["y"].agg(["size", "sum"])
    deal.columns = ["n", "wins"]
    deal["rate"] = deal["wins"] / deal["n"]
    return deal


def _binomial_p(wins: np.ndarray, n: np.ndarray, p: float) -> np.ndarray:
    out = np.ones(len(n))
    if not 0 < p < 1:
        return out
    from scipy import stats as sps  # only here: importing it costs a second at every start

    for i, (x, m) in enumerate(zip(np.rint(wins).astype(int), n.astype(int), strict=True)):
        out[i] = sps.binomtest(int(min(max(x, 0), m)), m, p).pvalue
    return out


def deal_variance(
    seats: pd.DataFrame,
    games: pd.DataFrame,
    *,
    resamples: int = RESAMPLES,
) -> pd.DataFrame:
    """Return per configuration and outcome the share of the outcome's variance the deal
    explains (``share``, ``ci_low``, ``ci_high``; see the module notes) and the seed metrics.

    ``per_deal`` is the mean number of games a deal was played in, ``mirrored`` whether its
    deals were played under more than one seating. Rows whose deals were played once each have
    no share (nan): nothing separates the deal from the rest.
    """
    values = deal_outcomes(seats, games)
    if values.empty:
        return pd.DataFrame(columns=DEAL_COLUMNS)
    ok = finished_games(games)
    labels = ok.drop_duplicates("config_id").set_index("config_id")
    rows = []
    for (config_id, outcome), group in values.groupby(["config_id", "outcome"], sort=True):
        # seeded by the configuration and outcome: the same tables give the same intervals
        rng = np.random.default_rng(zlib.crc32(f"{config_id}:{outcome}".encode()))
        icc, low, high, between, within = icc_oneway(
            group["y"].to_numpy(), group["seed"].to_numpy(), resamples=resamples, rng=rng
        )
        deal = _per_deal(group)
        rate = float(group["y"].mean())
        p = deal["rate"].to_numpy()
        q = q_values(_binomial_p(deal["wins"].to_numpy(), deal["n"].to_numpy(), rate))
        h_all = float(_entropy(np.array([rate]))[0])
        several = deal["n"] > 1
        label = labels.loc[config_id]
        rows.append(
            {"config_id": int(config_id)}
            | {c: label.get(c) for c in _LABELS}
            | {
                "outcome": outcome,
                "deals": len(deal),
                "games": len(group),
                "per_deal": float(deal["n"].mean()),
                "mirrored": bool(group.groupby("seed")["rotation"].nunique().max() > 1),
                "rate": rate,
                "share": max(0.0, icc) if np.isfinite(icc) else np.nan,
                "share_raw": icc,
                "ci_low": max(0.0, low) if np.isfinite(low) else np.nan,
                "ci_high": max(0.0, high) if np.isfinite(high) else np.nan,
                "between": between,
                "within": within,
                "span": float(p.max() - p.min()),
                "trimmed_span": float(np.quantile(p, 1 - TRIM) - np.quantile(p, TRIM)),
                "outliers": int((q < ALPHA).sum()),
                "entropy": float(_entropy(p).mean() / h_all) if h_all > 0 else np.nan,
                "decided": float(((p == 0) | (p == 1))[several].mean())
                if several.any()
                else np.nan,
            }
        )
    return pd.DataFrame(rows, columns=DEAL_COLUMNS)


def lopsided_deals(seats: pd.DataFrame, games: pd.DataFrame, top: int = 3) -> pd.DataFrame:
    """Return per configuration and outcome its ``top`` most lopsided deals (two or more games
    each): ``seed``, ``deal``, ``games``, ``rate`` (the outcome's mean in the deal), ``p_value``
    (exact binomial against the configuration's rate) and ``game_ids`` (space separated)."""
    values = deal_outcomes(seats, games)
    columns = ["config_id", "outcome", "seed", "deal", "games", "rate", "overall", "p_value"]
    if values.empty:
        return pd.DataFrame(columns=[*columns, "game_ids"])
    deal_of = finished_games(games).set_index("game_id")["deal"]
    rows = []
    for (config_id, outcome), group in values.groupby(["config_id", "outcome"], sort=True):
        deal = _per_deal(group)
        deal = deal[deal["n"] > 1]
        if deal.empty:
            continue
        rate = float(group["y"].mean())
        deal["p_value"] = _binomial_p(deal["wins"].to_numpy(), deal["n"].to_numpy(), rate)
        deal["gap"] = (deal["rate"] - rate).abs()
        ids = group.groupby("seed")["game_id"].apply(lambda s: " ".join(map(str, sorted(s))))
        for seed, d in (
            deal.sort_values(["p_value", "gap"], ascending=[True, False]).head(top).iterrows()
        ):
            first = int(ids[seed].split()[0])
            rows.append(
                {
                    "config_id": int(config_id),
                    "outcome": outcome,
                    "seed": int(seed),
                    "deal": int(deal_of.get(first, -1)),
                    "games": int(d["n"]),
                    "rate": float(d["rate"]),
                    "overall": rate,
                    "p_value": float(d["p_value"]),
                    "game_ids": ids[seed],
                }
            )
    return pd.DataFrame(rows, columns=[*columns, "game_ids"])


def deal_lines(table: pd.DataFrame, width: int = 100) -> list[str]:
    """Return the summary section of ``deal_variance``'s table (empty when it has no share): its
    seed metrics beside its findings rows (``findings.deal_findings``: the deal's share as shown,
    and what it means), which decide what is shown."""
    import textwrap

    from projectl_sim.analysis import labels
    from projectl_sim.analysis.findings import deal_findings

    shown = table[table["share_raw"].notna()]
    if shown.empty:
        return []
    found = deal_findings(shown)  # a row each, in the table's order
    lines = ["== How much the deal decides =="]
    lines += textwrap.wrap(
        "share of each outcome's variance between deals (the cards) rather than within them "
        "(the seats and the bots' seeds): one-way random-effects ICC with a 95% bootstrap "
        "interval over the deals; span, trimmed span (5th-95th percentile), outlier deals (exact "
        "binomial, Benjamini-Hochberg 5%), entropy left once the deal is known (1: none "
        "decided) and the share of deals whose games all ended alike ('Seeding for Success')",
        width,
    )
    vary = [c for c in labels.varying(shown) if c in labels.LABEL_COLUMNS]
    if shown["tier"].nunique() > 1:
        vary = [*vary, "tier"]
    names = labels.config_labels(shown[vary], vary) if vary else ["all games"] * len(shown)
    rows = []
    notes: dict[str, str] = {}
    for name, r, f in zip(names, shown.to_dict("records"), found, strict=True):
        share, _, note = f.verdict.partition(" | ")
        note = f.unmeasured_because or note
        if note:
            notes[share] = note
        rows.append(
            [
                name,
                str(r["outcome"]),
                f"{r['deals']} x {r['per_deal']:.3g}",
                pct(r["rate"]),
                share,
                pct(r["span"]),
                pct(r["trimmed_span"]),
                str(r["outliers"]),
                NA if not np.isfinite(r["entropy"]) else f"{r['entropy']:.2f}",
                pct(r["decided"]),
            ]
        )
    header = [
        "configuration",
        "outcome",
        "deals x games",
        "rate",
        "deal's share [95%]",
        "span",
        "trimmed",
        "outliers",
        "entropy",
        "decided",
    ]
    cells = [header, *rows]
    widths = [max(len(c[i]) for c in cells) for i in range(len(header))]
    lines.append("")
    lines += [
        "  " + "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip()
        for row in cells
    ]
    for share, note in notes.items():
        lines += textwrap.wrap(
            f"{share}: {note}", width, initial_indent="  ", subsequent_indent="    "
        )
    # the half-widths of the shares with an interval to size
    halves = [(f.ci_high - f.ci_low) / 2 for f in found if f.ci_high > f.ci_low]
    deals = int(shown["deals"].median())
    per = float(shown["per_deal"].median())
    if halves:
        half = float(np.median(halves))
        known = (
            f"With {deals} deals of {per:.3g} games each the share is known to about +-"
            f"{_points(half)} points (median half-width): a share inside an interval that "
            "reaches 0 cannot be told from a game the deal does not decide; more deals narrow "
            "the interval, more games per deal (--deal-replicates) separate the deal from the "
            "seats and the dice. "
        )
    else:
        known = f"With {deals} deals of {per:.3g} games each no share has an interval (above). "
    lines += textwrap.wrap(
        known + "The most lopsided deals, as records for the viewer: projectl-sim deals RUN.",
        width,
        initial_indent="  ",
        subsequent_indent="  ",
    )
    return lines


def _points(half: float) -> str:
    """Return a half-width in points with the decimals it needs to not read as 0."""
    for digits in range(4):
        text = f"{100 * half:.{digits}f}"
        if float(text) > 0:
            return text
    return text
