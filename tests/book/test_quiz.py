"""The concept quiz: its questions (labsupport.quiz), its key, scoring and HTML (coursetools.quiz), its pages.

The data file's claims are checked against the book: each of the two parallel forms asks one
question per entry of the misconceptions page (its label and heading), in the same order, every
explanation points at a page and a heading that exist (and at the id the book gives that heading),
and no explanation quotes a figure other than through a placeholder that the misconceptions page
glues under the same name. The answers of the questions that rest on a run are checked against
that run (the last section).
"""

from __future__ import annotations

import json
import re
from dataclasses import replace
from html.parser import HTMLParser
from pathlib import Path

import nbformat
import pandas as pd
import pytest
import yaml
from docutils.nodes import make_id

from coursetools import quiz
from labsupport import ConfigError
from labsupport import quiz as questions
from labsupport.timeline import durations

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "labsupport" / "data" / "quiz.json"
KEY = ROOT / "tools" / "coursetools" / "data" / "quiz_key.json"
MISCONCEPTIONS = ROOT / (questions.MISCONCEPTIONS_PAGE + ".md")
QUESTIONS = quiz.load()  # the bank: both forms
FORMS = {stage: quiz.form(stage) for stage in quiz.STAGES}
RAW = json.loads(KEY.read_text(encoding="utf-8"))
PAGES = {"before": "chapters/quiz-before", "after": "chapters/quiz-after"}


# ---------------------------------------------------------------------------------------------
# Reading the book's sources


_FENCE = re.compile(r"^\s*(`{3,}|~{3,}|:{3,})")


def headings(markdown: str) -> list[tuple[int, str]]:
    """``(level, text)`` of every heading outside fenced blocks, front matter and code, markup removed."""
    out, fence = [], None
    lines = markdown.splitlines()
    if lines and lines[0].strip() == "---":  # YAML front matter
        lines = lines[lines.index("---", 1) + 1 :] if "---" in lines[1:] else []
    for line in lines:
        m = _FENCE.match(line)
        if m:
            mark = m.group(1)
            if fence is None:
                fence = mark
            elif mark[0] == fence[0] and len(mark) >= len(fence) and not line.strip()[len(mark) :].strip():
                fence = None
            continue
        h = re.match(r"^(#{1,6})\s+(.*?)\s*#*\s*$", line)
        if fence is None and h:
            out.append((len(h.group(1)), re.sub(r"[*`]", "", h.group(2))))
    return out


def page_headings(page: str) -> list[tuple[int, str]]:
    md, nb = ROOT / f"{page}.md", ROOT / f"{page}.ipynb"
    if md.is_file():
        return headings(md.read_text(encoding="utf-8"))
    notebook = nbformat.read(nb, as_version=4)
    return [h for cell in notebook.cells if cell.cell_type == "markdown" for h in headings(cell.source)]


def misconception_entries() -> dict[str, str]:
    """``{label: heading}`` of every entry of the misconceptions page."""
    return dict(re.findall(r"^\((mc-[a-z0-9-]+)\)=\n## (.+)$", MISCONCEPTIONS.read_text(encoding="utf-8"), re.M))


def glued_names(text: str) -> set[str]:
    """Names a page glues: ``glue("name", ...)``, and the names of a ``for name in (...): glue(name`` loop."""
    names = set(re.findall(r'glue\(\s*"(\w+)"', text))
    for loop in re.findall(r"for name in \(([^)]*)\):\s*\n\s*glue\(name", text):
        names |= set(re.findall(r'"(\w+)"', loop))
    return names


# ---------------------------------------------------------------------------------------------
# The data: drawn from the misconceptions page, citing sections that exist


@pytest.mark.parametrize("stage", quiz.STAGES)
def test_each_form_asks_ten_to_fifteen_questions_one_per_misconception_of_the_page(stage):
    entries = misconception_entries()
    questions = FORMS[stage]
    assert 10 <= len(questions) <= 15
    assert [q.misconception for q in questions if q.misconception not in entries] == []
    assert len({q.misconception for q in questions}) == len(questions), "two questions test one misconception"
    assert {q.misconception for q in questions} == set(entries), "an entry of the misconceptions page has no question"
    for q in questions:
        assert q.belief == entries[q.misconception], (q.id, q.belief)


