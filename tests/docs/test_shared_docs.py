"""Docstring text written once (``%(name)s`` lines): expanded at import and
in the API reference, every entry used, none left unexpanded."""

import importlib.util
import inspect
import pathlib
import pkgutil
import re

import pytest

import diffident
from diffident._numerics.shared_docs import SHARED, expand

ROOT = pathlib.Path(__file__).resolve().parents[2]
PLACEHOLDER = re.compile(r"^\s*%\((\w+)\)s\s*$", re.M)


def _modules():
    for info in pkgutil.walk_packages(diffident.__path__, "diffident."):
        if info.name in ("diffident.__main__",):  # running it is the main job
            continue
        yield importlib.import_module(info.name)


def _docstrings():
    for module in _modules():
        for obj in vars(module).values():
            if getattr(obj, "__module__", None) != module.__name__:
                continue
            yield f"{module.__name__}.{getattr(obj, '__qualname__', obj)}", obj.__doc__ or ""
            if inspect.isclass(obj):
                for name, member in vars(obj).items():
                    doc = (member.fget.__doc__ if isinstance(member, property) else getattr(member, "__doc__", ""))
                    yield f"{module.__name__}.{obj.__qualname__}.{name}", doc or ""


def test_no_placeholder_is_left_at_run_time():
    left = [name for name, doc in _docstrings() if PLACEHOLDER.search(doc)]
    assert not left, left


def test_every_shared_entry_is_used_in_the_source():
    source = "\n".join(p.read_text() for p in (ROOT / "src" / "diffident").rglob("*.py"))
    used = set(PLACEHOLDER.findall(source))
    assert used <= set(SHARED), used - set(SHARED)
    assert set(SHARED) <= used, f"entries no docstring uses: {sorted(set(SHARED) - used)}"


def test_expand_keeps_the_line_indentation():
    doc = "Summary.\n\n    Parameters\n    ----------\n    %(q)s\n"
    assert expand(doc) == ("Summary.\n\n    Parameters\n    ----------\n"
                           "    q : float, optional\n"
                           "        The quantile of ``\"quantile\"``, in [0, 1] (default 0.5).\n")


def test_the_reference_expands_the_same_text():
    griffe = pytest.importorskip("griffe", reason="the API reference is built with the `docs` extra")
    spec = importlib.util.spec_from_file_location("shared_docs_hook", ROOT / "mkdocs_hooks" / "shared_docs.py")
    hook = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hook)
    package = griffe.load("diffident", search_paths=[str(ROOT / "src")], extensions=griffe.load_extensions(
        hook.SharedDocs()))
    rendered = package["_worlds.possible.world_values"].docstring.value
    assert "%(" not in rendered
    assert inspect.cleandoc(diffident.world_values.__doc__) == rendered
