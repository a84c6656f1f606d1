"""Every code example of the documentation site runs and shows what it prints.

Each page of ``docs/`` is run from top to bottom in one namespace, in a
scratch working directory (holding ``adult.csv`` when the page needs it):

* ```` ```python ```` blocks are executed;
* ```` ```pycon ```` blocks are doctests: their output is checked (with
  ``ELLIPSIS`` and ``NORMALIZE_WHITESPACE``);
* ```` ```console ```` blocks: every ``$ diffident ...`` line runs the
  command line in-process (a line ending in a backslash goes on on the next
  one) and the lines after it, when given, are its expected output
  (``...`` matches anything);
* ```` ```bash ```` blocks: every ``diffident`` command in them runs (exit
  status 0); other commands (``pip``, ``python``, ``mkdocs``, ``asv``) are
  installation or developer steps the CI runs elsewhere.

A page declares what it needs in an HTML comment, invisible on the site:
``<!-- needs: adult -->`` (the UCI Adult file, from ``DIFFIDENT_ADULT_CSV``),
``<!-- needs: dask -->``, ``<!-- needs: matplotlib -->``, ``<!-- needs: xarray -->``,
``<!-- needs: opendp -->``.
"""

import contextlib
import doctest
import io
import os
import re
import shlex
from pathlib import Path

import pytest
from conftest import require_adult