def test_the_forms_are_parallel_and_share_no_question():
    before, after = FORMS["before"], FORMS["after"]
    assert [q.misconception for q in before] == [q.misconception for q in after], "question n tests one belief"
    assert {q.id for q in before}.isdisjoint(q.id for q in after)
    assert sorted(q.id for q in (*before, *after)) == sorted(q.id for q in QUESTIONS), "the bank is the two forms"
    for b, a in zip(before, after, strict=True):
        # Another question, not a rewording: another prompt, and no option of one form in the other.
        assert b.prompt != a.prompt
        assert {o.text for o in b.options}.isdisjoint(o.text for o in a.options), (b.id, a.id)
    assert {q.kind for q in after} == set(questions.KINDS)


def test_both_kinds_are_used_and_every_option_is_explained():
    assert {q.kind for q in QUESTIONS} == set(questions.KINDS)
    for q in QUESTIONS:
        for o in q.options:
            assert len(o.explanation.split()) >= 8, (q.id, o.id, "an explanation says why, in a sentence")
            assert o.see, (q.id, o.id)


def test_every_cited_page_is_in_the_book_with_that_title():
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    in_toc = set(re.findall(r"file: ([\w/.-]+)", yaml.safe_dump(toc)))
    for page, title in RAW["pages"].items():
        assert page in in_toc, f"{page} is not a page of the book (_toc.yml)"
        found = page_headings(page)
        assert found and found[0] == (1, title), f"{page}: its title is {found[:1]}, the quiz says {title!r}"
    cited = {ref.page for q in QUESTIONS for o in q.options for ref in o.see}
    assert cited == set(RAW["pages"]), "pages listed but never cited, or the reverse"


def test_every_cited_section_is_a_heading_of_its_page_and_keeps_its_id():
    for q in QUESTIONS:
        for o in q.options:
            for ref in o.see:
                texts = [text for level, text in page_headings(ref.page) if level > 1]
                assert texts.count(ref.section) == 1, (
                    f"{q.id}/{o.id}: {ref.page} has {texts.count(ref.section)} headings {ref.section!r}"
                )
                assert quiz.anchor(ref.section) == make_id(ref.section), ref.section


def test_headings_reader_skips_code_and_front_matter():
    text = "---\ntitle: x\n---\n# Title\n```{code-cell} ipython3\n# a comment\n```\n## The *root* `cause`\n"
    assert headings(text) == [(1, "Title"), (2, "The root cause")]


def test_explanations_quote_figures_only_through_the_misconceptions_pages_glue():
    glued = glued_names(MISCONCEPTIONS.read_text(encoding="utf-8"))
    allowed = re.compile(r"Lab \d|Exercise \d|Route 53|RFC 2308|EC2|us-east-1|\{\w+\}")
    asked = json.loads(DATA.read_text(encoding="utf-8"))["questions"]
    for q in asked:
        for o in q["options"]:
            explanation = RAW["answers"][q["id"]][o["id"]]["explanation"]
            for name in re.findall(r"\{(\w+)\}", o["text"] + explanation + q["prompt"]):
                assert name in glued, f"{q['id']}: {{{name}}} is not glued on the misconceptions page"
            assert not re.search(r"\d", allowed.sub("", explanation)), (q["id"], o["id"], explanation)
    assert set(questions.figures()) <= glued


def test_figures_are_filled_in_from_the_timeline():
    d = durations()
    # (The duration question's options name the two AWS spans without their lengths: Lab 0 asks for
    # the summary's before it is told, tests/book/test_prediction_order.py.)
    after_dns = next(q for q in QUESTIONS if q.id == "after-dns")
    assert str(d.at["dns_empty", "text"]) in after_dns.prompt
    for q in QUESTIONS:
        for text in [q.prompt, *(o.text for o in q.options), *(o.explanation for o in q.options)]:
            assert not re.search(r"\{\w*\}", text), (q.id, text)


