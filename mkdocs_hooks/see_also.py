"""Griffe extension: the entries of numpy "See Also" sections become links.

Griffe's numpy parser keeps a "See Also" section as plain text (an
admonition), so ``tight_scale : The exact scale.`` would render as words.
This extension rewrites each section, in the copy of the docstrings that
mkdocstrings renders (the modules' ``__doc__`` are untouched), into a list
of cross-references, ``[`tight_scale`][diffident._calibrate.tight.tight_scale]``,
which mkdocs-autorefs turns into links to the entries' anchors.

A name is looked up as ``tests/docs/test_docstrings.py`` checks it: in the
method's class, then in the docstring's module, then in ``diffident``,
``diffident.rr`` and ``diffident.dask``; a name that starts with
``diffident.`` is looked up from the package. A name found nowhere is kept
as a cross-reference to itself, so that ``mkdocs build --strict`` fails on
it rather than rendering a dead entry.
"""

from __future__ import annotations

import re
from typing import Any

import griffe

SECTION = re.compile(r"^(?P<indent>[ \t]*)See Also\n(?P=indent)-{3,}[ \t]*\n", re.M)
# The heading of the next section ("Notes", underlined), where the See Also section ends.
NEXT_SECTION = re.compile(r"^[ \t]*\S[^\n]*\n[ \t]*-{3,}[ \t]*$", re.M)
# One entry: "name", "name : description" or "name1, name2 : description".
ENTRY = re.compile(r"^(?P<names>[\w.]+(?:\s*,\s*[\w.]+)*)\s*(?::\s*(?P<description>.*))?$")
# Namespaces searched after the docstring's own module (as tests/docs/test_docstrings.py does).
NAMESPACES = ("rr", "dask")


def _lookup(scope: griffe.Object | griffe.Alias, name: str) -> griffe.Object | griffe.Alias | None:
    target = scope
    for part in name.split("."):
        try:
            target = target.members[part]
        except (KeyError, griffe.AliasResolutionError):
            return None
    return target


def _identifier(obj: griffe.Object, name: str, package: griffe.Module) -> str:
    """The path that the name resolves to, as mkdocs-autorefs knows it."""
    scopes: list[griffe.Object | griffe.Alias | None] = []
    if name.startswith(f"{package.name}."):
        scopes.append(package)
        name = name.split(".", 1)[1]
    else:
        if obj.is_function and obj.parent is not None and obj.parent.is_class:
            scopes.append(obj.parent)
        scopes += [obj.module, package, *(_lookup(package, space) for space in NAMESPACES)]
    for scope in scopes:
        if scope is None:
            continue
        found = _lookup(scope, name)
        if found is not None:
            try:
                return found.final_target.path if isinstance(found, griffe.Alias) else found.path
            except griffe.AliasResolutionError:
                continue
    return name


def _rewrite(obj: griffe.Object, text: str, package: griffe.Module) -> str:
    """The docstring with its See Also section made of cross-references."""
    match = SECTION.search(text)
    if match is None:
        return text
    start = match.end()
    following = NEXT_SECTION.search(text, start)
    end = following.start() if following else len(text)
    indent = match["indent"]
    items: list[list[str]] = []
    for line in text[start:end].splitlines():
        body = line[len(indent):] if line.startswith(indent) else line.lstrip()
        if not body.strip():
            continue
        entry = ENTRY.match(body) if not body[0].isspace() else None
        if entry is None:  # a description's continuation line
            if not items:
                return text  # not the numpydoc layout: leave the section as it is
            items[-1].append(body.strip())
            continue
        names = [n.strip() for n in entry["names"].split(",")]
        links = ", ".join(f"[`{n}`][{_identifier(obj, n, package)}]" for n in names)
        items.append([f"{links}: {entry['description']}" if entry["description"] else links])
    if not items:
        return text
    listing = "".join(f"{indent}- {' '.join(item)}\n" for item in items)
    return f"{text[:start]}{listing}\n{text[end:]}"


class SeeAlsoLinks(griffe.Extension):
    """Turn the entries of numpy "See Also" sections into cross-references."""

    def on_package(self, *, pkg: griffe.Module, loader: griffe.GriffeLoader, **kwargs: Any) -> None:
        """Rewrite the See Also sections of every docstring in the package."""
        stack: list[griffe.Object] = [pkg]
        while stack:
            obj = stack.pop()
            if obj.docstring is not None and "See Also" in obj.docstring.value:
                obj.docstring.value = _rewrite(obj, obj.docstring.value, pkg)
            stack += [member for member in obj.members.values() if isinstance(member, griffe.Object)]
