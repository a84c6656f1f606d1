"""The examples in the docstrings and the README run and give what they say."""

import doctest
import importlib
import pkgutil
import re
from pathlib import Path

import pytest

import diffident

README = Path(__file__).resolve().parents[2] / "README.md"


def _modules_with_examples():
    """Every module of the package whose own docstrings hold an example
    (the optional backends' modules where their extra is installed)."""
    finder = doctest.DocTestFinder()
    names = [diffident.__name__] + [m.name for m in pkgutil.walk_packages(diffident.__path__, "diffident.")]
    out = []
    for name in names:
        if name in ("diffident.dask", "diffident.__main__") or name.startswith(("diffident.testing",
                                                                              "diffident._kernels")):
            continue  # (dask: below, with its extra; __main__ runs the main job; testing, kernels: no examples)
        module = importlib.import_module(name)
        if any(t.examples for t in finder.find(module)):
            out.append(name)
    return out


MODULES = _modules_with_examples()


def test_the_public_modules_have_examples():
    assert {"diffident._calibrate.tight", "diffident._mechanisms.guarantees", "diffident.dp",
            "diffident.rr", "diffident._sweep.sweep"} <= set(MODULES)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
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
