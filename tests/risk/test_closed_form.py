"""The paper's closed forms (Mathematics page, section 3) against its check values."""

import numpy as np
import pytest

import diffident as di
from diffident.replicate.paper import ADULT_N, ATTRIBUTES, DOMAINS, PAPER_MEAN_SCALE

# Table 3 domains and Table 4 scales (rho = 0.1 and 0.001), paper sec. 5
TABLE4 = {c: (*DOMAINS[c], float(PAPER_MEAN_SCALE[0.1][c]), float(PAPER_MEAN_SCALE[0.001][c])) for c in ATTRIBUTES}


def test_toy_example_scale_and_epsilon():
    # paper sec. 4: 8 worlds, S(mean) = 8/3, rho = 1/3
    assert di.scale_for_rho(1 / 3, m=8, sensitive_range=8 / 3) == pytest.approx(2.128628267061142, rel=1e-15)
    assert di.epsilon_for_rho(1 / 3, m=8) == pytest.approx(1.2527629684953678, rel=1e-15)
    assert di.risk_bound(2.128628267061142, m=8, sensitive_range=8 / 3) == pytest.approx(1 / 3, rel=1e-15)


@pytest.mark.parametrize("name", sorted(TABLE4))
def test_table4_mean_scales(name):
    lo, hi, lam1, lam3 = TABLE4[name]
    m, s = hi - lo + 1, (hi - lo) / ADULT_N
    got1 = di.scale_for_rho(0.1, m=m, sensitive_range=s)
    got3 = di.scale_for_rho(0.001, m=m, sensitive_range=s)
    if name == "hours-per-week":
        assert got1 == pytest.approx(lam1, rel=1e-14)
    else:
        assert round(got1, 4) == lam1
    if np.isinf(lam3):
        assert got3 == np.inf
    else:
        assert round(got3, 4) == lam3


def test_table4_from_the_data(adult):
    for name, (lo, hi, lam1, _) in TABLE4.items():
        col = adult[name]
        assert col.size == ADULT_N
        assert (col.min(), col.max()) == (lo, hi)
        got = di.scale_for_rho(0.1, m=hi - lo + 1, sensitive_range=(col.max() - col.min()) / col.size)
        assert round(got, 4) == round(lam1, 4)


def test_figure3_capital_gain_epsilons():
    rho = 0.5 / 8.0 ** np.arange(6)
    eps = di.epsilon_for_rho(rho, m=100000)
    np.testing.assert_array_equal(np.round(eps, 3), [11.513, 8.805, 6.669, 4.582, 2.502, 0.423])


def test_edge_values():
    assert di.epsilon_for_rho(1.0, m=10) == np.inf
    assert di.scale_for_rho(1.0, m=10, sensitive_range=2.0) == 0.0
    assert di.epsilon_for_rho(0.1, m=10) == 0.0  # rho = 1/m: unattainable
    assert di.scale_for_rho(di.min_rho(7), m=7, sensitive_range=1.0) == np.inf
    assert 0 < di.epsilon_for_rho(np.nextafter(1 / 7, 1), m=7) < 1e-15
    assert di.scale_for_rho(0.1, m=10, sensitive_range=2.0) == np.inf
    assert di.scale_for_rho(0.05, m=10, sensitive_range=2.0) == np.inf
    assert di.epsilon_for_rho(0.0, m=10) == 0.0
    assert di.scale_for_rho(0.0, m=10, sensitive_range=2.0) == np.inf
    # one world: the adversary is always right; only rho = 1 is met (no noise)
    assert di.scale_for_rho(0.999, m=1, sensitive_range=2.0) == np.inf
    assert di.scale_for_rho(1.0, m=1, sensitive_range=2.0) == 0.0
    # a query that does not depend on the unknown individual
    assert di.scale_for_rho(0.1, m=10, sensitive_range=0.0) == 0.0
    assert di.scale_for_rho(0.05, m=10, sensitive_range=0.0) == np.inf
    assert di.risk_bound(0.0, m=10, sensitive_range=2.0) == 1.0
    assert di.risk_bound(np.inf, m=10, sensitive_range=2.0) == pytest.approx(0.1, rel=1e-15)
    assert di.risk_bound(0.0, m=10, sensitive_range=0.0) == pytest.approx(0.1, rel=1e-15)
    assert di.rho_for_epsilon(np.inf, m=5) == 1.0
    assert di.rho_for_epsilon(0.0, m=5) == 0.2
    assert di.min_rho(4) == 0.25


def test_broadcasting_and_types():
    rho = np.array([[0.2], [0.5]])
    m = np.array([10, 100, 1000])
    out = di.scale_for_rho(rho, m=m, sensitive_range=1.0)
    assert out.shape == (2, 3) and out.dtype == np.float64
    for i in range(2):
        for j in range(3):
            assert out[i, j] == di.scale_for_rho(float(rho[i, 0]), m=int(m[j]), sensitive_range=1.0)
    assert isinstance(di.epsilon_for_rho(0.3, m=10), float)
    assert isinstance(di.epsilon_for_rho([0.3], m=10), np.ndarray)
    r = np.array([0.3, 0.4])
    di.epsilon_for_rho(r, m=10)
    np.testing.assert_array_equal(r, [0.3, 0.4])  # inputs untouched


