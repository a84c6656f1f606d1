import os
from pathlib import Path

import numpy as np
import pytest

_DEFAULT = Path(__file__).resolve().parents[2] / "shared" / "data" / "adult.csv"


def adult_path():
    return Path(os.environ.get("DIFFIDENT_ADULT_CSV", str(_DEFAULT)))


def require_adult():
    """The Adult file's path; skips when it is absent, unless
    DIFFIDENT_REQUIRE_DATA=1 (CI), where a missing file is a failure."""
    path = adult_path()
    if not path.is_file():
        msg = f"UCI Adult data not found at {path} (set DIFFIDENT_ADULT_CSV)"
        if os.environ.get("DIFFIDENT_REQUIRE_DATA") == "1":
            pytest.fail(msg)
        pytest.skip(msg)
    return path


@pytest.fixture(scope="session")
def adult():
    """The UCI Adult numeric columns as a dict of float arrays."""
    path = require_adult()
    with open(path) as fh:
        header = fh.readline().strip().split(",")
    cols = ["age", "educational-num", "capital-gain", "capital-loss", "hours-per-week"]
    idx = [header.index(c) for c in cols]
    data = np.loadtxt(path, delimiter=",", skiprows=1, usecols=idx, dtype=np.float64)
    return {c: data[:, i] for i, c in enumerate(cols)}
