"""Every public name has a complete numpydoc docstring.

The API reference is generated from the docstrings by mkdocstrings (numpy
style), so each public function, method, class and property must render a
one-line summary, its parameters, what it returns, what it raises and an
example that runs.  The public names are enumerated from the ``__all__``
lists and the classes' own members, so a new name is covered the day it is
added.
"""

import doctest
import importlib
import inspect
import re

import pytest

pytest.importorskip("numpydoc")
from numpydoc.docscrape import NumpyDocString  # noqa: E402
from numpydoc.validate import validate  # noqa: E402

import diffident  # noqa: E402
import diffident.dask  # noqa: E402  (imports without dask: it loads dask lazily)
import diffident.dp  # noqa: E402
import diffident.replicate  # noqa: E402
import diffident.rr  # noqa: E402

MODULES = (diffident, diffident.dp, diffident.rr, diffident.dask, diffident.replicate)

# The numpydoc checks that must pass (numpydoc.validate's codes).  Left out:
# GL01 and GL05 (whitespace style of the opening line and tabs: nothing that
# renders), ES01 (an extended summary is welcome, not required: a one-line
# summary says it all for some names), SA01 (See Also is optional) and GL09
# (deprecations: there are none).  Everything that decides whether the
# reference renders a complete entry is in: a one-line summary that is a
# sentence (SS*), the sections known and in numpydoc's order (GL06, GL07),
# every parameter documented in signature order with a type and a sentence
# (PR*), a described Returns or Yields section (RT*, YD01), See Also entries
# with a description (SA02-SA04) and an Examples section (EX01).  RT02 (a
# single return value given a name) keeps the Returns table from showing a
# name that is not in the signature.
CODES = frozenset(
    "GL02 GL03 GL06 GL07 GL08 GL10 "
    "SS01 SS02 SS03 SS04 SS05 SS06 "
    "PR01 PR02 PR03 PR04 PR05 PR06 PR07 PR08 PR09 PR10 "
    "RT01 RT02 RT03 RT04 RT05 YD01 "
    "SA02 SA03 SA04 EX01".split()
)

# Functions and methods that need no Raises section, with the reason.  Add an
# entry only for one that genuinely cannot raise.
NO_RAISES = {
    # the advantage of a mechanism value: no argument, and the value was checked when it was built
    **{f"diffident.{module}.{cls}.advantage": "no argument"
       for module, classes in (("_mechanisms.base", ("Mechanism",)),
                               ("_mechanisms.guarantees", ("ApproxDP", "PureDP")),
                               ("_mechanisms.noise", ("Laplace", "Gaussian", "RandomizedResponse")),
                               ("_mechanisms.integer", ("DiscreteLaplace", "DiscreteGaussian")))
       for cls in classes},
    # measured from a PLD: a missing dp-accounting (ImportError) is documented on the class
    **{f"diffident._mechanisms.pld.{cls}.advantage": "no argument; the ImportError is on the class"
       for cls in ("Composition", "SubsampledGaussian")},
    "diffident._numerics.budget.OverBudget": "an exception: what sweep raises",
}

# Sphinx roles (:func:`x`) render literally in Markdown: plain `x` instead.
SPHINX_ROLE = re.compile(r":(?:py:)?(?:func|meth|class|mod|attr|obj|exc|data|const|ref):`")


def _path(obj):
    return f"{obj.__module__}.{obj.__qualname__}"


def _own_members(cls):
    """Public methods and properties defined by the class or a diffident base."""
    seen = {}
    for klass in cls.__mro__:
        if not klass.__module__.startswith("diffident"):
            continue
        for name, member in vars(klass).items():
            if name.startswith("_") or name in seen:
                continue
            if inspect.isfunction(member) or isinstance(member, (property, classmethod, staticmethod)):
                seen[name] = member
    return seen


def public_objects():
    """(import path, object, kind) for every public name; kind is one of
    'function', 'class', 'warning', 'method' and 'property'."""
    out = {}
    for module in MODULES:
        for name in module.__all__:
            obj = getattr(module, name)
            if inspect.ismodule(obj) or not callable(obj):  # diffident.dp, .rr: through their own __all__;
                continue                                      # constants (replicate.ATTRIBUTES): no docstring
            if inspect.isclass(obj):
                if issubclass(obj, Warning):
                    out[_path(obj)] = (obj, "warning")
                    continue
                out[_path(obj)] = (obj, "class")
                for attr, member in _own_members(obj).items():
                    kind = "property" if isinstance(member, property) else "method"
                    out[f"{_path(obj)}.{attr}"] = (getattr(obj, attr) if kind == "method" else member, kind)
            else:
                out[_path(obj)] = (obj, "function")
    return out