# ---------------------------------------------------------------------------------------------
# Scoring


def test_the_answer_key_scores_full_marks_and_nothing_scores_zero():
    key = quiz.answer_key()
    full = quiz.score(key)
    assert list(full["question_id"]) == [q.id for q in QUESTIONS]
    assert full["correct"].all() and full["points"].sum() == len(QUESTIONS)
    empty = quiz.score({})
    assert not empty["correct"].any() and empty["points"].sum() == 0 and (empty["chosen"] == "").all()
    assert dict(full.dtypes.astype(str)) == {
        "question_id": "string",
        "chosen": "string",
        "correct": "bool",
        "points": "int64",
    }


def test_a_multiple_choice_question_needs_exactly_the_right_set():
    fixes = next(q for q in QUESTIONS if q.id == "fixes")
    assert fixes.kind == "multiple" and fixes.answer == ("a", "c", "d")
    rows = {
        c: quiz.score({"fixes": c}).set_index("question_id").loc["fixes"]
        for c in (("a", "c", "d"), ("d", "c", "a", "a"), ("a", "c"), ("a", "b", "c", "d"))
    }
    assert [bool(r["correct"]) for r in rows.values()] == [True, True, False, False]
    assert rows[("d", "c", "a", "a")]["chosen"] == "a,c,d"


def test_a_wrong_single_answer_scores_zero_and_a_string_is_one_choice():
    table = quiz.score({"dns-down": "a", "attack": ["b"]}).set_index("question_id")
    assert not table.at["dns-down", "correct"] and table.at["dns-down", "chosen"] == "a"
    assert table.at["attack", "points"] == 1


@pytest.mark.parametrize(
    "answers, message",
    [
        ({"no-such-question": ["a"]}, "unknown question ids"),
        ({"dns-down": ["z"]}, "unknown choices"),
        ({"dns-down": ["a", "b"]}, "takes one answer"),
        ({"dns-down": {"a": True}}, "must be a list"),
        ([("dns-down", ["a"])], "must be a mapping"),
    ],
)
def test_score_refuses_unknown_ids_and_choices(answers, message):
    with pytest.raises(ConfigError, match=message):
        quiz.score(answers)


# ---------------------------------------------------------------------------------------------
# A malformed data file is refused, naming the entry


def _write(tmp_path: Path, mutate, source: Path = DATA) -> Path:
    data = json.loads(source.read_text(encoding="utf-8"))
    mutate(data)
    path = tmp_path / source.name
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    "mutate, message",
    [
        (lambda d: d["questions"][2].update(prompt="How long was {no_such_figure}?"), r"no_such_figure"),
        (lambda d: d["questions"][3].update(id=d["questions"][0]["id"]), "id must be unique"),
        (lambda d: d["questions"][3].update(kind="essay"), r"questions\[3\]\.kind"),
        (lambda d: d["questions"][0]["options"].reverse(), "lettered a, b, c"),
        # The two forms: each names questions of the bank, each question is in one form, and question
        # n of one form tests the belief of question n of the other.
        (lambda d: d.pop("forms"), "forms must have exactly the stages"),
        (lambda d: d["forms"]["after"].append("no-such-question"), "names questions the file does not have"),
        (lambda d: d["forms"]["after"].__setitem__(0, d["forms"]["before"][0]), "in exactly one form"),
        (lambda d: d["forms"]["after"].pop(), r"must be in a form: \['what-the-race-needs'\]"),
        (lambda d: d["forms"]["after"].reverse(), "same misconceptions in the same order"),
        (lambda d: d["questions"][1].update(misconception="mc-dns-down"), "one question per misconception"),
        # The questions' file holds no answer: an option that says whether it is right is refused.
        (
            lambda d: d["questions"][0]["options"][0].update(correct=True),
            r"questions\[0\]\.options\[0\] must have exactly",
        ),
    ],
)
def test_load_refuses_a_malformed_file(tmp_path, mutate, message):
    with pytest.raises(ConfigError, match=message):
        questions.load(_write(tmp_path, mutate))


