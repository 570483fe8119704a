"""study/stats.py: the statistics the reports print, and a difference against seed noise."""

import numpy as np
import pytest

from study import stats


def test_difference_is_against_twice_the_standard_error_of_the_difference():
    these, those = [0.70, 0.72, 0.71], [0.74, 0.75, 0.76, 0.77]
    diff, two_se = stats.difference(these, those)
    assert diff == pytest.approx(np.mean(these) - np.mean(those))
    assert two_se == pytest.approx(2 * np.sqrt(np.var(these, ddof=1) / 3 + np.var(those, ddof=1) / 4))
    summary = stats.describe([0.5, 0.7, 0.6])
    assert summary["median"] == 0.6 and summary["std"] == pytest.approx(0.1) and np.isnan(stats.describe([0.5])["std"])
