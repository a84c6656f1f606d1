"""mkdocs hook: "Mathematics page, section N" in rendered docstrings becomes a link.

Docstrings cite the Mathematics page as plain text ("Mathematics page,
eq. 4.2"), which reads well in ``help()``; on the site each citation links
to the section it names (an equation ``N.k`` to section ``N``).  The
section anchors are read from ``maths.md``'s own headings, slugified as the
``toc`` extension does, so that a renamed heading cannot leave a dead link:
a citation of a section the page lacks fails the build.
"""

import posixpath
import re

from markdown.extensions.toc import slugify

MATHS = "maths.md"
CITATION = re.compile(r"Mathematics page,?\s+(?P<what>(?:sections?|eqs?\.)\s+(?P<n>\d+)(?:\.\d+)?)")
HEADING = re.compile(r"^## (?P<n>\d+)\. (?P<title>.+)$", re.MULTILINE)

_anchors: dict[str, str] = {}


def on_files(files, config):
    """Read the section anchors of the Mathematics page."""
    maths = files.get_file_from_path(MATHS)
    if maths is None:
        raise ValueError(f"the maths_links hook needs {MATHS} in the docs")
    with open(maths.abs_src_path, encoding="utf-8") as fh:
        text = fh.read()
    _anchors.clear()
    for h in HEADING.finditer(text):
        _anchors[h["n"]] = slugify(f"{h['n']}. {h['title']}", "-")
    _anchors["__url__"] = maths.url
    return files


def on_page_content(html, page, config, files):
    """Link each citation in the page's HTML (outside code) to its section."""
    if page.file.src_uri == MATHS:
        return html
    url, maths = page.file.url, _anchors["__url__"]
    base = url if url.endswith("/") else posixpath.dirname(url)  # the folder the page's links start from
    target = posixpath.relpath(maths, base or ".") + ("/" if maths.endswith("/") else "")

    def link(m):
        anchor = _anchors.get(m["n"])
        if anchor is None:
            raise ValueError(f"{page.file.src_uri}: {m[0]!r} cites a section the Mathematics page lacks")
        return f'<a href="{target}#{anchor}">{m[0]}</a>'

    # outside <code> and <pre>, and not inside a link already
    parts = re.split(r"(<(?:code|pre|a)\b.*?</(?:code|pre|a)>)", html, flags=re.DOTALL)
    return "".join(p if i % 2 else CITATION.sub(link, p) for i, p in enumerate(parts))
