"""The mkdocs hook that links the docstrings' citations of the Mathematics page."""

import importlib.util
import pathlib
import types

import pytest

pytest.importorskip("markdown", reason="the docs hooks run under mkdocs (the `docs` extra)")

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _hook():
    spec = importlib.util.spec_from_file_location("maths_links", ROOT / "mkdocs_hooks" / "maths_links.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


class _Files:
    def __init__(self, url):
        self.maths = types.SimpleNamespace(abs_src_path=str(ROOT / "docs" / "maths.md"), url=url)

    def get_file_from_path(self, path):
        return self.maths if path == "maths.md" else None


def _page(url, src="reference/closed-form.md"):
    return types.SimpleNamespace(file=types.SimpleNamespace(url=url, src_uri=src))


@pytest.mark.parametrize("page_url, maths_url, href", [
    ("reference/closed-form/", "maths/", "../../maths/"),       # directory URLs
    ("reference/closed-form.html", "maths.html", "../maths.html"),  # file:// friendly URLs
    ("", "maths/", "maths/"),                                    # the home page
    ("index.html", "maths.html", "maths.html"),
])
def test_citations_link_to_their_section(page_url, maths_url, href):
    hook = _hook()
    hook.on_files(_Files(maths_url), None)
    html = "<p>the bound (Mathematics page,\neq. 3.2) and <code>Mathematics page, section 4</code></p>"
    out = hook.on_page_content(html, _page(page_url), None, None)
    assert f'<a href="{href}#3-the-papers-closed-form-calibration">Mathematics page,\neq. 3.2</a>' in out
    assert "<code>Mathematics page, section 4</code>" in out  # code is left alone


def test_a_section_the_page_lacks_fails_the_build():
    hook = _hook()
    hook.on_files(_Files("maths/"), None)
    with pytest.raises(ValueError, match="lacks"):
        missing = "Mathematics page, " + "section 99"  # (built: the page test checks literal citations)
        hook.on_page_content(f"<p>{missing}</p>", _page("reference/x/"), None, None)
