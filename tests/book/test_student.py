"""The student notebooks: up to date with the labs, plain CommonMark, links to the published book.

Like Neuromatch's nmaci check, :func:`test_student_notebooks_are_up_to_date` fails when a lab (or
the setting in ``_config.yml``) changed and ``student/`` was not rewritten: run
``python -m coursetools.student`` (the book build does it too) and commit ``student/``. The notebooks
themselves run top to bottom under nbval (``student`` is in pytest's ``testpaths``).
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest
from markdown_it import MarkdownIt

from coursetools.colab import Published, published, student_install_cell
from coursetools.student import (
    chapter_notebook_name,
    chapters_with_exercises,
    citation_labels,
    constraints_text,
    convert,
    convert_chapter,
    convert_markdown,
    convert_solutions,
    glossary_anchors,
    problems,
    solutions_notebook_name,
    write_all,
)
from labsupport.errors import ConfigError

from .test_exercises import NOT_YET

ROOT = Path(__file__).resolve().parents[2]
LABS = sorted((ROOT / "labs").glob("*.ipynb"))
WHERE = published(ROOT)
md = MarkdownIt("commonmark")


def test_student_notebooks_are_up_to_date():
    stale = write_all(ROOT, check=True)
    assert not stale, f"out of date with labs/: {stale}; run `python -m coursetools.student` and commit student/"


def test_constraints_are_the_tested_set():
    text = (ROOT / "student" / "constraints.txt").read_text(encoding="utf-8")
    assert text == constraints_text(), (
        "student/constraints.txt differs from the versions installed here (the ones the tests ran with); "
        "run `python -m coursetools.student --freeze`"
    )
    assert "-c student/constraints.txt" in (ROOT / "requirements.txt").read_text(encoding="utf-8")


def test_no_rfc3987_grammar_is_built_at_every_import():
    """jsonschema 4.25+ with format-nongpl (JupyterLab asks for it) imports rfc3987-syntax, whose Lark
    grammar costs about 1 s in every kernel and otter process (pyproject.toml bounds jsonschema)."""
    import importlib.util
    from importlib.metadata import version

    from packaging.version import Version

    assert Version(version("jsonschema")) < Version("4.25")
    assert importlib.util.find_spec("rfc3987_syntax") is None, "rfc3987-syntax is installed: see pyproject.toml"


@pytest.mark.parametrize("lab", LABS, ids=lambda p: p.name)
def test_student_notebook_reads_right_without_myst(lab):
    source = nbformat.read(lab, as_version=4)
    student = nbformat.read(ROOT / "student" / lab.name, as_version=4)
    assert problems(student) == []
    html = "\n".join(md.render(c.source) for c in student.cells if c.cell_type == "markdown")
    # Exercises: numbered headings, in order, with their grade.
    n_exercises = sum(c.source.count("```{exercise}") for c in source.cells)
    headings = re.findall(r"<h3>Exercise (\d+) \(((?:Simple|Moderate|Advanced)[^)]*)\)</h3>", html)
    assert [int(n) for n, _ in headings] == list(range(1, n_exercises + 1))
    # No solution is in the copy: each is replaced by a line that points at the solutions notebook.
    # A lab whose exercises have no answer cells yet keeps them, folded (tests/book/test_exercises.py).
    code = [c.source for c in student.cells if c.cell_type == "code"]
    pointers = [c.source for c in student.cells if c.source.startswith("*The solution to Exercise")]
    if lab.name in NOT_YET:
        assert html.count("<summary>Solution (click to show)</summary>") == n_exercises and not pointers
        assert all(re.match(r"# Solution to Exercise [1-9]: ", s) for s in code if s.startswith("# Solution"))
    else:
        assert not any(s.startswith("# Solution") for s in code) and "<details>" not in html
        assert len(pointers) == n_exercises
        assert all(solutions_notebook_name(lab.name) in p for p in pointers)
    # Every relative link now points at the published book.
    hrefs = re.findall(r'href="([^"]+)"', html)
    assert hrefs and all(h.startswith(WHERE.book_url) for h in hrefs)
    # Every cell that prints numbers is kept, with its code visible; no output is committed.
    printers = [c.source for c in source.cells if c.cell_type == "code" and c.source.startswith("Markdown(")]
    kept = [c for c in student.cells if c.cell_type == "code" and c.source.startswith("Markdown(")]
    assert [c.source for c in kept] == printers and not any(c.metadata.get("jupyter") for c in kept)
    assert all(
        not c.get("outputs") and c.get("execution_count") is None for c in student.cells if c.cell_type == "code"
    )
    assert student.cells[2].source == student_install_cell(WHERE)


@pytest.mark.parametrize("lab", LABS, ids=lambda p: p.name)
def test_solutions_notebook_holds_every_solution_and_no_answer_cell(lab):
    source = nbformat.read(lab, as_version=4)
    solutions = nbformat.read(ROOT / "student" / solutions_notebook_name(lab.name), as_version=4)
    assert problems(solutions) == []
    n_exercises = sum(c.source.count("```{exercise}") for c in source.cells)
    text = "\n".join(c.source for c in solutions.cells if c.cell_type == "markdown")
    assert re.findall(r"^### Exercise (\d+) ", text, re.MULTILINE) == [str(i) for i in range(1, n_exercises + 1)]
    assert len(re.findall(r"^> \*\*Solution to Exercise \d+\*\*", text, re.MULTILINE)) == n_exercises
    code = [c.source for c in solutions.cells if c.cell_type == "code"]
    solution_code = [s.splitlines()[0] for s in code if s.startswith("# Solution")]
    assert all(re.fullmatch(r"# Solution to Exercise [1-9]", line) for line in solution_code)
    # The learner's cells stay in the student copy: no answer skeleton, no bare check, no practice.
    assert not any(re.match(r"^(?:#[^\n]*\n)*answer_\d+ = \{", s) for s in code)
    assert not any(s.startswith("problem = practice.") for s in code)
    assert len({c.id for c in solutions.cells}) == len(solutions.cells)
    assert solutions.cells[2].source == student_install_cell(WHERE)


def test_convert_splits_a_lab_into_copy_and_solutions():
    cells = [
        nbformat.v4.new_markdown_cell("# A lab"),
        nbformat.v4.new_code_cell("import labsupport"),
        nbformat.v4.new_markdown_cell("```{exercise}\n:label: x1\n\n**(Simple)** Why?\n```"),
        nbformat.v4.new_code_cell("answer_1 = {'a': ...}", metadata={"tags": ["exercise-answer"]}),
        nbformat.v4.new_code_cell("check.ex1(answer_1)", metadata={"tags": ["exercise-check"]}),
        nbformat.v4.new_code_cell("# Solution to the exercise above\nx = 1", metadata={"tags": ["hide-cell"]}),
        nbformat.v4.new_markdown_cell("```{solution} x1\n:class: dropdown\n\nBecause.\n```"),
        nbformat.v4.new_markdown_cell("## More practice\n\nMore."),
        nbformat.v4.new_code_cell("problem = practice.race.practice(seed=1)", metadata={"tags": ["practice-problem"]}),
    ]
    lab = nbformat.v4.new_notebook(cells=cells)
    copy = [c.source for c in convert(lab, WHERE, lab="09-x.ipynb", root=ROOT).cells]
    sols = [c.source for c in convert_solutions(lab, WHERE, lab="09-x.ipynb", root=ROOT).cells]
    assert "answer_1 = {'a': ...}" in copy and "check.ex1(answer_1)" in copy
    assert not any("x = 1" in s for s in copy) and any(s.startswith("*The solution to Exercise 1") for s in copy)
    assert any("problem = practice" in s for s in copy)
    assert "# Solution to Exercise 1\nx = 1" in sols and any("> **Solution to Exercise 1**" in s for s in sols)
    assert not any("answer_1" in s or "practice" in s for s in sols)
    # A solution that shares its cell with the exercise leaves no room for the answer cell.
    lab.cells[2].source += "\n" + lab.cells[6].source
    with pytest.raises(ConfigError, match="alone in its Markdown cell"):
        convert(lab, WHERE, lab="09-x.ipynb", root=ROOT)


def test_problems_finds_myst_leftovers_and_relative_links():
    lab = nbformat.read(LABS[1], as_version=4)
    found = problems(lab)
    assert any("MyST syntax" in p for p in found) and any("not an absolute https" in p for p in found)
    cell = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("A {term}`lease` and {glue:text}`x:.1f`")])
    assert len(problems(cell)) >= 2


def test_convert_markdown_turns_directives_and_links_into_commonmark():
    where = Published(repository_url="https://github.com/o/r")
    text = (
        "```{note}\nSee [lease](../chapters/glossary.md#term-Lease).\n```\n"
        "```{exercise}\n:label: x1\n\n**(Moderate, design)** Why?\n```\n"
        "```{solution} x1\n:class: dropdown\n\nBecause [Lab 1](01-enactor-race.ipynb).\n```"
    )
    out = convert_markdown(text, where, root=ROOT)
    assert "> **Note**\n>\n> See [lease](https://o.github.io/r/chapters/glossary.html#term-Lease)." in out
    assert "### Exercise 1 (Moderate, design)\n\nWhy?" in out
    assert (
        "<details>\n<summary>Solution (click to show)</summary>\n\nBecause [Lab 1](https://o.github.io/r/labs/01-enactor-race.html).\n\n</details>"
        in out
    )


@pytest.mark.parametrize(
    "text, message",
    [
        ("```{figure} x.png\n```", "directive must be one of"),
        ("```{exercise}\n:label: a\n\nNo grade.\n```", "grade"),
        ("```{solution} nowhere\nText\n```", "solution label"),
        ("[x](../README.md)", "relative link"),
        ("[x](../chapters/no-such-page.md)", "relative link"),
    ],
)
def test_convert_refuses_what_it_cannot_make_portable(text, message):
    with pytest.raises(ConfigError, match=message):
        convert_markdown(text, WHERE, root=ROOT)


def test_convert_needs_the_title_and_install_cells():
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("1")])
    with pytest.raises(ConfigError, match="title"):
        convert(nb, WHERE, lab="x.ipynb", root=ROOT)


# --- Chapters: each chapter's Exercises section as a student notebook -------------------------

CHAPTERS = chapters_with_exercises(ROOT)
ANCHORS, CITES = glossary_anchors(ROOT), citation_labels(ROOT)


def test_every_chapter_with_exercises_has_a_student_notebook():
    names = {chapter_notebook_name(p.stem) for p in CHAPTERS}
    assert {p.stem for p in CHAPTERS} >= {"what-happened", "the-race", "the-cascade", "recovery", "six-stop-points"}
    assert names == {p.name for p in (ROOT / "student").glob("chapter-*.ipynb")}


@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda p: p.stem)
def test_chapter_student_notebook_reads_right_without_myst(chapter):
    text = chapter.read_text(encoding="utf-8")
    exercises = text.split("\n## Exercises\n", 1)[1].split("\n## ", 1)[0]
    student = nbformat.read(ROOT / "student" / chapter_notebook_name(chapter.stem), as_version=4)
    assert problems(student) == []
    assert student.cells[0].source.startswith("# Exercises: ")
    assert student.cells[2].source == student_install_cell(WHERE)
    setup = student.cells[3]
    assert setup.cell_type == "code" and "exercise-setup" in exercises.split("```{exercise", 1)[0]
    # Each exercise: a numbered heading with its grade, in the page's order; each solution folded.
    n_exercises = len(re.findall(r"^```\{exercise(?:-start)?\}", exercises, re.MULTILINE))
    n_solutions = len(re.findall(r"^```\{solution(?:-start)?\}", exercises, re.MULTILINE))
    markdown = [c.source for c in student.cells if c.cell_type == "markdown"]
    headings = re.findall(r"^### Exercise (\d+) \((?:Simple|Moderate|Advanced)[^)]*\)$", "\n".join(markdown), re.M)
    assert [int(n) for n in headings] == list(range(1, n_exercises + 1))
    folded = [c.source for c in student.cells if "<summary>Solution (click to show)</summary>" in c.source]
    assert len(folded) == n_solutions
    # MyST-NB is a book dependency, not a student's: no glue left in code, none quoted in Markdown.
    code = [c.source for c in student.cells if c.cell_type == "code"]
    assert not any("myst_nb" in s or re.search(r"\bglue\(", s) for s in code)
    # Links point at the published book; the page's hidden self-checks are not copied.
    html = "\n".join(md.render(s) for s in markdown)
    assert all(h.startswith(WHERE.book_url) for h in re.findall(r'href="([^"]+)"', html))
    assert not any("# Self-check" in s for s in code)
    assert all(
        not c.get("outputs") and c.get("execution_count") is None for c in student.cells if c.cell_type == "code"
    )
    assert student.metadata["kernelspec"]["name"] == "python3"


def _chapter(section: str, setup: str = "x = 1") -> str:
    return (
        "# A chapter\n\n(a-target)=\n## A section\n\nText.\n\n## Exercises\n\nIntro, dropped.\n\n"
        f"```{{code-cell}} ipython3\n:tags: [exercise-setup]\n\n{setup}\n```\n\n{section}\n"
    )


def _convert_chapter(section: str, setup: str = "x = 1"):
    return convert_chapter(_chapter(section, setup), WHERE, chapter="the-race", anchors=ANCHORS, cites=CITES, root=ROOT)


def test_convert_chapter_turns_glue_into_variables_and_markdown_cells():
    setup = 'from myst_nb import glue\n\nfrom math import pi\n\nglue("ex_pi", pi, display=False)'
    section = (
        "```{exercise-start}\n:label: c-ex1\n```\n"
        "**(Simple)** Is {glue:text}`ex_pi:.2f` {x}?\n```{exercise-end}\n```\n\n"
        "```{solution-start} c-ex1\n:class: dropdown\n```\n\n"
        '```{code-cell} ipython3\nglue("ex_tau", 2 * pi,\n     display=False)\nprint(ex_tau)\n```\n\n'
        "So {glue:text}`ex_tau:.1f`, see {cite}`aws-pes-2025`, a {term}`lease` and {ref}`a-target`.\n"
        "```{solution-end}\n```\n\n"
        "```{code-cell} ipython3\n:tags: [remove-cell]\n\n# Self-check\nassert True\n```"
    )
    nb = _convert_chapter(section, setup)
    sources = [c.source for c in nb.cells]
    assert sources[3] == (
        "from IPython.display import Markdown  # prints the paragraphs that quote numbers\n\n"
        "from math import pi\n\nex_pi = pi"
    )
    assert sources[4] == "### Exercise 1 (Simple)"
    assert sources[5] == 'Markdown(f"""Is {ex_pi:.2f} {{x}}?""")'
    assert sources[6] == (
        "# Solution to Exercise 1: try the exercise before you run this cell\nex_tau = 2 * pi\nprint(ex_tau)"
    )
    assert sources[7].startswith(
        "#@title Solution: run this cell to print the explanation with your run's numbers\n"
        'Markdown(f"""<details>\n<summary>Solution (click to show)</summary>\n\nSo {ex_tau:.1f}, see ('
    )
    assert nb.cells[7].metadata == {"jupyter": {"source_hidden": True}, "cellView": "form"}
    assert f"[{CITES['aws-pes-2025']}]({WHERE.page_url('chapters/references.md')})" in sources[7]
    assert f"[lease]({WHERE.page_url('chapters/glossary.md#term-Lease')})" in sources[7]
    assert f"[A section]({WHERE.page_url('chapters/the-race.md#a-target')})" in sources[7]
    assert len(nb.cells) == 8, "the remove-cell self-check is not copied"
    # The printed paragraphs are what the chapter says, with the numbers filled in.
    namespace: dict[str, object] = {"Markdown": str}
    for source in sources[3:]:
        exec(source.replace("from IPython.display import Markdown", ""), namespace)
    assert eval(sources[5], namespace) == "Is 3.14 {x}?"