@pytest.mark.parametrize(
    "mutate, message",
    [
        (lambda d: d["answers"]["dns-down"]["a"].update(correct=True), r"dns-down'\] gives the 'single' question 2"),
        (
            lambda d: [v.update(correct=True) for v in d["answers"]["fixes"].values()],
            r"fixes'\] gives the 'multiple' question 5",
        ),
        (
            lambda d: d["answers"]["nxdomain"]["a"]["see"][0].update(page="labs/99-nothing"),
            r"nxdomain'\]\['a'\]\.see\[0\]\.page",
        ),
        (lambda d: d["answers"]["dns-down"]["a"].pop("explanation"), "must have exactly the keys"),
        (lambda d: d["answers"].pop("attack"), r"no answers for \['attack'\]"),
        (lambda d: d["answers"]["attack"].pop("a"), r"attack'\] must give exactly the options"),
    ],
)
def test_load_refuses_a_malformed_key(tmp_path, mutate, message):
    with pytest.raises(ConfigError, match=message):
        quiz.load(_write(tmp_path, mutate, KEY))


def test_load_refuses_a_file_that_is_not_json(tmp_path):
    bad = tmp_path / "quiz.json"
    bad.write_text("{ not json", encoding="utf-8")
    with pytest.raises(ConfigError, match="readable JSON quiz file"):
        questions.load(bad)
    with pytest.raises(ConfigError, match="readable JSON quiz key"):
        quiz.load(bad)


# ---------------------------------------------------------------------------------------------
# The HTML


