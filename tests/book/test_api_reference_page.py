"""The book's API reference: generated from the docstrings, with every exported preset documented.

It is an index page (``chapters/api-reference.md``) and one page per model under ``chapters/api/``
(a single page was 144,000 px tall: unusable on a phone).
"""

from __future__ import annotations

import re
from pathlib import Path

import labsupport.race
from coursetools import apidoc
from labsupport._models import MODELS as REGISTERED

from ._sphinx import build

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "chapters" / "api-reference.md"
SUBPAGES = sorted((ROOT / "chapters" / "api").glob("*.md"))
#: Every registered model that runs a config with ``run`` from an ``INCIDENT`` preset (the game is played).
MODELS = tuple(m.name for m in REGISTERED if m.run == "run")


def test_defining_comment_comes_from_the_module_that_defines_the_name() -> None:
    comment = apidoc.defining_comment(labsupport.race, "INCIDENT")
    assert comment and "incident" in " ".join(comment).lower()
    assert apidoc.defining_comment(labsupport.race, "run") is None  # a function: its docstring serves


def _text() -> str:
    return "\n".join(p.read_text(encoding="utf-8") for p in [PAGE, *SUBPAGES])


def test_pages_list_every_model_and_are_in_the_table_of_contents() -> None:
    documented = set(re.findall(r"^\.\. automodule:: (\S+)", _text(), re.MULTILINE))
    assert {m.module for m in REGISTERED} <= documented
    for m in REGISTERED:  # each on the page its registry entry names
        page = (ROOT / "chapters" / "api" / f"{m.api_page}.md").read_text(encoding="utf-8")
        assert f".. automodule:: {m.module}\n" in page, m.name
    toc = (ROOT / "_toc.yml").read_text(encoding="utf-8")
    assert "chapters/api-reference" in toc
    missing = [p.stem for p in SUBPAGES if f"chapters/api/{p.stem}\n" not in toc]
    assert len(SUBPAGES) >= len(MODELS) and not missing, f"API pages not in _toc.yml: {missing}"


def test_the_pages_autodoc_is_clean_under_nitpicky(tmp_path: Path) -> None:
    """The pages' autodoc blocks, built alone with the book's autodoc settings and -n: no warning."""
    blocks = re.findall(r"^```\{eval-rst\}\n(.*?)^```", _text(), re.MULTILINE | re.DOTALL)
    ignore = r"(pandas|numpy|collections\.abc|concurrent\.futures|datetime)\..*"
    conf = (
        'extensions = ["sphinx.ext.autodoc", "sphinx.ext.napoleon", "coursetools.apidoc"]\n'
        'autodoc_member_order = "bysource"\nnapoleon_numpy_docstring = False\nnapoleon_use_rtype = False\n'
        f'nitpicky = True\nnitpick_ignore_regex = [("py:class", {ignore!r})]\n'
    )
    out, warnings = build(tmp_path, conf, {"index.rst": "API\n===\n\n" + "\n".join(blocks)})
    assert warnings == ""
    html = (out / "index.html").read_text(encoding="utf-8")
    # A number where a number belongs: no numpy repr (np.float64(2.7), np.True_) in a signature's
    # default, a constant's value or a docstring (labsupport._validate names np.uint16(5) on purpose).
    assert re.findall(r"np\.(?:float|int)\d+\(|np\.(?:True|False)_|np\.bool\(", html) == []
    for model in MODELS:
        assert f'id="labsupport.{model}.INCIDENT"' in html and f'id="labsupport.{model}.run"' in html, model
    assert 'id="labsupport.race.endpoint_states"' in html  # lab 01 links here