DOCS = Path(__file__).resolve().parents[2] / "docs"
PAGES = sorted(p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md"))

FENCE = re.compile(r"^(?P<indent>[ \t]*)```(?P<lang>[\w-]*)[^\n]*\n(?P<body>.*?)^(?P=indent)```[ \t]*$", re.M | re.S)
NEEDS = re.compile(r"<!--\s*needs:\s*(?P<what>[\w, -]+?)\s*-->")
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
# Programs a bash/console block may name besides `diffident`; they are not run here.
NOT_RUN = {"python", "python3", "pip", "mkdocs", "asv", "git", "cd", "export", "cp", "ls", "bash", "pytest-benchmark"}


def blocks(text):
    """(language, body, line number) of every fenced block, dedented."""
    for match in FENCE.finditer(text):
        indent = match["indent"]
        body = "\n".join(line[len(indent):] if line.startswith(indent) else line
                         for line in match["body"].splitlines())
        yield match["lang"], body + "\n", text.count("\n", 0, match.start()) + 2


def run_cli(command, where):
    """Run one `diffident ...` command line in-process: (exit status, stdout)."""
    from diffident import cli

    argv = shlex.split(command)
    assert argv[0] == "diffident", f"{where}: not a diffident command: {command!r}"
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = cli.main(argv[1:])
        except SystemExit as exc:
            status = exc.code
    assert status in (0, None), f"{where}: `{command}` exited {status}: {err.getvalue()}"
    return out.getvalue()


def check_output(expected, got, where, command):
    checker = doctest.OutputChecker()
    if not checker.check_output(expected, got, FLAGS):
        example = doctest.Example(command, expected)
        pytest.fail(f"{where}: {checker.output_difference(example, got, FLAGS)}")


def run_console(body, where):
    lines = body.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if not line.startswith("$ "):
            assert not line.strip(), f"{where}: output without a command: {line!r}"
            continue
        command = line[2:].strip()
        while command.endswith("\\") and i < len(lines):  # continued on the next line
            command = command[:-1].rstrip() + " " + lines[i].strip()
            i += 1
        expected = []
        while i < len(lines) and not lines[i].startswith("$ "):
            expected.append(lines[i])
            i += 1
        program = shlex.split(command)[0]
        if program != "diffident":
            assert program in NOT_RUN, f"{where}: unknown program in {command!r}"
            continue
        got = run_cli(command, where)
        want = "\n".join(expected).strip("\n")
        if want:
            check_output(want + "\n", got, where, command)


def run_bash(body, where):
    for line in body.replace("\\\n", " ").splitlines():  # a line ending in a backslash goes on
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        for part in line.split("&&"):
            words = shlex.split(part, comments=True)
            if not words:
                continue
            program = words[0]
            if program == "diffident":
                run_cli(shlex.join(words), where)
            else:
                assert program in NOT_RUN, f"{where}: unknown program in {part!r}"


def test_pages_found():
    assert {"index.md", "getting-started.md", "concepts.md", "tutorial.md", "performance.md"} <= set(PAGES)


@pytest.mark.parametrize("page", PAGES)
def test_page_examples(page, tmp_path, monkeypatch):
    text = (DOCS / page).read_text()
    needs = {w.strip() for m in NEEDS.finditer(text) for w in m["what"].split(",")}
    unknown = needs - {"adult", "dask", "matplotlib", "xarray", "opendp"}
    assert not unknown, f"{page}: unknown needs {unknown}"
    if "dask" in needs:
        pytest.importorskip("dask.array", reason=f"{page} needs dask (the `dask` extra)")
        pytest.importorskip("distributed", reason=f"{page} needs distributed (the `dask` extra)")
    if "matplotlib" in needs:
        pytest.importorskip("matplotlib", reason=f"{page} needs matplotlib (the `plot` extra)")
        monkeypatch.setenv("MPLBACKEND", "Agg")
    if "opendp" in needs:
        pytest.importorskip("opendp", reason=f"{page} needs opendp (in the `test` extra)")
    if "xarray" in needs:
        pytest.importorskip("xarray", reason=f"{page} needs xarray (in the `test` extra)")
    if "adult" in needs:
        (tmp_path / "adult.csv").symlink_to(require_adult())
    monkeypatch.chdir(tmp_path)

    namespace = {"__name__": "__docs__"}
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    ran = 0
    for lang, body, line in blocks(text):
        where = f"docs/{page}, block at line {line}"
        if lang == "python":
            exec(compile(body, where, "exec"), namespace)
        elif lang == "pycon":
            test = parser.get_doctest(body, namespace, where, str(DOCS / page), line)
            assert test.examples, f"{where}: a pycon block without >>> examples"
            report = io.StringIO()
            result = runner.run(test, out=report.write, clear_globs=False)
            assert result.failed == 0, report.getvalue()
            namespace.update(test.globs)  # DocTest works on a copy of the namespace
        elif lang == "console":
            run_console(body, where)
        elif lang == "bash":
            run_bash(body, where)
        else:
            continue
        ran += 1
    if "::: " not in text:  # reference pages are generated from the docstrings (tested in test_docs.py)
        prose = {"engine.md", "worlds.md", "beyond.md", "reference/index.md"}  # background: algorithms, no API tour
        assert ran or page in prose or page.startswith("algorithms/"), f"{page} has no examples"


def test_every_page_is_in_the_nav():
    yaml_text = (DOCS.parent / "mkdocs.yml").read_text()
    nav = set(re.findall(r"([\w/-]+\.md)", yaml_text.split("\nnav:", 1)[1]))
    assert set(PAGES) == nav


def test_every_public_name_is_in_the_api_reference():
    import diffident

    text = "\n".join((DOCS / "reference" / p).read_text() for p in sorted(os.listdir(DOCS / "reference")))
    documented = set(re.findall(r"^::: ([\w.]+)$", text, re.M))
    # a namespace is documented whole (::: diffident.dp renders its names, also importable from diffident)
    expected = {f"diffident.{name}" for name in diffident.__all__ if name != "rr" and name not in diffident.dp.__all__}
    expected |= {"diffident.rr", "diffident.dask"}
    expected |= {f"diffident.replicate.{n}" for n in ("run", "load_adult", "synthetic_rows")}
    assert expected == documented, expected ^ documented


def test_every_command_line_option_is_documented():
    import argparse

    from diffident import cli

    text = (DOCS / "reference" / "cli.md").read_text()
    parser = cli.build_parser()
    subparsers = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    assert set(subparsers.choices) == {"replicate", "sweep", "calibrate", "explain"}
    for name, sub in subparsers.choices.items():
        section = text.split(f"## diffident {name}\n", 1)[1].split("\n## ", 1)[0]
        for action in sub._actions:
            for option in action.option_strings:
                if option not in ("-h", "--help"):
                    assert f"`{option}" in section, f"diffident {name} {option} is not in docs/reference/cli.md"
    assert "`diffident --version`" in text


def test_concepts_figure_script_runs(tmp_path):
    pytest.importorskip("matplotlib")
    import runpy

    script = runpy.run_path(str(DOCS / "scripts" / "concepts_figure.py"), run_name="concepts_figure")
    out = tmp_path / "toy.png"
    assert script["main"](["--out", str(out)]) == 0
    assert out.stat().st_size > 10_000
    means, medians = script["toy_worlds"]()
    assert means.size == medians.size == 8
    assert (DOCS / "img" / "concepts-toy.png").is_file()  # the committed figure the page shows