PUBLIC = public_objects()
CALLABLES = [p for p, (_, kind) in PUBLIC.items() if kind in ("function", "method", "class")]


def _doc(path):
    obj, kind = PUBLIC[path]
    return inspect.getdoc(obj.fget if kind == "property" else obj) or ""


def test_enumeration_finds_the_public_api():
    for path in (
        "diffident._risk.worlds_count.min_rho",
        "diffident._worlds.sets.Domain",
        "diffident._worlds.sets.Domain.values",
        "diffident._worlds.sets.Domain.size",
        "diffident._sweep.table.SweepTable.to_csv",
        "diffident._sweep.table.SweepTable.rows",
        "diffident.dp.ClassicGaussianWarning",
        "diffident.dp.epsilon_per_release",
        "diffident.rr.rho",
        "diffident.dask.sweep",
        "diffident.replicate.load_adult",
    ):
        assert path in PUBLIC, path
    # the names of diffident.dp are the top-level ones; the namespaces dp and rr are no entries
    assert len(PUBLIC) >= len(diffident.__all__) - 2 + len(diffident.rr.__all__) + len(diffident.dask.__all__)


@pytest.mark.parametrize("path", sorted(PUBLIC))
def test_numpydoc_validates(path):
    errors = [f"{code} {message}" for code, message in validate(path)["errors"] if code in CODES]
    assert not errors, f"{path}:\n  " + "\n  ".join(errors)


@pytest.mark.parametrize("path", sorted(CALLABLES))
def test_raises_section(path):
    if path in NO_RAISES:
        return
    assert NumpyDocString(_doc(path))["Raises"], f"{path} documents no Raises section"


@pytest.mark.parametrize("path", sorted(PUBLIC))
def test_example_output_is_checked(path):
    """At least one example shows its output (which tests/docs/test_docs.py compares)."""
    examples = doctest.DocTestParser().get_examples(_doc(path))
    assert examples, f"{path} has no doctest example"
    assert any(ex.want.strip() for ex in examples), f"{path}: no example shows an output to check"


@pytest.mark.parametrize("path", sorted(PUBLIC))
def test_see_also_names_exist(path):
    """See Also names resolve: in the package, its own module or its class."""
    obj, kind = PUBLIC[path]
    module = importlib.import_module(path.rsplit(".", 2 if kind in ("method", "property") else 1)[0])
    scopes = [module, diffident, diffident.rr, diffident.dask]
    if kind in ("method", "property"):
        scopes.insert(0, getattr(module, path.rsplit(".", 2)[1]))
    for group in NumpyDocString(_doc(path))["See Also"]:
        for name, _role in group[0]:
            if name.startswith("diffident."):
                scope, parts = diffident, name.split(".")[1:]
            else:
                scope, parts = None, name.split(".")
            found = False
            for start in ([scope] if scope is not None else scopes):
                target = start
                for part in parts:
                    target = getattr(target, part, None)
                found = found or target is not None
            assert found, f"{path}: See Also names {name!r}, which does not exist"


@pytest.mark.parametrize("path", sorted(PUBLIC))
def test_no_sphinx_roles(path):
    assert not SPHINX_ROLE.search(_doc(path)), f"{path} uses a Sphinx role; write `name` instead"


def test_no_sphinx_roles_in_rendered_module_docstrings():
    for module in MODULES:
        assert not SPHINX_ROLE.search(module.__doc__ or ""), module.__name__


def test_slot_attributes_are_documented():
    """Public attributes kept in __slots__ (no docstring of their own) are
    listed in the class's Attributes section."""
    for path, (obj, kind) in PUBLIC.items():
        if kind != "class":
            continue
        slots = [s for s in getattr(obj, "__slots__", ()) if not s.startswith("_")]
        documented = {name for p in NumpyDocString(_doc(path))["Attributes"] for name in p.name.split(", ")}
        missing = set(slots) - documented
        assert not missing, f"{path}: attributes {sorted(missing)} not in its Attributes section"
