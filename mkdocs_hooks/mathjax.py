"""Serve MathJax from the site itself, not from a CDN.

The ``django-static-mathjax`` package (in the ``docs`` extra; it needs no
Django to be installed) ships the MathJax 3 distribution. This mkdocs hook
adds its ``tex-svg.js`` bundle to the site under ``javascripts/mathjax/``,
with the TeX extensions that MathJax loads on demand beside it and
MathJax's licence, so that the maths renders offline and from ``file://``.
The SVG output draws its glyphs itself: it needs no font files, which a
browser will not load from ``file://``.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files

TARGET = "javascripts/mathjax"
# Paths inside MathJax's ``es5`` folder that the site serves.
BUNDLE = "tex-svg.js"
EXTENSIONS = "input/tex/extensions"


def _distribution() -> Path:
    """The folder of the MathJax distribution that the package ships."""
    try:
        root = Path(str(resources.files("mathjax"))) / "static" / "mathjax"
    except ModuleNotFoundError as exc:
        raise PluginError(
            "MathJax is served from the site: install the docs extra (pip install -e '.[docs]'), "
            "which brings the django-static-mathjax package"
        ) from exc
    if not (root / "es5" / BUNDLE).is_file():
        raise PluginError(f"no MathJax bundle at {root / 'es5' / BUNDLE}: reinstall django-static-mathjax")
    return root


def on_files(files: Files, config: MkDocsConfig) -> Files:
    """Add the MathJax bundle, its TeX extensions and its licence to the site."""
    root = _distribution()
    es5 = root / "es5"
    sources = [es5 / BUNDLE, *sorted((es5 / EXTENSIONS).rglob("*.js"))]
    for path in sources:
        uri = f"{TARGET}/{path.relative_to(es5).as_posix()}"
        files.append(File.generated(config, uri, abs_src_path=str(path)))
    files.append(File.generated(config, f"{TARGET}/LICENSE", abs_src_path=str(root / "LICENSE")))
    return files