@pytest.mark.parametrize(
    "section, message",
    [
        ("```{exercise}\n:label: c\n\n**(Simple)** Is {glue:text}`nowhere` so?\n```", "glue key 'nowhere'"),
        ("```{exercise}\n:label: c\n\n**(Simple)** A {term}`no such term`?\n```", "glossary term"),
        ("```{exercise}\n:label: c\n\n**(Simple)** See {cite}`no-such-key`.\n```", "references.bib"),
        ("```{exercise}\n:label: c\n\n**(Simple)** See {ref}`nowhere`.\n```", "section of this chapter"),
        ("```{exercise}\n:label: c\n\n**(Simple)** {math}`x^2`?\n```", "a role in the exercises"),
        ("```{exercise-start}\n:label: c\n```\n**(Simple)** Unclosed.", "not closed"),
        ("```{solution-start} nowhere\n```\nText\n```{solution-end}\n```", "solution label"),
        ("```{code-cell} ipython3\nfor k in 'ab':\n    glue(k, 1)\n```", "statement of its own"),
        # A glue statement sharing its line would lose the other statement.
        ('```{code-cell} ipython3\nn = 2; glue("ex_n", n, display=False)\n```', "alone on its"),
        ("```{code-cell} ipython3\nfrom myst_nb import glue as g\n```", "only glue from myst_nb"),
        ("```{code-cell} ipython3\nimport myst_nb\n```", "only glue from myst_nb"),
        # A glue key becomes a variable: it must not be a name the code binds, a builtin or a keyword.
        ('```{code-cell} ipython3\nglue("ex_k", 3, display=False)\nex_k = 99\n```', "also names"),
        ('```{code-cell} ipython3\nglue("print", 3, display=False)\n```', "new name"),
        ('```{code-cell} ipython3\nglue("class", 3, display=False)\n```', "new name"),
        (
            "```{exercise-start}\n:label: c\n```\n**(Simple)** Q\n```{code-cell} ipython3\n1\n```\nmore\n"
            "```{exercise-end}\n```",
            "code cell inside an exercise",
        ),
        (
            "```{exercise-start}\n:label: c\n```\n**(Simple)** Q\n"
            "```{solution-start} c\n```\nA\n```{solution-end}\n```\n```{exercise-end}\n```",
            "inside an open exercise",
        ),
        (
            '```{code-cell} ipython3\nglue("ex_v", 1, display=False)\n```\n\n'
            "```{exercise}\n:label: c\n\n**(Simple)** Q\n```\n\n```{solution} c\nIt is {glue:text}`ex_v`.\n```",
            "would print unfolded",
        ),
        ("```{exercise}\n:label: c\n\n**(Simple)** A {glue:md}`k`?\n```", "with {glue:text} only"),
    ],
)
def test_convert_chapter_refuses_what_a_student_copy_cannot_hold(section, message):
    with pytest.raises(ConfigError, match=message):
        _convert_chapter(section)


