"""The f-DP success bound beside the exact possible-worlds success.

Among m candidate worlds, uniformly likely, whose query values lie within
the mechanism's sensitivity of one another, the best adversary names the
true one with probability at most ``success_bound(m) = 1 - f(1/m)``, f the
trade-off curve of the mechanism.  `expected_risk` computes that
probability exactly from the worlds themselves; the bound must hold for
every world set, every noise and every scale.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import diffident as di

CONTINUOUS = {"laplace": di.Laplace, "gaussian": di.Gaussian}
INTEGER = {"discrete_laplace": di.DiscreteLaplace, "discrete_gaussian": di.DiscreteGaussian}


@settings(max_examples=150, deadline=None)
@given(
    st.sampled_from(sorted(CONTINUOUS)),
    st.lists(st.floats(0.0, 1.0), min_size=1, max_size=40),
    st.floats(1e-3, 1e3),
    st.floats(0.01, 100.0),
)
def test_continuous_worlds_never_beat_the_bound(noise, unit, spread, scale):
    values = np.asarray(unit) * spread
    m = values.size
    exact = di.expected_risk(values, scale=scale, noise=noise)
    bound = CONTINUOUS[noise](scale, sensitivity=spread).success_bound(m)
    assert exact <= bound * (1 + 1e-12) + 1e-15


@settings(max_examples=150, deadline=None)
@given(
    st.sampled_from(sorted(INTEGER)),
    st.lists(st.integers(0, 30), min_size=1, max_size=40),
    st.floats(0.05, 50.0),
)
def test_integer_worlds_never_beat_the_bound(noise, values, scale):
    values = np.asarray(values, dtype=float)
    spread = max(values.max() - values.min(), 1.0)
    exact = di.expected_risk(values, scale=scale, noise=noise)
    bound = INTEGER[noise](scale, sensitivity=spread).success_bound(values.size)
    assert exact <= bound * (1 + 1e-12) + 1e-15


@pytest.mark.parametrize("noise", sorted(CONTINUOUS | INTEGER))
@pytest.mark.parametrize("scale", [0.3, 1.0, 4.0])
def test_two_worlds_a_sensitivity_apart(noise, scale):
    # two worlds: the MAP success is (1 + advantage) / 2, below 1 - f(1/2)
    mech = (CONTINUOUS | INTEGER)[noise](scale, sensitivity=3)
    exact = di.expected_risk([0.0, 3.0], scale=scale, noise=noise)
    assert exact == pytest.approx((1 + mech.advantage()) / 2, rel=1e-12)
    assert exact < mech.success_bound(2)


def test_many_worlds_leave_a_gap():
    # 100 worlds spread over one sensitivity: the generic bound is loose,
    # which is what the exact possible-worlds number is for
    values = np.linspace(0.0, 1.0, 100)
    exact = di.expected_risk(values, scale=0.05)
    bound = di.Laplace(0.05).success_bound(100)
    assert 1 / 100 < exact < 0.2 < 0.99 < bound
