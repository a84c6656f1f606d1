"""Independent 60-digit mpmath reference for diffident's computations."""

from mpmath import mp, mpf

from . import _mpmath_beyond, _mpmath_core, _mpmath_expected, _mpmath_integer, _mpmath_mechanisms
from ._mpmath_beyond import *  # noqa: F403  (the names of __all__ below)
from ._mpmath_core import *  # noqa: F403
from ._mpmath_expected import *  # noqa: F403
from ._mpmath_integer import *  # noqa: F403
from ._mpmath_mechanisms import *  # noqa: F403

__all__ = ["mp", "mpf", *_mpmath_core.__all__, *_mpmath_beyond.__all__, *_mpmath_expected.__all__,
           *_mpmath_integer.__all__, *_mpmath_mechanisms.__all__]


def _self_check():
    """Print the Mathematics page's check values next to the reference's own."""
    c = _mpmath_core
    with mp.workdps(c.DPS):
        # section 2: f = mean of {1,2,3,x}, x in {4,5,10}; eps = 2, S = 9/4
        vals = [2.5, 2.75, 4.0]
        print("sec2 posterior of world 3:", float(c.disclosure_risk(vals, response=5.041, scale=(9 / 4) / 2, world=2)))
        means = [2, 8 / 3, 3, 10 / 3, 11 / 3, 4, 13 / 3, 14 / 3]
        lam = float(c.scale_for_rho(1 / 3, m=8, sensitive_range=8 / 3))
        print("sec3 lam:", lam, "eps:", float(c.epsilon_for_rho(1 / 3, m=8)))
        print("sec3 risk world 1 at R=2:", float(c.disclosure_risk(means, response=2.0, scale=lam, world=0)))
        ts = c.tight_scale(means, rho=1 / 3)
        print("sec4 tight eps (mean):", float((mpf(14) / 3 - 2) / ts))
        print("sec4 worst:", c.worst_case_risk(means, scale=float(ts)))
        med = [2, 3, 3, 3, 3, 3, 3, 3]
        print("median tight eps:", float(1 / c.tight_scale(med, rho=1 / 3)),
              "bound eps:", float(c.epsilon_for_rho(1 / 3, m=8)))
        print("median risk at bound scale:",
              c.disclosure_risk(med, response=2.0, scale=float(c.scale_for_rho(1 / 3, m=8, sensitive_range=1.0)),
                                world=0))


if __name__ == "__main__":
    _self_check()
