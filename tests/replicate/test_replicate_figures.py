"""The replication's figures (diffident.replicate.plots): file formats and
resolution, titles and Greek letters, the not-releasable strip outside the
data area, the tidy data behind every figure, and each module's __all__."""

import csv
import importlib
import inspect
import math
import os
import re
import struct
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from diffident import replicate as rep
from diffident.replicate import experiments, plots

mpl = pytest.importorskip("matplotlib")
from matplotlib.patches import PathPatch  # noqa: E402
from matplotlib.text import Text  # noqa: E402


def read_csv(path):
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


@pytest.fixture(scope="module")
def res():
    return experiments.compute(rep.synthetic_rows(0), "synthetic", True, 0, [], lambda msg: None)


@pytest.fixture(scope="module")
def data(res):
    return plots.figure_data(res)


@pytest.fixture(scope="module")
def figs(res, data):
    out = plots.figures(res, data)
    for fig in out.values():
        fig.canvas.draw()  # the constrained layout places the axes
    return out


def panels(fig):
    """(axes, strip) pairs: each data axes with the not-releasable strip below it."""
    axes = [ax for ax in fig.axes if ax.get_label() != plots.STRIP_LABEL]
    strips = [ax for ax in fig.axes if ax.get_label() == plots.STRIP_LABEL]
    assert len(axes) == len(strips)
    return list(zip(axes, strips, strict=True))


def texts(fig):
    return [t.get_text() for t in fig.findobj(Text) if t.get_text()]


