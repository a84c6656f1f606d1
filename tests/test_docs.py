"""The examples in the docstrings and the README run and give what they say."""

import doctest
import re
from pathlib import Path

import pytest

import diffident
from diffident import dp, replicate, rr
from diffident._calibrate import neighbours as _neighbours
from diffident._mechanisms import base as _mechanisms
from diffident._mechanisms import calibrate as _calibrate_mech
from diffident._mechanisms import explain as _explain
from diffident._mechanisms import integer as _mechanisms_integer
from diffident._mechanisms import noise as _mechanisms_noise
from diffident._mechanisms import pld as _mechanisms_pld
from diffident._mechanisms import profiles as _profiles
from diffident._numerics import search as _search
from diffident._risk import chunked as _chunked
from diffident._risk import closed_form as _closed_form
from diffident._risk import expected as _expected
from diffident._risk import gaussian as _gaussian
from diffident._risk import membership as _membership
from diffident._risk import posterior as _posterior
from diffident._risk import releases as _multi
from diffident._risk import worst_case as _worst_case
from diffident._sweep import columns as _columns
from diffident._sweep import sweep as _sweep
from diffident._sweep import table as _table
from diffident._worlds import possible as _possible

README = Path(__file__).resolve().parents[1] / "README.md"


@pytest.mark.parametrize("module", [_closed_form, _posterior, _worst_case, _possible, _sweep, _table, _columns,
                                    _expected, _multi, _gaussian, dp,
                                    _membership, _mechanisms, _mechanisms_noise, _mechanisms_integer, _mechanisms_pld,
                                    _profiles, _calibrate_mech, _explain,
                                    _chunked, _neighbours, _search, replicate, rr])
def test_docstring_examples(module):
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0
    assert result.failed == 0


def test_every_public_name_is_documented():
    for name in diffident.__all__:
        if name in ("rr", "dp"):  # namespaces: their functions are checked through the doctests above
            continue
        doc = getattr(diffident, name).__doc__
        assert doc and "Examples" in doc, name


def test_readme_python_example_runs():
    text = README.read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert blocks
    ns = {}
    for block in blocks:
        exec(compile(block, "README.md", "exec"), ns)
    assert ns["lam"] == pytest.approx(2.128628267061142, rel=1e-14)
    assert (ns["eps_tight"] >= ns["eps_paper"]).all()


def test_dask_docstring_examples():
    pytest.importorskip("dask.array")
    import diffident.dask as ddask

    result = doctest.testmod(ddask, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0