def test_calibrations_are_conservative_and_tight():
    rng = np.random.default_rng(7)
    m = np.floor(10 ** rng.uniform(0.3, 7, 20000)) + 1
    rho = rng.uniform(0, 1, m.size)
    s = 10 ** rng.uniform(-6, 3, m.size)
    lam = di.scale_for_rho(rho, m=m, sensitive_range=s)
    eps = di.epsilon_for_rho(rho, m=m)
    live = np.isfinite(lam) & (lam > 0)
    feasible = (rho > 1 / m) & (rho < 1)
    np.testing.assert_array_equal(live, feasible)  # inf or 0 only where documented
    np.testing.assert_array_equal(np.isfinite(eps) & (eps > 0), feasible)
    assert np.all(di.risk_bound(lam[live], m=m[live], sensitive_range=s[live]) <= rho[live])
    assert np.all(di.rho_for_epsilon(eps[live], m=m[live]) <= rho[live])
    # and within a few ulps of the formula
    naive = s[live] / np.log((m[live] - 1) * rho[live] / (1 - rho[live]))
    np.testing.assert_allclose(lam[live], naive, rtol=1e-12)


def test_calibration_regressions():
    # scales above 1 and rho near 1 (a nudge that moved the wrong way or ran out)
    assert di.scale_for_rho(0.9, m=10**4, sensitive_range=70.0) == pytest.approx(70.0 / np.log(9999 * 9.0), rel=1e-13)
    eps = di.epsilon_for_rho(0.99972, m=99)
    assert eps == pytest.approx(np.log(98 * 0.99972 / (1 - 0.99972)), rel=1e-11)
    assert di.rho_for_epsilon(eps, m=99) <= 0.99972
    rho = np.linspace(0.99, 1.0, 100001)[:-1]
    eps = di.epsilon_for_rho(rho, m=99)
    assert np.all(np.isfinite(eps) & (eps > 0)) and np.all(di.rho_for_epsilon(eps, m=99) <= rho)
    lam = di.scale_for_rho(rho, m=99, sensitive_range=1e5)
    assert np.all(np.isfinite(lam) & (lam > 0)) and np.all(di.risk_bound(lam, m=99, sensitive_range=1e5) <= rho)


def test_rho_for_epsilon_inverts_epsilon_for_rho():
    rho = np.linspace(0.02, 0.98, 97)
    eps = di.epsilon_for_rho(rho, m=50)
    np.testing.assert_allclose(di.rho_for_epsilon(eps, m=50), rho, rtol=1e-14)


def test_effective_worlds():
    assert di.effective_worlds([1, 1, 2]) == 2.0
    assert di.effective_worlds([0.25, 0.25, 0.25, 0.25]) == 4.0
    np.testing.assert_array_equal(di.effective_worlds([[1, 1], [1, 3]]), [2.0, 4 / 3])
    np.testing.assert_array_equal(di.effective_worlds([[1, 1], [1, 3]], axis=0), [2.0, 4 / 3])


@pytest.mark.parametrize("axis", [2, -3, 1.0, True, "0"])
def test_effective_worlds_bad_axis_is_a_value_error(axis):
    with pytest.raises(ValueError, match="axis"):
        di.effective_worlds([[1, 1], [1, 3]], axis=axis)


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: di.epsilon_for_rho(1.5, m=10), "rho"),
        (lambda: di.epsilon_for_rho(-0.1, m=10), "rho"),
        (lambda: di.epsilon_for_rho(np.nan, m=10), "rho"),
        (lambda: di.epsilon_for_rho(0.5, m=0.5), "m"),
        (lambda: di.epsilon_for_rho(0.5, m=np.inf), "m"),
        (lambda: di.epsilon_for_rho(0.5, m=np.nan), "m"),
        (lambda: di.scale_for_rho(0.5, m=10, sensitive_range=-1.0), "sensitive_range"),
        (lambda: di.scale_for_rho(0.5, m=10, sensitive_range=np.inf), "sensitive_range"),
        (lambda: di.risk_bound(-1.0, m=10, sensitive_range=1.0), "scale"),
        (lambda: di.risk_bound(np.nan, m=10, sensitive_range=1.0), "scale"),
        (lambda: di.rho_for_epsilon(-1.0, m=10), "epsilon"),
        (lambda: di.min_rho(0), "m"),
        (lambda: di.effective_worlds([1, -1]), "prior"),
        (lambda: di.effective_worlds([0, 0]), "prior"),
        (lambda: di.effective_worlds([]), "prior"),
        (lambda: di.effective_worlds([1, np.nan]), "prior"),
    ],
)
def test_bad_input_names_the_argument(call, name):
    with pytest.raises(ValueError, match=name):
        call()


def test_non_numeric_input_is_a_type_error():
    with pytest.raises(TypeError, match="rho"):
        di.epsilon_for_rho("0.5", m=10)
    with pytest.raises(TypeError, match="m"):
        di.epsilon_for_rho(0.5, m=1 + 2j)