def test_convert_chapter_needs_an_exercises_section_opening_with_its_setup():
    with pytest.raises(ConfigError, match="Exercises"):
        convert_chapter("# T\n\nNo exercises.\n", WHERE, chapter="t", anchors=ANCHORS, cites=CITES, root=ROOT)
    text = "# T\n\n## Exercises\n\n```{code-cell} ipython3\nx = 1\n```\n"
    with pytest.raises(ConfigError, match="exercise-setup"):
        convert_chapter(text, WHERE, chapter="t", anchors=ANCHORS, cites=CITES, root=ROOT)


def test_citation_labels_are_author_year():
    assert CITES["aws-dat453-2025"] == "Howard 2025"
    assert CITES["aws-pes-2025"] == "Amazon Web Services 2025"
    assert CITES["bronson-2021"] == "Bronson et al. 2021"


def test_convert_chapter_keeps_inner_fences_code_spans_quotes_and_page_anchors():
    setup = 'from myst_nb import glue\n\nglue("ex_q", "a", display=False)'
    section = (
        "```{exercise-start}\n:label: c-ex1\n```\n**(Simple)** Use `{seed}` and `d[k]`; see [there](#a-target) "
        "and {doc}`../labs/01-enactor-race`.\n```{exercise-end}\n```\n\n"
        "```{solution-start} c-ex1\n:class: dropdown\n```\n\nBefore.\n\n```{note}\nInner.\n```\n\n"
        'After "{glue:text}`ex_q`"\n```{solution-end}\n```'
    )
    nb = _convert_chapter(section, setup)
    question, answer = nb.cells[4].source, nb.cells[5].source
    assert nb.cells[3].source.startswith("from IPython.display import Markdown"), (
        "only a solution prints, yet it needs it"
    )
    assert "Use `{seed}` and `d[k]`" in question
    assert f"[there]({WHERE.page_url('chapters/the-race.md#a-target')})" in question
    assert f"[Lab 1: The Enactor race]({WHERE.page_url('labs/01-enactor-race.ipynb')})" in question
    # The note stays inside the fold, and the paragraph ending in a quote is valid Python.
    namespace: dict[str, object] = {"Markdown": str, "ex_q": "a"}
    printed = eval(answer.split("\n", 1)[1], namespace)
    assert printed.index("> **Note**") < printed.index("After") < printed.index("</details>")
    assert printed.endswith('After "a"\n\n</details>')
    assert problems(nb) == []


def test_problems_reads_the_text_a_markdown_cell_prints():
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell('Markdown(f"""A {{x}} :::{{note}} {v:.1f}""")')])
    assert problems(nb) == []  # escaped braces and values are fine
    nb.cells[0].source = 'Markdown(f"""Text\n:::{{note}}\nraw\n:::""")'
    assert any("printed" in p for p in problems(nb))
