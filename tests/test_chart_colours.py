"""One concept, one colour: every chart of the book gives a legend label the same colour.

Two tests. The first is quick and local: a label of ``charts.CONCEPT_COLOURS`` keeps its colour
whatever its position in a legend, in every chart that compares runs. The second executes every page
of the book that draws a chart (chapters and labs, with a kernel each, four at a time), records the
colour scale of every chart the page displays (through the book's renderer), and fails when one
label has two colours, naming the pages.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import nbclient
import nbformat
import pandas as pd
import pytest
from myst_nb.core.read import read_myst_markdown_notebook

from labsupport import charts, presets

ROOT = Path(__file__).resolve().parents[1]


def colour_map(spec: object) -> dict[str, str]:
    """label -> colour of every ``color`` encoding with an explicit domain and range in a spec."""
    found: dict[str, str] = {}

    def walk(node: object) -> None:
        if isinstance(node, dict):
            colour = node.get("color")
            if isinstance(colour, dict):
                scale = colour.get("scale") or {}
                domain, rng = scale.get("domain"), scale.get("range")
                if isinstance(domain, list) and isinstance(rng, list) and len(domain) == len(rng):
                    found.update({str(d): str(r) for d, r in zip(domain, rng) if isinstance(r, str)})
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(spec)
    return found


def _dns(labels: list[str]):
    ts = pd.DataFrame({"time_s": [0.0, 60.0], "failing_fraction": [0.0, 0.5]})
    return charts.dns_failing_chart({label: ts for label in labels}, restored_s=30.0)


def _nlb(labels: list[str]):
    ts = pd.DataFrame({"time_s": [0.0, 60.0], "capacity_fraction": [1.0, 0.5], "demand_fraction": [0.8, 0.8]})
    return charts.nlb_capacity_comparison_chart({label: ts for label in labels})


def _ttl(labels: list[str]):
    return charts.dns_ttl_chart(pd.DataFrame({"negative_ttl_s": [60.0] * len(labels),
                                              "delay_s": [1.0] * len(labels), "series": labels}))


@pytest.mark.parametrize("draw", [_dns, _nlb, _ttl], ids=["dns_failing", "nlb_capacity", "dns_ttl"])
def test_a_concept_keeps_its_colour_in_any_legend_position(draw):
    known = presets.ttl_label(900.0)
    first = colour_map(draw([known, "something else"]).to_dict())
    second = colour_map(draw(["another run", "a third run", known]).to_dict())
    assert first[known] == second[known] == charts.CONCEPT_COLOURS[known]
    # A label the book does not name gets a colour no named label of the same chart has.
    assert second["another run"] != second[known] and second["a third run"] != second[known]


def test_the_book_names_a_ttl_one_way():
    assert presets.ttl_label(900.0) == "negative TTL 15 min"
    assert presets.ttl_label(90.0) == "negative TTL 90 s"
    with pytest.raises(ValueError, match="seconds"):
        presets.ttl_label(0)


_RECORDER = """
import json as _json, os as _os
import altair as _alt
from labsupport import charts as _charts
from tests.test_chart_colours import colour_map as _colour_map
_PAGE, _LOG = {page!r}, {log!r}
def _recording(spec, *args, **kwargs):
    with open(_LOG, "a") as _f:
        _f.write(_json.dumps({{"page": _PAGE, "colours": _colour_map(spec)}}) + "\\n")
    return _charts.render_bundle(spec, *args, **kwargs)
_alt.renderers.register("labsupport-recording", _recording)
_alt.renderers.enable("labsupport-recording")
"""


def _pages() -> list[Path]:
    pages = sorted((ROOT / "chapters").glob("*.md")) + sorted((ROOT / "labs").glob("*.ipynb"))
    return [p for p in pages if "charts." in p.read_text()]


def _execute(page: Path, log: str) -> None:
    if page.suffix == ".md":
        nb = read_myst_markdown_notebook(page.read_text())
    else:
        nb = nbformat.read(page, as_version=4)
    name = str(page.relative_to(ROOT))
    nb.cells.insert(0, nbformat.v4.new_code_cell(_RECORDER.format(page=name, log=log)))
    env_path = f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"
    os.environ["PYTHONPATH"] = env_path
    nbclient.NotebookClient(nb, timeout=900, kernel_name="python3",
                            resources={"metadata": {"path": str(page.parent)}}).execute()


def test_no_two_charts_of_the_book_give_one_label_two_colours():
    pages = _pages()
    assert len(pages) >= 8, f"expected the chapters and labs that draw charts, found {pages}"
    with tempfile.TemporaryDirectory() as tmp:
        log = str(Path(tmp) / "colours.jsonl")
        with ThreadPoolExecutor(max_workers=4) as pool:
            list(pool.map(lambda p: _execute(p, log), pages))
        records = [json.loads(line) for line in Path(log).read_text().splitlines()]
    seen: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    for rec in records:
        for label, colour in rec["colours"].items():
            seen[label][colour.lower()].add(rec["page"])
    clashes = {label: {c: sorted(p) for c, p in by.items()} for label, by in seen.items() if len(by) > 1}
    assert not clashes, f"one concept, two colours across the book's charts: {clashes}"
    # The check is not vacuous: the concepts the book compares on several pages were seen there.
    for label in (presets.ttl_label(900.0), presets.NLB_RUN_LABELS["velocity"]):
        pages_with = set().union(*seen[label].values()) if label in seen else set()
        assert len(pages_with) >= 2, f"{label!r} drawn on {sorted(pages_with)}; expected a chapter and a lab"