class _Elements(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.elements: list[tuple[str, dict[str, str]]] = []
        self.open: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.elements.append((tag, {k: v or "" for k, v in attrs}))
        if tag not in {"input", "br", "img"}:
            self.open.append(tag)

    def handle_endtag(self, tag):
        assert self.open and self.open[-1] == tag, f"</{tag}> closes <{self.open[-1] if self.open else None}>"
        self.open.pop()


def parse(markup: str) -> list[tuple[str, dict[str, str]]]:
    parser = _Elements()
    parser.feed(markup)
    assert parser.open == [], f"unclosed: {parser.open}"
    return parser.elements


@pytest.mark.parametrize("stage", quiz.STAGES)
def test_every_control_is_labelled_and_every_option_has_its_explanation(stage):
    form = parse(quiz.render_html(stage, page=PAGES[stage]))
    answers = parse(quiz.render_answers_html(stage, page=PAGES[stage]))
    ids = [a["id"] for _, a in form + answers if "id" in a]
    assert len(ids) == len(set(ids)), "duplicate ids"
    inputs = [a for tag, a in form if tag == "input"]
    labels = {a["for"] for tag, a in form if tag == "label"}
    whys = {a["id"]: a["data-correct"] for tag, a in answers if "ls-quiz-why" in a.get("class", "")}
    assert len(inputs) == sum(len(q.options) for q in FORMS[stage])
    fieldsets = [a for tag, a in form if tag == "fieldset"]
    assert [a["data-question"] for a in fieldsets] == [q.id for q in FORMS[stage]]
    assert [a["data-misconception"] for a in fieldsets] == [q.misconception for q in FORMS[stage]]
    for a in inputs:
        assert a["id"] in labels and a["id"].startswith(f"ls-quiz-{stage}-")
        assert whys[a["id"] + "-why"] == a["data-correct"]
    key = {(q.id, o.id): o.correct for q in QUESTIONS for o in q.options}
    assert all(
        key[(a["name"].removeprefix(f"ls-quiz-{stage}-"), a["value"])] == (a["data-correct"] == "true") for a in inputs
    )
    assert {a["type"] for a in inputs} == {"radio", "checkbox"}
    assert [a for tag, a in form if tag == "fieldset"] and all(
        tag != "fieldset" or a["data-kind"] in quiz.KINDS for tag, a in form
    )
    assert sum(1 for _, a in form if a.get("role") == "status") == len(FORMS[stage]) + 1
    assert all(
        "hidden" in a
        for tag, a in form
        if "ls-quiz-tools" in a.get("class", "") or "ls-quiz-actions" in a.get("class", "")
    ), "buttons are hidden until the script runs"


def test_before_the_course_every_answer_is_hidden_until_the_script_reveals_it():
    form = parse(quiz.render_html("before", page=PAGES["before"]))
    answers = parse(quiz.render_answers_html("before", page=PAGES["before"]))
    assert form[0][1]["data-reveal"] == "answered"
    items = [a for tag, a in answers if tag == "li" and a.get("id", "").endswith("-answer")]
    assert [a["id"] for a in items] == [f"ls-quiz-before-{q.id}-answer" for q in FORMS["before"]]
    assert all("hidden" in a for a in items), "an answer is shown before its question is answered"
    assert [a["value"] for a in items] == [str(n) for n in range(1, len(items) + 1)], "numbered as the questions"
    assert not any(tag == "details" for tag, _ in answers), "no 'show the answers' switch before the course"
    assert any(tag == "noscript" for tag, _ in answers), "a reader without JavaScript is told why"
    # After the course the answers are a closed <details> that a reader opens, as before this change.
    after = parse(quiz.render_answers_html("after", page=PAGES["after"]))
    assert after[0][0] == "details" and "open" not in after[0][1] and "data-reveal" not in after[0][1]
    assert not any("hidden" in a for tag, a in after if tag == "li")
    assert "data-reveal" not in parse(quiz.render_html("after", page=PAGES["after"]))[0][1]


def test_links_are_relative_to_the_page_and_reach_the_misconceptions_entry():
    answers = quiz.render_answers_html("before", page="chapters/quiz-before")
    hrefs = re.findall(r'href="([^"]+)"', answers)
    assert "../labs/01-enactor-race.html#the-events" in hrefs
    assert "the-race.html#clean-up" in hrefs
    assert "instructor-guide/misconceptions.html#mc-dns-down" in hrefs
    assert not any(h.startswith(("http:", "https:", "//", "/")) for h in hrefs)
    nested = quiz.render_answers_html("after", page="chapters/deeper/quiz-after")
    assert "../../labs/01-enactor-race.html#the-events" in nested


def test_code_spans_and_text_are_escaped_for_html():
    answers = quiz.render_answers_html("after", page="chapters/quiz-after")
    assert '<code class="docutils literal notranslate">throttle_by_queue_length</code>' in answers
    assert "&quot;" not in answers and "AWS's" in answers


@pytest.mark.parametrize(
    "stage, page, message",
    [
        ("during", "chapters/quiz-before", "stage must be one of"),
        ("before", "chapters/quiz-before.md", "without suffix"),
        ("before", "", "without suffix"),
    ],
)
def test_render_refuses_an_unknown_stage_or_a_page_with_a_suffix(stage, page, message):
    with pytest.raises(ConfigError, match=message):
        quiz.render_html(stage, page=page)
    with pytest.raises(ConfigError, match=message):
        quiz.render_answers_html(stage, page=page)


def test_the_stored_score_is_tied_to_the_questions_and_answers():
    form = quiz.render_html("before", page="chapters/quiz-before")
    version = re.search(r'data-version="(\w+)"', form).group(1)
    assert version == re.search(r'data-version="(\w+)"', quiz.render_html("after", page="chapters/quiz-after")).group(1)
    first = QUESTIONS[0]
    moved = replace(first, options=tuple(replace(o, correct=o.id == "a") for o in first.options))
    assert moved.answer != first.answer
    assert quiz._version((moved, *QUESTIONS[1:])) != version  # noqa: SLF001 - the fingerprint itself
    reworded = replace(first, prompt="Another wording of the same question?")
    assert quiz._version((reworded, *QUESTIONS[1:])) == version  # noqa: SLF001


# ---------------------------------------------------------------------------------------------
# The pages and the book


@pytest.mark.parametrize("stage", quiz.STAGES)
def test_each_quiz_page_renders_its_own_stage_for_its_own_path(stage):
    text = (ROOT / f"{PAGES[stage]}.md").read_text(encoding="utf-8")
    calls = re.findall(r'quiz\.(render_html|render_answers_html)\("(\w+)", page="([\w/-]+)"\)', text)
    assert sorted(c[0] for c in calls) == ["render_answers_html", "render_html"]
    assert {(c[1], c[2]) for c in calls} == {(stage, PAGES[stage])}
    toc = (ROOT / "_toc.yml").read_text(encoding="utf-8")
    assert f"file: {PAGES[stage]}\n" in toc


def test_the_before_page_comes_first_and_the_after_page_after_the_labs():
    files = re.findall(r"file: ([\w/.-]+)", (ROOT / "_toc.yml").read_text(encoding="utf-8"))
    labs = [i for i, f in enumerate(files) if f.startswith("labs/")]
    assert files.index(PAGES["before"]) == 0
    assert files.index(PAGES["after"]) > max(labs)


def test_the_book_serves_the_quiz_script_and_styles(tmp_path, monkeypatch):
    from types import SimpleNamespace

    from coursetools import book

    assert "quiz.css" in book.CSS_PARTS and ".ls-quiz" in book._css()  # noqa: SLF001
    monkeypatch.setattr(book.vl_convert, "javascript_bundle", lambda vl_version: "var vega = {};")
    app = SimpleNamespace(doctreedir=str(tmp_path / ".doctrees"), config=SimpleNamespace(html_static_path=[]))
    book._write_bundle(app)  # noqa: SLF001
    served = (tmp_path / "labsupport_static" / book.QUIZ_JS_NAME).read_text(encoding="utf-8")
    assert served == (ROOT / "tools" / "coursetools" / "book_js" / "quiz.js").read_text(encoding="utf-8")
    assert "form.ls-quiz" in served
    assert "fetch(" not in served and "XMLHttpRequest" not in served and "http" not in served


def _luminance(hex_colour: str) -> float:
    def channel(v: int) -> float:
        c = v / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (int(hex_colour[i : i + 2], 16) for i in (1, 3, 5))
    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)


