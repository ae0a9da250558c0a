"""The book's API reference: generated from the docstrings, with every exported preset documented."""

from __future__ import annotations

import re
from pathlib import Path

import labsupport.race
from labsupport import apidoc

from ._sphinx import build

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "chapters" / "api-reference.md"
MODELS = ("race", "dwfm", "network", "nlb", "dns_cache", "chain", "explore")


def test_defining_comment_comes_from_the_module_that_defines_the_name() -> None:
    comment = apidoc.defining_comment(labsupport.race, "INCIDENT")
    assert comment and "incident" in " ".join(comment).lower()
    assert apidoc.defining_comment(labsupport.race, "run") is None  # a function: its docstring serves


def test_page_lists_every_model_and_is_in_the_table_of_contents() -> None:
    text = PAGE.read_text(encoding="utf-8")
    documented = set(re.findall(r"^\.\. automodule:: (\S+)", text, re.MULTILINE))
    assert {f"labsupport.{m}" for m in MODELS} <= documented
    assert "chapters/api-reference" in (ROOT / "_toc.yml").read_text(encoding="utf-8")


def test_the_pages_autodoc_is_clean_under_nitpicky(tmp_path: Path) -> None:
    """The page's autodoc blocks, built alone with the book's autodoc settings and -n: no warning."""
    blocks = re.findall(r"^```\{eval-rst\}\n(.*?)^```", PAGE.read_text(encoding="utf-8"), re.MULTILINE | re.DOTALL)
    ignore = r"(pandas|numpy|collections\.abc|concurrent\.futures|datetime)\..*"
    conf = (
        'extensions = ["sphinx.ext.autodoc", "sphinx.ext.napoleon", "labsupport.apidoc"]\n'
        'autodoc_member_order = "bysource"\nnapoleon_numpy_docstring = False\nnapoleon_use_rtype = False\n'
        f'nitpicky = True\nnitpick_ignore_regex = [("py:class", {ignore!r})]\n'
    )
    out, warnings = build(tmp_path, conf, {"index.rst": "API\n===\n\n" + "\n".join(blocks)})
    assert warnings == ""
    html = (out / "index.html").read_text(encoding="utf-8")
    for model in MODELS:
        assert f'id="labsupport.{model}.INCIDENT"' in html and f'id="labsupport.{model}.run"' in html, model
    assert 'id="labsupport.race.endpoint_states"' in html  # lab 01 links here
