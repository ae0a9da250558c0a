"""One setting holds the published address; the install cells follow from it and install only when needed."""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat
import pytest
import yaml
from IPython.core.inputtransformer2 import TransformerManager

from coursetools.colab import (
    INSTALL_CELL_TAGS,
    LAB_INSTALL_CELL,
    Published,
    install_cell,
    published,
    student_install_cell,
)
from labsupport.errors import ConfigError

ROOT = Path(__file__).resolve().parents[2]
LABS = sorted((ROOT / "labs").glob("*.ipynb"))
WHERE = Published(repository_url="https://github.com/Some-Uni/outage-course", branch="spring-2027")


def test_the_setting_is_read_from_config_yml():
    repo = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))["repository"]
    assert published(ROOT) == Published(repository_url=repo["url"], branch=repo["branch"])


def test_every_address_is_derived_from_the_setting():
    assert WHERE.book_url == "https://some-uni.github.io/outage-course/"
    assert WHERE.pip_requirement == "labsupport @ git+https://github.com/Some-Uni/outage-course@spring-2027"
    assert WHERE.constraints_url == (
        "https://raw.githubusercontent.com/Some-Uni/outage-course/spring-2027/student/constraints.txt"
    )
    assert WHERE.page_url("chapters/glossary.md#term-Lease") == (
        "https://some-uni.github.io/outage-course/chapters/glossary.html#term-Lease"
    )
    assert (
        WHERE.page_url("labs/01-enactor-race.ipynb")
        == "https://some-uni.github.io/outage-course/labs/01-enactor-race.html"
    )
    link = WHERE.nbgitpuller_link("https://hub.example.edu/", "student/01-enactor-race.ipynb")
    assert link == (
        "https://hub.example.edu/hub/user-redirect/git-pull?repo=https%3A%2F%2Fgithub.com%2FSome-Uni%2F"
        "outage-course&branch=spring-2027&urlpath=lab%2Ftree%2Foutage-course%2Fstudent%2F01-enactor-race.ipynb"
    )


@pytest.mark.parametrize(
    "url",
    ["https://gitlab.com/a/b", "github.com/a/b", "https://github.com/a", "", None, "https://github.com/a/b/tree/main"],
)
def test_a_bad_address_is_refused_naming_the_field(url):
    with pytest.raises(ConfigError, match=r"repository.url"):
        Published(repository_url=url)


def test_a_bad_branch_is_refused_naming_the_field():
    with pytest.raises(ConfigError, match=r"repository.branch"):
        Published(repository_url="https://github.com/a/b", branch="")


def test_published_names_a_missing_config(tmp_path):
    with pytest.raises(ConfigError, match=r"_config.yml"):
        published(tmp_path)


@pytest.mark.parametrize("path", LABS, ids=lambda p: p.name)
def test_lab_starts_with_the_install_cell(path):
    nb = nbformat.read(path, as_version=4)
    assert nb.cells[0].cell_type == "markdown" and nb.cells[0].source.startswith("# "), "no title cell"
    first = nb.cells[1]
    assert first.cell_type == "code" and first.source == LAB_INSTALL_CELL, (
        f"{path.name}: the cell after the title must be coursetools.colab.LAB_INSTALL_CELL, verbatim"
    )
    assert set(INSTALL_CELL_TAGS) <= set(first.metadata.get("tags", [])), "install cell not tagged remove-cell"


def test_the_labs_hold_no_copy_of_the_address():
    url = published(ROOT).repository_url
    assert url not in LAB_INSTALL_CELL
    for path in LABS:
        assert url not in path.read_text(encoding="utf-8"), f"{path.name} holds a copy of repository.url"


def _run(cell: str, namespace_modules: dict[str, object | None]) -> list[tuple[str, str]]:
    """Run the cell's Python (magics turned into calls, as IPython does); return the magics it ran."""
    calls: list[tuple[str, str]] = []

    class Shell:
        def run_line_magic(self, name: str, line: str) -> None:
            calls.append((name, line))

    code = TransformerManager().transform_cell(cell)
    saved_modules = {name: sys.modules.get(name, KeyError) for name in namespace_modules}
    saved_path = list(sys.path)
    try:
        for name, module in namespace_modules.items():
            if module is KeyError:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = module  # None makes `import name` raise ModuleNotFoundError
        exec(compile(code, "<install cell>", "exec"), {"get_ipython": lambda: Shell()})
    finally:
        sys.path[:] = saved_path
        for name, module in saved_modules.items():
            if module is KeyError:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = module
    return calls


@pytest.mark.parametrize("cell", [LAB_INSTALL_CELL, student_install_cell(WHERE)], ids=["lab", "student"])
def test_the_cells_do_nothing_where_labsupport_is_importable(cell):
    import labsupport

    assert _run(cell, {"labsupport": labsupport}) == []


def test_the_student_cell_installs_the_pinned_set_and_nothing_else():
    calls = _run(student_install_cell(WHERE), {"labsupport": None, "google.colab": KeyError})
    assert calls == [("pip", f'install --quiet --constraint {WHERE.constraints_url} "{WHERE.pip_requirement}"')]


def test_the_lab_cell_sends_the_reader_to_the_student_copy():
    with pytest.raises(ModuleNotFoundError, match="student copy"):
        _run(LAB_INSTALL_CELL, {"labsupport": None})


def test_install_cell_helper_is_clean():
    cell = install_cell()
    assert cell.source == LAB_INSTALL_CELL and cell.outputs == [] and cell.execution_count is None
    assert cell.metadata["tags"] == list(INSTALL_CELL_TAGS)
