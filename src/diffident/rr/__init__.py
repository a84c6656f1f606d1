"""Randomized response in the local model (Mathematics page, section 7).

The two-parameter scheme keeps a bit x with probability ``1 - flip`` and
otherwise reports 0 with probability ``zero``, 1 with ``1 - zero``:
`epsilon`, `epsilon_bound`, `posterior`, `estimate`, `variance`, `sample`
(``p=`` and ``k=``, their former names, are deprecated).  Warner's coin and
d-category (k-ary) randomized response, with p the truth probability (as
`diffident.RandomizedResponse`): `warner_p`, `warner_epsilon`,
`warner_estimate`, `kary_p`, `kary_epsilon`, `kary_estimate`,
`kary_sample`.  One respondent's identifiability: `identification_risk`,
`rho`.  Edge values are results, not errors; accuracy is a few ulps (the RR
and Dask algorithms page).
"""

from ._estimators import estimate, kary_estimate, variance, warner_estimate
from ._posteriors import identification_risk, posterior, rho
from ._privacy import epsilon, epsilon_bound, kary_epsilon, kary_p, warner_epsilon, warner_p
from ._samplers import kary_sample, sample

__all__ = [
    "epsilon",
    "epsilon_bound",
    "posterior",
    "estimate",
    "variance",
    "sample",
    "warner_p",
    "warner_epsilon",
    "warner_estimate",
    "kary_p",
    "kary_epsilon",
    "kary_estimate",
    "kary_sample",
    "identification_risk",
    "rho",
]

# The code lives in the private modules; each name is documented, doctested
# (doctest.testmod(diffident.rr)) and pickled as diffident.rr.<name>.
for _name in __all__:
    globals()[_name].__module__ = __name__
del _name
