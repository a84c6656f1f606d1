"""The examples in the docstrings and the README run and give what they say."""

import doctest
import re
from pathlib import Path

import pytest

import diffident
from diffident import (
    _calibrate_mech,
    _chunked,
    _closed_form,
    _columns,
    _expected,
    _explain,
    _gaussian,
    _mechanisms,
    _mechanisms_integer,
    _mechanisms_noise,
    _mechanisms_pld,
    _membership,
    _multi,
    _neighbours,
    _possible,
    _posterior,
    _profiles,
    _search,
    _sweep,
    _table,
    _worst_case,
    dp,
    replicate,
    rr,
)

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
