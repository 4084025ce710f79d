"""A new puzzle's trial report marks what the findings decide, not what a raw interval says."""

from __future__ import annotations

import pandas as pd

from projectl_sim.analysis.trial import TrialReport


def test_the_trial_text_stars_the_findings_not_the_raw_intervals() -> None:
    effects = pd.DataFrame(
        {
            "config_b": [0, 0],
            "pairs": [40, 40],
            "metric": ["margin", "rounds"],
            "bot": [None, None],
            "kind": ["mean", "mean"],
            "value_a": [10.0, 12.0],
            "value_b": [11.5, 11.6],
            "diff": [1.5, -0.4],
            "ci_low": [0.2, -1.0],
            "ci_high": [2.8, 0.2],
            "unmeasured_because": [None, None],
            # the margin's interval leaves out 0 but does not survive the correction
            "significant": [True, False],
            "detected": [False, True],
        }
    )
    configs = pd.DataFrame(
        {"players": [2], "lineup": ["greedy,random"], "switches": ["default"]}, index=[0]
    )
    use = pd.DataFrame({"run": [], "bot": []})
    text = TrialReport("N01", None, use, None, effects, configs, 40).text()
    lines = {line.split()[0]: line for line in text.splitlines() if line.startswith("   ")}
    assert not lines["winning"].endswith("*")
    assert lines["length"].endswith("*")
    assert "a finding, q < 0.05 over the 2 differences measured" in text
