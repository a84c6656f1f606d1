"""The explainer: explain() and `diffident explain`."""

import math

import numpy as np
import pytest

import diffident as di
from diffident.cli import main


def test_values_are_the_mechanisms_own():
    e = di.explain(1.0, m=[10, 100], priors=[0.01, 0.5])
    labels = [label for label, _ in e.mechanisms]
    assert labels == ["guarantee", "laplace", "discrete_laplace"]
    mechs = dict(e.mechanisms)
    assert mechs["guarantee"] == di.PureDP(1.0) and mechs["laplace"] == di.Laplace(1.0)
    assert mechs["discrete_laplace"] == di.DiscreteLaplace.from_epsilon(1.0)
    by = {(r.measure, r.argument): r for r in e.rows}
    for i, (_, m) in enumerate(e.mechanisms):
        assert by[("posterior", "prior 0.01")].values[i] == m.posterior(0.01)
        assert by[("identification", "m = 100")].values[i] == m.identification_bound(100)
        assert by[("success", "m = 10")].values[i] == m.success_bound(10)
        assert by[("advantage", "")].values[i] == m.advantage()
        assert by[("TPR", "FPR 0.01")].values[i] == m.tpr_at_fpr(0.01)
    # the check values: advantage of Laplace eps 1 and of the discrete Laplace, tanh(1/2)
    assert by[("advantage", "")].values[1] == pytest.approx(1 - math.exp(-0.5), rel=1e-14)
    assert by[("advantage", "")].values[2] == pytest.approx(math.tanh(0.5), rel=1e-12)


def test_the_odds_wording():
    e = di.explain(1.0, priors=[0.01], m=[10])
    assert e.rows[0].reading == "from 1 in 100 to 1 in 37"
    g = di.explain(1.0, 1e-6, priors=[0.01], m=[10])
    assert g.rows[0].reading == "from 1 in 100 to certain, for some outputs"


def test_approximate_dp_brings_the_gaussians_meeting_the_guarantee():
    e = di.explain(1.0, 1e-6)
    mechs = dict(e.mechanisms)
    assert set(mechs) == {"guarantee", "gaussian", "discrete_gaussian"}
    for label in ("gaussian", "discrete_gaussian"):
        assert mechs[label].delta(1.0) <= 1e-6
    assert mechs["discrete_gaussian"].delta(1.0) > 1e-6 * 0.999  # the least such noise
    assert dict(di.explain(1.0, 1e-6, mechanism="discrete_gaussian").mechanisms).keys() == {"guarantee",
                                                                                           "discrete_gaussian"}


def test_text_pandas_and_plot(tmp_path):
    e = di.explain(0.5)
    text = str(e)
    assert "What epsilon = 0.5, delta = 0 means" in text and "from 1 in 1,000" in text
    df = e.to_pandas()
    assert list(df.columns) == ["measure", "argument", "guarantee", "laplace", "discrete_laplace", "reading"]
    np.testing.assert_array_equal(df["laplace"].to_numpy(), [r.values[1] for r in e.rows])
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    ax = e.plot()
    assert len(ax.lines) == 4  # three curves and the diagonal


@pytest.mark.parametrize(("kwargs", "match"), [
    ({"epsilon": -1.0}, "epsilon"),
    ({"epsilon": 0.0}, "epsilon"),
    ({"epsilon": np.inf}, "epsilon"),
    ({"epsilon": 1.0, "delta": 1.0}, "delta"),
    ({"epsilon": 1.0, "mechanism": "uniform"}, "mechanism"),
    ({"epsilon": 1.0, "mechanism": "gaussian"}, "delta > 0"),
    ({"epsilon": 1.0, "delta": 1e-6, "mechanism": "laplace"}, "delta 0"),
    ({"epsilon": 1.0, "priors": [0.0]}, "priors"),
    ({"epsilon": 1.0, "m": [0]}, "m"),
])
def test_bad_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        di.explain(**kwargs)


def test_command(capsys, tmp_path):
    assert main(["explain", "--epsilon", "1", "--m", "10", "--prior", "0.01"]) == 0
    out = capsys.readouterr().out
    assert "from 1 in 100 to 1 in 37" in out and "discrete_laplace" in out
    png = tmp_path / "curve.png"
    pytest.importorskip("matplotlib")
    assert main(["explain", "--epsilon", "1", "--delta", "1e-6", "--plot", str(png)]) == 0
    assert png.stat().st_size > 1000
    assert main(["explain", "--epsilon", "1", "--mechanism", "gaussian"]) == 2
    assert "needs delta > 0" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["explain", "--epsilon", "abc"])