def png_size(path):
    with open(path, "rb") as fh:
        head = fh.read(24)
    assert head[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", head[16:24])


# --- options -------------------------------------------------------------------


def test_check_options():
    assert plots.check_options("png", 100) == ("png", 100.0)
    assert plots.check_options("svg", np.float32(72.5)) == ("svg", 72.5)
    assert plots.check_options("pdf", 1200) == ("pdf", 1200.0)
    with pytest.raises(ValueError, match=r"format must be one of 'png', 'pdf', 'svg', got 'jpg'"):
        plots.check_options("jpg", 100)
    with pytest.raises(ValueError, match=r"got 'PNG'"):
        plots.check_options("PNG", 100)
    with pytest.raises(TypeError, match=r"format .* got 3"):
        plots.check_options(3, 100)
    assert plots.check_options("png", 20) == ("png", 20.0)
    for bad in (0, -1, 0.0, 19.5, math.nan, math.inf, 1200.5):
        with pytest.raises(ValueError, match=rf"dpi must be a number from 20 to 1200, got {bad!r}"):
            plots.check_options("png", bad)
    for bad in ("100", True, None):
        with pytest.raises(TypeError, match=rf"dpi must be a number from 20 to 1200, got {re.escape(repr(bad))}"):
            plots.check_options("png", bad)


def test_run_rejects_bad_options_before_writing(tmp_path):
    out = tmp_path / "never"
    with pytest.raises(ValueError, match="format must be one of .*got 'gif'"):
        rep.run(out, format="gif")
    with pytest.raises(ValueError, match="dpi must be a number from 20 to 1200, got -5"):
        rep.run(out, dpi=-5)
    with pytest.raises(TypeError, match="dpi must be a number from 20 to 1200, got '300'"):
        rep.run(out, dpi="300")
    assert not out.exists()


# --- formats and resolution ----------------------------------------------------------


def test_png_size_follows_the_dpi(res, data, tmp_path):
    sizes = {}
    for dpi in (20, 130):  # the smallest resolution draws too
        d = tmp_path / str(dpi)
        d.mkdir()
        paths = plots.draw_all(d, res, format="png", dpi=dpi, data=data)
        assert set(paths) == {"fig1", "tight", "fig2", "fig3", "fig4"}
        sizes[dpi] = {k: png_size(p) for k, p in paths.items()}
    figs = plots.figures(res, data)
    for key, fig in figs.items():
        w, h = fig.get_size_inches()
        for dpi in (20, 130):
            assert sizes[dpi][key] == (round(w * dpi), round(h * dpi)), key
    assert sizes[20]["fig1"] == (220, 96) and sizes[130]["fig1"] == (1430, 624)  # 11 x 4.8 inches


def test_pdf_and_svg_files(res, data, tmp_path):
    for fmt in ("pdf", "svg"):
        d = tmp_path / fmt
        d.mkdir()
        paths = plots.draw_all(d, res, format=fmt, dpi=72, data=data)
        assert sorted(p.name for p in paths.values()) == sorted(f"{stem}.{fmt}" for stem in plots.FIGURES.values())
        for p in paths.values():
            if fmt == "pdf":
                pdf = p.read_bytes()
                assert pdf[:5] == b"%PDF-"
                # TrueType fonts, no Type 3 fonts (which publishers refuse)
                assert b"/Type3" not in pdf and b"/CIDFontType2" in pdf
            else:
                root = ET.parse(p).getroot()
                assert root.tag == "{http://www.w3.org/2000/svg}svg"
        # no date in the file: the same figures give the same bytes
        again = plots.draw_all(tmp_path, res, format=fmt, dpi=72, data=data)
        assert again["fig1"].read_bytes() == paths["fig1"].read_bytes()


def test_run_writes_the_format_and_links_it(tmp_path):
    r = rep.run(tmp_path, format="svg", dpi=50)
    assert sorted(os.path.basename(p) for p in r["figures"]) == sorted(f"{s}.svg" for s in plots.FIGURES.values())
    assert not list(tmp_path.glob("*.png"))
    text = (tmp_path / "report.md").read_text()
    assert "drawn with matplotlib (Agg) as SVG, 50 dpi" in text
    assert "![Figure 2: noise ratio of the mean query against rho](fig2_noise_ratio.svg)" in text
    for p in r["figures"]:
        ET.parse(p)


# --- titles, captions and Greek letters ------------------------------------------------


def test_no_figure_numbers_in_the_figures(figs):
    for key, fig in figs.items():
        assert fig.get_suptitle() or all(ax.get_title() for ax, _ in panels(fig) if ax.axison), key
        for t in texts(fig):
            assert not re.search(r"\bfig(ure)?\.?\s*\d", t, re.I), (key, t)


def test_greek_letters(figs):
    for key, fig in figs.items():
        ts = texts(fig)
        # outside mathtext no rho or epsilon is spelled out
        for t in ts:
            plain = re.sub(r"\$[^$]*\$", "", t)
            assert not re.search(r"rho|epsilon", plain, re.I), (key, t)
        assert any(r"$\rho$" in t for t in ts), key
        if key in ("tight", "fig3"):
            assert any(r"\epsilon" in t for t in ts), key


def test_report_captions_each_figure(tmp_path):
    r = rep.run(tmp_path, format="pdf", dpi=30)
    text = (tmp_path / "report.md").read_text()
    for number, key in (("1", "fig1"), ("1b", "tight"), ("2", "fig2"), ("3", "fig3"), ("4", "fig4")):
        stem = plots.FIGURES[key]
        assert f"[Figure {number} (PDF)]({stem}.pdf)" in text
        caption = next(line for line in text.splitlines() if line.startswith(f"**Figure {number}.**"))
        assert f"Plotted points: [{stem}_points.csv]({stem}_points.csv)." in caption
    # the report carries the numbers, the figures do not
    assert len(re.findall(r"^\*\*Figure \w+\.\*\*", text, re.M)) == 5
    for p in r["figures"]:
        assert open(p, "rb").read(5) == b"%PDF-"


# --- not releasable: outside the data area ------------------------------------------------


def _bad_marks(data_rows):
    """The not-releasable (panel, series, x) of a figure's tidy rows."""
    return {(r["panel"], r["series"], r["x"]) for r in data_rows if not r["releasable"]}


def test_not_releasable_is_outside_the_data_area(figs, data):
    for key, fig in figs.items():
        rows = data[key][1]
        marks = 0
        for ax, strip in panels(fig):
            if not ax.axison:  # Figure 4's legend panel
                assert not strip.axison and not strip.lines
                continue
            # the strip lies below its axes, outside them, and has no y scale
            a, s = ax.get_position(), strip.get_position()
            assert s.y1 <= a.y0 + 1e-9 and s.x0 == pytest.approx(a.x0) and s.x1 == pytest.approx(a.x1)
            assert list(strip.get_yticks()) == []
            # every point drawn in the data area has a finite value
            for line in ax.lines:
                y = np.asarray(line.get_ydata(), dtype=float)
                assert np.all(np.isfinite(y)), (key, line.get_label())
            for patch in ax.patches:
                assert np.all(np.isfinite(patch.get_path().vertices)), key
            marks += sum(len(line.get_xdata()) for line in strip.lines)
        bad = _bad_marks(rows)
        assert bad, key  # every figure of the embedded run has some
        if key in ("fig1", "tight"):
            # one rug tick per not-releasable rho of each panel (both series share it)
            assert marks == len({(p, x) for p, _, x in bad}), key
        elif key == "fig3":
            # one mark at epsilon 0 where a panel has any, and the rho listed beside it
            assert marks == len({p for p, _, _ in bad})
            note = [t.get_text() for _, s in panels(fig) for t in s.texts]
            assert any("0.00153%" in t and "0.0122%" in t for t in note), note
        else:
            assert marks == len(bad), key


def test_toy_strip_marks_exactly_the_unattainable_rho(figs, data):
    rows = data["fig1"][1]
    m = rows[0]["m"]
    for (ax, strip), q in zip(panels(figs["fig1"]), ("mean", "median"), strict=True):
        xs = sorted(strip.lines[0].get_xdata())
        expected = sorted({100 * r["x"] for r in rows if r["panel"] == q and r["x"] <= 1 / m})
        assert xs == expected and len(xs) == 12
        assert min(ax.lines[0].get_xdata()) > 100 / m


# --- the tidy data behind the figures ----------------------------------------------------


def test_tidy_rows_are_the_plotted_lines(res, figs, data):
    for key, series, scale in (("fig1", ("worst_case_risk", "risk_bound"), 100.0),
                               ("tight", ("tight_epsilon", "paper_epsilon"), 1.0)):
        head, rows = data[key]
        assert head[:6] == ["figure", "panel", "series", "x", "y", "releasable"]
        assert len(rows) == 2 * len(res.toy["points"])  # two curves at each (query, rho)
        for (ax, _), q in zip(panels(figs[key]), ("mean", "median"), strict=True):
            for i, name in enumerate(series):
                pts = [r for r in rows if r["panel"] == q and r["series"] == name and r["releasable"]]
                line = ax.lines[i]
                assert list(line.get_xdata()) == [100 * r["x"] for r in pts]
                assert list(line.get_ydata()) == [scale * r["y"] for r in pts]


def test_tidy_rows_are_the_plotted_boxes(figs, data):
    for key in ("fig2", "fig3", "fig4"):
        head, rows = data[key]
        assert head[:7] == ["figure", "panel", "series", "x", "statistic", "y", "releasable"]
        boxes = plots._boxes(rows)
        assert all(list(st) == list(plots.STATISTICS) for st in boxes.values())
        assert len(rows) == 5 * len(boxes)
        good = {k: st for k, st in boxes.items() if not math.isnan(st["median"])}
        assert all(all(math.isnan(v) for v in st.values()) for k, st in boxes.items() if k not in good)
        drawn = []
        for ax, _ in panels(figs[key]):
            for patch in ax.patches:
                if isinstance(patch, PathPatch):
                    y = patch.get_path().vertices[:, 1]
                    drawn.append((float(y.min()), float(y.max())))
        assert sorted(drawn) == sorted((st["q1"], st["q3"]) for st in good.values()), key


def test_tidy_csvs_match_the_summaries(tmp_path):
    r = rep.run(tmp_path, seed=0)
    names = {os.path.basename(p) for p in r["tables"]}
    assert {f"{stem}_points.csv" for stem in plots.FIGURES.values()} <= names
    text = (tmp_path / "report.md").read_text()
    # Figure 2: 5 attributes x 6 rho x 5 statistics, equal to the summary's percentiles
    pts = read_csv(tmp_path / "fig2_noise_ratio_points.csv")
    summary = {(s["attribute"], s["k"]): s for s in read_csv(tmp_path / "fig2_noise_ratio.csv")}
    assert len(pts) == 5 * 6 * 5 and list(pts[0])[:7] == ["figure", "panel", "series", "x", "statistic", "y",
                                                          "releasable"]
    for p in pts:
        s = summary[(p["attribute"], p["k"])]
        assert p["releasable"] == s["releasable"]
        if p["releasable"] == "true":
            assert float(p["y"]) == float(s[p["statistic"]])
        else:
            assert p["y"] == "nan" and s[p["statistic"]] == "nan"
    # Figure 4: 5 attributes x 2 queries x 2 sizes x 6 rho x 5 statistics
    pts = read_csv(tmp_path / "fig4_db_size_points.csv")
    summary = {(s["attribute"], s["query"], s["size"], s["k"]): s for s in read_csv(tmp_path / "fig4_db_size.csv")}
    assert len(pts) == 5 * 2 * 2 * 6 * 5 == 5 * len(summary)
    for p in pts:
        s = summary[(p["attribute"], p["query"], p["size"], p["k"])]
        assert p["y"] == s[p["statistic"]] and p["panel"] == p["attribute"]
        assert p["series"] == f"{p['query']}, {p['size']} rows"
    # Figure 1: every rho of the grid, for both queries and both curves
    wide = read_csv(tmp_path / "fig1_toy_risk.csv")
    pts = read_csv(tmp_path / "fig1_toy_risk_points.csv")
    assert len(pts) == 2 * len(wide)
    for w, (a, b) in zip(wide, zip(pts[::2], pts[1::2], strict=True), strict=True):
        assert (a["series"], b["series"]) == ("worst_case_risk", "risk_bound")
        assert a["x"] == b["x"] == w["rho"] and a["panel"] == w["query"]
        finite = w["paper_scale"] != "inf"
        assert a["releasable"] == ("true" if finite else "false")
        assert (a["y"], b["y"]) == ((w["worst_case_risk"], w["risk_bound"]) if finite else ("nan", "nan"))
    # Figure 3: x is the paper's epsilon; 0 where not releasable
    for p in read_csv(tmp_path / "fig3_noise_ratio_epsilon_points.csv"):
        assert p["x"] == p["epsilon"] and p["attribute"] in rep.FIG3_ATTRIBUTES
        assert (float(p["x"]) > 0) == (p["releasable"] == "true")
    assert "[fig3_noise_ratio_epsilon_points.csv](fig3_noise_ratio_epsilon_points.csv)" in text


# --- Figure 4's panels -----------------------------------------------------------------


def test_figure4_panels_each_show_one_attribute(figs, data):
    rows = data["fig4"][1]
    shown = [(ax, s) for ax, s in panels(figs["fig4"]) if ax.axison]
    assert [ax.get_title().split(" (")[0] for ax, _ in shown] == list(rep.ATTRIBUTES)
    medians = []
    for (ax, _), col in zip(shown, rep.ATTRIBUTES, strict=True):
        boxes = [p for p in ax.patches if isinstance(p, PathPatch)]
        good = {(r["series"], r["x"]) for r in rows if r["panel"] == col and r["releasable"]}
        assert len(boxes) == len(good) and len(good) % 4 == 0  # both queries at both sizes per rho
        medians.append({r["y"] for r in rows if r["panel"] == col and r["statistic"] == "median"
                        and r["releasable"]})
    # no two panels draw the same boxes
    for i in range(len(medians)):
        for j in range(i + 1, len(medians)):
            assert not medians[i] & medians[j]
    # each panel holds a different attribute's m in its title, as the data say
    for (ax, _), col in zip(shown, rep.ATTRIBUTES, strict=True):
        lo, hi = rep.DOMAINS[col]
        assert ax.get_title() == f"{col} (m = {hi - lo + 1})"


# --- __all__ ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["checks", "data", "experiments", "paper", "plots", "report", "rows"])
def test_every_module_has_its_public_names_in_all(name):
    mod = importlib.import_module(f"diffident.replicate.{name}")
    names = mod.__all__
    assert len(names) == len(set(names)) and all(not n.startswith("_") for n in names)
    def here(obj):  # defined in this module (load_adult is documented as diffident.replicate's)
        return (inspect.isfunction(obj) or inspect.isclass(obj)) and inspect.getfile(obj) == mod.__file__

    for n in names:
        obj = getattr(mod, n)
        assert here(obj) or not (inspect.isfunction(obj) or inspect.isclass(obj)), n  # not an imported one
    defined = {n for n, obj in vars(mod).items() if not n.startswith("_") and here(obj)}
    assert defined <= set(names), defined - set(names)


# --- the command line ------------------------------------------------------------------


def test_cli_format_and_dpi(tmp_path, capsys):
    from diffident import cli

    out = tmp_path / "o"
    assert cli.main(["replicate", "--out", str(out), "--format", "svg", "--dpi", "40", "--quiet"]) == 0
    captured = capsys.readouterr()
    printed = captured.out
    assert captured.err == ""  # --quiet: no progress lines
    for stem in plots.FIGURES.values():
        assert ET.parse(out / f"{stem}.svg").getroot().tag.endswith("svg")
        assert str(out / f"{stem}_points.csv") in printed
    assert not list(out.glob("*.png"))
    assert "as SVG, 40 dpi" in (out / "report.md").read_text()


def test_cli_progress_lines_reach_a_log(tmp_path, capsys):
    # standard error is not a terminal here (captured): a log gets one line per stage
    from diffident import cli

    assert cli.main(["replicate", "--out", str(tmp_path / "o"), "--dpi", "20"]) == 0
    err = capsys.readouterr().err.splitlines()
    stages = [line for line in err if line.startswith("diffident replicate: ")]
    assert "diffident replicate: writing the report" in stages and len(stages) >= 4


@pytest.mark.parametrize("args, message", [
    (("--format", "jpg"), "argument --format: invalid choice: 'jpg'"),
    (("--dpi", "abc"), "dpi must be a number, got 'abc'"),
    (("--dpi", "0"), "diffident: error: dpi must be a number from 20 to 1200, got 0.0"),
    (("--dpi", "-72"), "diffident: error: dpi must be a number from 20 to 1200, got -72.0"),
])
def test_cli_bad_format_or_dpi(tmp_path, capsys, args, message):
    from diffident import cli

    try:
        status = cli.main(["replicate", "--out", str(tmp_path / "o"), *args])
    except SystemExit as exc:  # argparse's own errors
        status = exc.code
    assert status == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0]
    assert not (tmp_path / "o").exists()
