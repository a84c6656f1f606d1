"""The mathematics is cited from the documentation, and only from there.

The formulas the library computes are stated on the documentation's
Mathematics page (docs/maths.md), in numbered sections with numbered
equations; docstrings, comments and pages cite it ("Mathematics page,
section 4", "Mathematics page, eq. 3.2"). The developers' own notes are not
shipped, so no file the repository tracks may refer to them, and every
citation must name a section and an equation that the page has.
"""

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "maths.md"
# The developers' notes, spelt in two parts so that this file does not name them.
PRIVATE = ("MATH" + ".md").encode()
# Searched when git (or the repository) is not available, e.g. in an unpacked sdist.
WALK = ("src", "docs", "tests", "benchmarks", "README.md")
SKIP_DIRS = {"__pycache__", ".git", ".hypothesis", ".pytest_cache"}

SECTION = re.compile(r"^## (\d+)\. ", re.M)
TAG = re.compile(r"\\tag\{(\d+\.\d+)\}")
CITED_SECTIONS = re.compile(r"Mathematics\s+page,\s+sections?\s+(\d+(?:(?:\s*(?:,|-|and)\s*)\d+)*)")
CITED_EQUATIONS = re.compile(r"Mathematics\s+page,\s+eq\.\s+(\d+\.\d+)")


def _walked():
    out = []
    for name in WALK:
        path = ROOT / name
        if path.is_file():
            out.append(path)
        elif path.is_dir():
            out += [p for p in path.rglob("*")
                    if p.is_file() and p.suffix != ".pyc" and not SKIP_DIRS & set(p.relative_to(ROOT).parts)]
    return out


def tracked_files():
    """Every file git tracks (that exists in the work tree), or the walk above."""
    try:
        done = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return _walked()
    names = [n for n in done.stdout.decode("utf-8", "surrogateescape").split("\0") if n]
    if not names:
        return _walked()
    return [ROOT / n for n in names if (ROOT / n).is_file()]


def test_files_are_found():
    files = {p.relative_to(ROOT).as_posix() for p in tracked_files()}
    assert {"README.md", "docs/maths.md", "src/diffident/__init__.py", "tests/conftest.py"} <= files


def test_no_tracked_file_refers_to_the_private_notes():
    found = [p.relative_to(ROOT).as_posix() for p in tracked_files() if PRIVATE in p.read_bytes()]
    assert not found, f"these files cite the developers' notes; cite the Mathematics page instead: {found}"


def test_citations_name_sections_and_equations_of_the_page():
    text = PAGE.read_text()
    sections = {int(n) for n in SECTION.findall(text)}
    equations = set(TAG.findall(text))
    assert sections == set(range(1, max(sections) + 1)) and max(sections) >= 10  # numbered 1, 2, ... without a gap
    assert len(equations) >= 20
    bad = []
    for path in tracked_files():
        if path.suffix not in (".py", ".md"):
            continue
        where = path.relative_to(ROOT).as_posix()
        body = path.read_text(errors="replace")
        for match in CITED_SECTIONS.finditer(body):
            bad += [f"{where}: section {n}" for n in re.findall(r"\d+", match[1]) if int(n) not in sections]
        for match in CITED_EQUATIONS.finditer(body):
            if match[1] not in equations:
                bad.append(f"{where}: eq. {match[1]}")
    assert not bad, bad