def contrast(a: str, b: str) -> float:
    hi, lo = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def _theme_colours(mode: str) -> dict[str, str]:
    """The page's background and surface colours in one mode: pydata's, then the book theme's over them."""
    import pydata_sphinx_theme
    import sphinx_book_theme

    css = "".join(
        next(Path(m.__file__).parent.rglob(name)).read_text(encoding="utf-8")
        for m, name in ((pydata_sphinx_theme, "pydata-sphinx-theme.css"), (sphinx_book_theme, "sphinx-book-theme.css"))
    )
    found: dict[str, str] = {}
    for block in re.findall(rf"html\[data-theme={mode}\]\{{([^}}]*)\}}", css):
        found.update(re.findall(r"--pst-color-(background|surface):(#[0-9a-f]{6}\b|#[0-9a-f]{3}\b)", block))
    # "#fff" is "#ffffff"
    return {k: v if len(v) == 7 else "#" + "".join(c * 2 for c in v[1:]) for k, v in found.items()}


def test_right_and_wrong_colours_have_enough_contrast_in_both_themes():
    css = (ROOT / "tools" / "coursetools" / "book_css" / "quiz.css").read_text(encoding="utf-8")
    light, dark = (
        dict(re.findall(r"--ls-quiz-(\w+): (#[0-9a-f]{6})", block))
        for block in re.findall(r"\{([^}]*--ls-quiz-right[^}]*)\}", css)[:2]
    )
    assert contrast("#ffffff", light["button"]) >= 4.5
    for mode, colours in (("light", light), ("dark", dark)):
        backgrounds = _theme_colours(mode)
        assert set(backgrounds) == {"background", "surface"}, backgrounds
        for name in ("right", "wrong"):
            for where, bg in backgrounds.items():
                assert contrast(colours[name], bg) >= 4.5, (mode, name, where, contrast(colours[name], bg))


