"""Griffe extension: expand the shared docstring text in the API reference.

A docstring line ``%(name)s`` stands for an entry of
``diffident._numerics.shared_docs.SHARED`` (a parameter written once for
many functions). At import the package expands it in ``__doc__``; griffe
reads the source, so this extension expands it in the copy that
mkdocstrings renders, with the same function.
"""

from __future__ import annotations

from typing import Any

import griffe

from diffident._numerics.shared_docs import expand


class SharedDocs(griffe.Extension):
    """Replace ``%(name)s`` lines with the shared text, before other extensions read the docstrings."""

    def on_package(self, *, pkg: griffe.Module, loader: griffe.GriffeLoader, **kwargs: Any) -> None:
        """Expand every docstring of the package."""
        stack: list[griffe.Object] = [pkg]
        while stack:
            obj = stack.pop()
            if obj.docstring is not None and "%(" in obj.docstring.value:
                obj.docstring.value = expand(obj.docstring.value)
            stack += [member for member in obj.members.values() if isinstance(member, griffe.Object)]
