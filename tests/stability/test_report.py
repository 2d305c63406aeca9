"""The report's views: text, Markdown, HTML and the plot."""

import sys

import pytest
from sympy import exp, symbols

from symgrad import check_stability

x = symbols("x")


@pytest.fixture(scope="module")
def report():
    return check_stability(1 - 1 / (1 + exp(x)), {x: (-1000, 1000)}, samples=256)


def test_text_table(report):
    s = str(report)
    assert "NOT ok" in s
    assert "cancellation" in s and "1 - 1/(exp(x) + 1)" in s
    assert "harmless" in s and "computed 0, true" in s


def test_markdown_and_html(report):
    md = report._repr_markdown_()
    assert "| cancellation | 0 |" in md and "`1 - 1/(exp(x) + 1)`" in md
    h = report._repr_html_()
    assert h.startswith("<table>") and "cancellation" in h and "<script" not in h


def test_plot_writes_a_png(report, tmp_path):
    path = tmp_path / "r.png"
    report.plot(str(path))
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_plot_without_matplotlib_names_the_extra(report, tmp_path, monkeypatch):
    for name in list(sys.modules):
        if name == "matplotlib" or name.startswith("matplotlib."):
            monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import now raises ImportError
    with pytest.raises(ImportError, match=r"symgrad\[plot\]"):
        report.plot(str(tmp_path / "r.png"))


def test_plot_shades_where_the_formula_is_undefined():
    import matplotlib.pyplot as plt
    from sympy import log, sqrt, symbols

    from symgrad import check_stability

    x = symbols("x", real=True)
    for f, lo, hi in ((log(x**2 - 1), -1.0, 1.0), (sqrt(x) + 1, -3.0, 0.0)):
        r = check_stability(f, {x: (-3, 3)}, samples=128)
        fig = r._figure()
        spans = [p for p in fig.axes[0].patches if p.get_label().startswith("undefined")]
        plt.close(fig)
        assert spans, [p.get_label() for p in fig.axes[0].patches]
        xs = [v for p in spans for v in (p.get_x(), p.get_x() + p.get_width())]
        assert min(xs) <= lo + 1e-9 and max(xs) >= hi - 1e-9  # the undefined range, shaded