def test_contrast_helper_matches_known_values():
    assert contrast("#000000", "#ffffff") == pytest.approx(21.0)
    assert contrast("#767676", "#ffffff") == pytest.approx(4.54, abs=0.01)


def test_score_table_is_a_dataframe_the_graded_track_can_sum():
    table = quiz.score({"fixes": ["a", "c", "d"]})
    assert isinstance(table, pd.DataFrame) and int(table["points"].sum()) == 1


def test_the_backoff_option_says_what_the_dwfm_model_does():
    """Question "retries", option b: its text and explanation, run (Lab 2's Exercise 3, the cascade's sweep)."""
    from labsupport import dwfm

    option = next(o for q in QUESTIONS if q.id == "retries" for o in q.options if o.id == "b")
    assert not option.correct and "Exercise 3" in option.text and "longer base" in option.explanation
    unattended = replace(dwfm.INCIDENT, operator_restart_at_s=None, operator_throttle_at_s=None)
    for cap_s in (1_800.0, 3_600.0, 7_200.0, 14_400.0):  # Lab 2's Exercise 3: no cap restores every lease
        assert not dwfm.run(
            replace(unattended, retry_policy="backoff_full_jitter", retry_cap_s=cap_s)
        ).summary.recovered
    sweep = dwfm.backoff_sweep().set_index(["fleet_droplets_count", "setting"])["recovered"]
    slow = "backoff, base 5 min, cap 4 h"
    assert sweep[(dwfm.INCIDENT.fleet_droplets_count, slow)], "the slow backoff recovers the incident's fleet"
    largest = sweep.index.get_level_values(0).max()
    assert not sweep[largest].filter(like="backoff").any(), "no backoff recovers the sweep's largest fleet"


# ---------------------------------------------------------------------------------------------
# The after-course form's answers that rest on a run or on the timeline: each is checked against it


def _right(qid: str) -> tuple[str, ...]:
    return next(q for q in QUESTIONS if q.id == qid).answer


def _pdt(row_id: str, column: str = "time_pdt") -> pd.Timestamp:
    from labsupport import timeline

    rows = timeline.load().set_index("id")
    return rows.at[row_id, column]


def test_one_enactor_cannot_empty_an_endpoint_two_can():
    """one-enactor, option a: Lab 6's checker with one Enactor finds no empty endpoint; with two it does."""
    from labsupport import explore

    assert _right("one-enactor") == ("a",)
    alone = explore.run(replace(explore.INCIDENT, enactor_count=1)).summary
    pair = explore.run(replace(explore.INCIDENT, enactor_count=2))
    assert alone.safe and alone.recovers and not alone.empty_reachable
    assert not pair.summary.safe
    ev = pair.events
    stale = ev.loc[ev["role"] == "stale overwrite", "actor"].iat[0]
    killed = ev.loc[ev["role"] == "active plan deleted", "actor"].iat[0]
    assert stale != killed and "planner" not in (stale, killed), "both damaging steps are Enactors', not the same one"


def test_a_read_before_a_blind_write_is_still_a_stale_write():
    """read-then-write, option a: Lab 8's first fix (read, then an unconditional write) is unsafe."""
    from labsupport import explore

    assert _right("read-then-write") == ("a",)

    def check_then_write(plan, endpoints, keep, read, write, delete):
        for endpoint in endpoints:
            zone = yield read(endpoint)
            if zone.alias < plan:
                yield write(endpoint, plan)
        for endpoint in endpoints:
            zone = yield read(endpoint)
            for old in zone.trees:
                if old < plan - keep:
                    yield delete(endpoint, old)

    s = explore.run(replace(explore.INCIDENT_STEP, enactor_step=check_then_write)).summary
    assert not s.safe and s.stale_overwrite_reachable


def test_a_one_hour_deadline_fails_twice_the_fleet_and_the_throttle_recovers_it():
    """deadline-doubled-fleet, option a: Lab 2's Exercise 1 run with the fleet doubled."""
    from labsupport import dwfm

    assert _right("deadline-doubled-fleet") == ("a",)
    unattended = replace(dwfm.INCIDENT, operator_restart_at_s=None, operator_throttle_at_s=None)
    long = replace(unattended, work_deadline_s=3_600.0)
    doubled = replace(long, fleet_droplets_count=2 * dwfm.INCIDENT.fleet_droplets_count)
    assert dwfm.run(long).summary.recovered, "Exercise 1: the preset's fleet recovers with one hour"
    assert not dwfm.run(doubled).summary.recovered
    assert dwfm.run(replace(doubled, throttle_by_queue_length=True)).summary.recovered


def test_busy_hosts_finish_almost_nothing_in_time_during_the_collapse():
    """goodput-in-collapse, option a: Lab 2's "Busy hosts, no progress" window, as the lab computes it."""
    import math

    from labsupport import dwfm

    assert _right("goodput-in-collapse") == ("a",)
    inc = dwfm.INCIDENT
    ts = dwfm.run(inc).timeseries
    step = inc.report_interval_s
    c0 = step * math.ceil((inc.outage_end_s + inc.state_check_interval_s + inc.work_deadline_s) / step)
    c1 = inc.operator_restart_at_s
    window = ts[(ts["time_s"] > c0) & (ts["time_s"] <= c1)]
    capacity = inc.dwfm_hosts_count * inc.host_concurrency_count * step / inc.lease_establish_s
    assert window["started_count"].mean() / capacity > 0.99 and dwfm.goodput_fraction(ts, c0, c1) < 0.01


def test_what_began_after_the_dns_repair_by_the_timeline():
    """after-repair-started, options a and b; instances-at-six; duration-from-times: Lab 0's timeline."""
    from labsupport import timeline

    assert _right("after-repair-started") == ("a", "b")
    repair = _pdt("ddb-dns-restored")
    assert _pdt("nlb-begin") > repair and _pdt("netmgr-latency") > repair
    assert _pdt("ddb-race") < repair and _pdt("lambda-sts-signin") < _pdt("signin-normal") < repair
    # instances-at-six: at 6:00 AM new launches were still in the summary's period of failed launches.
    assert _right("instances-at-six") == ("a",)
    six = repair.normalize() + pd.Timedelta(hours=6)
    assert _pdt("ec2-launch-period") < six < _pdt("ec2-launch-period", "end_pdt") < _pdt("ec2-normal")
    # duration-from-times: the summary's start and end are the whole event apart, in any time zone.
    assert _right("duration-from-times") == ("a",)
    whole = timeline.durations().at["whole_event", "duration"]
    assert _pdt("event-end") - _pdt("ddb-race") == whole != pd.Timedelta(hours=15, minutes=32)
    assert _pdt("event-end").tz_convert("UTC") - _pdt("ddb-race").tz_convert("UTC") == whole


def test_lab_1_empties_the_endpoint_with_a_delayed_enactor_and_anothers_clean_up():
    """what-the-race-needs, options a and b: Lab 1's incident run."""
    from labsupport import race

    assert _right("what-the-race-needs") == ("a", "b")
    ev = race.run(race.INCIDENT).events
    reg = race.INCIDENT.regional_endpoint
    stale = ev[(ev["action"] == "stale_write") & (ev["endpoint"] == reg)].iloc[0]
    deleted = ev[(ev["action"] == "delete_active") & (ev["endpoint"] == reg)].iloc[0]
    assert stale["actor"] != deleted["actor"] and race.INCIDENT_DELAY.lock_losses_count > 1
    # Nobody else acts on the records: Route 53 only reports what its records answer, the operator
    # only repairs, after the endpoint went empty.
    assert set(ev.loc[ev["actor"] == "route53", "action"]) <= {"initial_state", "endpoint_empty", "endpoint_restored"}
    assert (ev.loc[ev["actor"] == "operator", "time_s"] > deleted["time_s"]).all()
    assert set(ev["actor"]) <= {"planner", "operator", "route53", *(f"enactor-{c}" for c in "abc")}
