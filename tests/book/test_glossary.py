"""The glossary (chapters/glossary.md): every entry is defined, gives five languages, and the terms
are sorted and unique.

The page holds one Sphinx ``{glossary}`` directive. Inside it, an unindented line is a term (several
consecutive term lines share one entry), and the indented lines after them are the entry's body:
a definition, one translation line of the form

    *ja* [競合（競合状態）]{.language-ja} · *fr* [situation de concurrence]{.language-fr} · ...

(English is the term itself; each translation is a MyST span whose class ``language-xx`` docutils
writes as ``lang="xx"``, so that screen readers and fonts treat it as that language, WCAG 3.1.2),
and optionally a ``*Where it matters:*`` line. tests/browser/test_book_axe.py checks the built page.
"""

from __future__ import annotations

import itertools
import re
import textwrap
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GLOSSARY = ROOT / "chapters" / "glossary.md"

LANGS = ("ja", "fr", "pt", "es")
TRANSLATION = re.compile(
    r"^" + " · ".join(rf"\*{lang}\* \[(?P<{lang}>[^\]]+)\]\{{\.language-{lang}\}}" for lang in LANGS) + "$"
)
# Hiragana, katakana (with the long-vowel mark) and CJK ideographs.
JAPANESE = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")
PLACEHOLDER = re.compile(r"^(?:todo|tbd|xxx|n/?a|\?+|-+|—|…|\.\.\.)$", re.IGNORECASE)

# Terms the course relies on (each must be a term or an alias in the glossary).
REQUIRED = [
    "TOCTOU",
    "Time-of-check to time-of-use",
    "CWE-367",
    "Race condition",
    "Conditional write",
    "Compare-and-set",
    "Lease",
    "TTL",
    "Negative caching",
    "Congestive collapse",
    "Metastable failure",
    "Admission control",
    "Load shedding",
    "Exponential backoff",
    "Jitter",
    "Velocity control",
    "Health check",
    "Flapping",
    "Failover",
    "AZ DNS failover",
    "Alias record",
    "Weighted record",
    "Hosted zone",
    "Transaction",
    "Rollback record",
    "DNS Planner",
    "DNS Enactor",
    "DNS plan",
    "Plan generation",
    "Cleanup",
    "Garbage collection",
    "DWFM",
    "Droplet",
    "State check",
    "Network Manager",
    "NLB",
    "Availability Zone",
    "Region",
    "Endpoint",
    "Regional endpoint",
    "FIPS endpoint",
    "IPv6 endpoint",
    "Account-specific endpoint",
    "NOERROR",
    "Empty answer",
    "NXDOMAIN",
    "Resolver cache",
    "Goodput",
    "Throughput",
    "Invariant",
    "Safety property",
    "Liveness property",
    "Recovery property",
    "State space",
    "Counterexample",
    "Model checking",
    "TLA+",
    "Promela",
    "Spin",
    "Blast radius",
    "Control plane",
    "Data plane",
    "Static stability",
    "Reconciliation loop",
    "Reference counting",
    "Post-event summary",
    "PES",
    "Root cause",
    "Health Dashboard",
    "Global tables",
]

# Where a seed article uses a term, the glossary gives the seed's own wording.
SEED_WORDING = [
    ("Race condition", "fr", "situation de concurrence"),
    ("Race condition", "pt", "condição de corrida"),
    ("Race condition", "es", "condición de carrera"),
    ("Race condition", "ja", "競合"),
    ("Congestive collapse", "pt", "colapso congestivo"),
    ("Congestive collapse", "es", "colapso por congestión"),
    ("Congestive collapse", "ja", "混雑による崩壊"),
    ("Lease", "ja", "貸し出し"),
    ("Lease", "pt", "lease"),
    ("Endpoint", "fr", "point de terminaison"),
    ("Endpoint", "pt", "endpoint"),
    ("Root cause", "pt", "causa raiz"),
    ("Root cause", "es", "causa raíz"),
    ("Velocity control", "pt", "controle de velocidade"),
    ("Availability Zone", "es", "zona de disponibilidad"),
    ("Cleanup", "ja", "掃除"),
    ("Post-event summary", "pt", "resumo pós-evento"),
]


@dataclass
class Entry:
    terms: list[str]
    line: int
    body: list[str] = field(default_factory=list)

    @property
    def paragraphs(self) -> list[str]:
        text = textwrap.dedent("\n".join(self.body)).strip()
        return [" ".join(p.split()) for p in re.split(r"\n\s*\n", text) if p.strip()]

    @property
    def translations(self) -> list[dict[str, str]]:
        return [m.groupdict() for p in self.paragraphs if (m := TRANSLATION.match(p))]

    @property
    def definition(self) -> str:
        """The paragraphs before the translation line."""
        out = []
        for p in self.paragraphs:
            if TRANSLATION.match(p) or p.startswith("*ja*"):
                break
            out.append(p)
        return " ".join(out)


def glossary_block(text: str) -> list[tuple[int, str]]:
    """Return the numbered lines inside the page's single ```{glossary} directive."""
    lines = text.splitlines()
    starts = [i for i, line in enumerate(lines) if line.strip().startswith("```{glossary}")]
    if len(starts) != 1:
        raise ValueError(f"expected one glossary directive, found {len(starts)}")
    start = starts[0]
    for end in range(start + 1, len(lines)):
        if lines[end].rstrip() == "```":
            block = [(n + 1, lines[n]) for n in range(start + 1, end)]
            # Directive options (":sorted:") come first; they are not terms.
            return [(n, line) for n, line in block if not re.match(r"^:\w+:", line)]
    raise ValueError("the glossary directive is never closed")


def parse_glossary(text: str) -> list[Entry]:
    """Split the glossary directive into entries, the way Sphinx's Glossary directive reads it.

    Raises:
        ValueError: on the layouts Sphinx warns about (a term not preceded by an empty line, terms
            of one entry separated by an empty line, a definition before any term).
    """
    entries: list[Entry] = []
    last_was_term = False
    blank_before = True
    for number, line in glossary_block(text):
        if not line.strip():
            if entries:
                entries[-1].body.append("")
            blank_before = True
            continue
        if not line[0].isspace():
            if last_was_term:
                if blank_before:
                    raise ValueError(f"line {number}: terms of one entry separated by an empty line")
                entries[-1].terms.append(line.strip())
            else:
                if not blank_before:
                    raise ValueError(f"line {number}: a term must follow an empty line")
                entries.append(Entry(terms=[line.strip()], line=number))
            last_was_term = True
        else:
            if not entries:
                raise ValueError(f"line {number}: definition before any term")
            entries[-1].body.append(line)
            last_was_term = False
        blank_before = False
    return entries


def sort_key(term: str) -> str:
    # The key Sphinx's glossary uses for its :sorted: option.
    return unicodedata.normalize("NFD", term.lower())


@pytest.fixture(scope="module")
def entries() -> list[Entry]:
    return parse_glossary(GLOSSARY.read_text(encoding="utf-8"))


def _ids(entries: list[Entry]) -> list[str]:
    return [e.terms[0] for e in entries]


def test_glossary_has_the_required_terms(entries):
    terms = {t.casefold() for e in entries for t in e.terms}
    missing = [t for t in REQUIRED if t.casefold() not in terms]
    assert not missing, f"glossary lacks {missing}"


def test_every_entry_has_a_definition(entries):
    bad = []
    for e in entries:
        words = e.definition.split()
        if len(words) < 12 or not e.definition.rstrip().endswith((".", ")")):
            bad.append(e.terms[0])
    assert not bad, f"entries without a definition of at least one sentence: {bad}"


def test_every_entry_gives_all_five_languages(entries):
    problems = []
    for e in entries:
        found = e.translations
        if len(found) != 1:
            problems.append(f"{e.terms[0]}: {len(found)} translation lines, expected 1")
            continue
        tr = found[0]
        for lang in LANGS:
            value = tr[lang].strip().strip("*").strip()
            if not value or PLACEHOLDER.match(value):
                problems.append(f"{e.terms[0]}: empty or placeholder {lang!r}")
        # Japanese is written in Japanese script, or is a loanword kept as the term itself.
        ja = tr["ja"].strip()
        if not JAPANESE.search(ja) and ja.casefold() not in {t.casefold() for t in e.terms}:
            problems.append(f"{e.terms[0]}: Japanese {ja!r} is neither Japanese nor the term")
    assert not problems, "\n".join(problems)


def test_every_translation_is_marked_with_its_language(entries):
    """WCAG 3.1.2: each translation carries its language, so a screen reader speaks it as such."""
    unmarked = [
        f"{e.terms[0]}: {p[:60]!r}"
        for e in entries
        for p in e.paragraphs
        if p.startswith("*ja*") and not TRANSLATION.match(p)
    ]
    assert not unmarked, (
        "translation lines whose four translations are not each written "
        "[text]{.language-xx} (ja, fr, pt, es, in that order):\n" + "\n".join(unmarked)
    )


def test_translations_are_mostly_not_copies_of_the_english(entries):
    # Loanwords are fine (DNS Enactor, TLA+), but a glossary whose French, Portuguese and Spanish
    # merely repeat the English would not help anyone map the seed articles.
    for lang in ("fr", "pt", "es"):
        copied = [
            e.terms[0]
            for e in entries
            if e.translations and e.translations[0][lang].casefold() == e.terms[0].casefold()
        ]
        assert len(copied) <= len(entries) // 5, f"{lang}: too many copies of the English: {copied}"


@pytest.mark.parametrize(("term", "lang", "wording"), SEED_WORDING, ids=lambda x: str(x))
def test_seed_articles_wording_is_used(entries, term, lang, wording):
    entry = next(e for e in entries if term.casefold() in {t.casefold() for t in e.terms})
    assert wording.casefold() in entry.translations[0][lang].casefold()


def test_terms_are_sorted(entries):
    keys = [sort_key(t) for t in _ids(entries)]
    out_of_order = [(a, b) for a, b in itertools.pairwise(_ids(entries)) if sort_key(a) > sort_key(b)]
    assert keys == sorted(keys), f"terms out of order: {out_of_order}"


def test_terms_are_unique(entries):
    seen: dict[str, str] = {}
    dupes = []
    for e in entries:
        for t in e.terms:
            if t.casefold() in seen:
                dupes.append(t)
            seen[t.casefold()] = e.terms[0]
    assert not dupes, f"duplicate terms: {dupes}"


# The checks above must be able to fail: feed them small broken glossaries.

_GOOD = """\
```{glossary}
Beta
  A definition that is long enough to count as one real sentence of prose here.

  *ja* [ベータ]{.language-ja} · *fr* [bêta]{.language-fr} · *pt* [beta]{.language-pt} · *es* [beta]{.language-es}
```
"""


def test_parser_reads_terms_aliases_and_bodies():
    text = _GOOD.replace("Beta\n", "Beta\nB\n")
    (entry,) = parse_glossary(text)
    assert entry.terms == ["Beta", "B"]
    assert entry.translations == [{"ja": "ベータ", "fr": "bêta", "pt": "beta", "es": "beta"}]
    assert entry.definition.startswith("A definition")


def test_parser_finds_a_missing_language():
    broken = _GOOD.replace(" · *pt* [beta]{.language-pt}", "")
    (entry,) = parse_glossary(broken)
    with pytest.raises(AssertionError):
        test_every_entry_gives_all_five_languages([entry])


def test_a_translation_without_its_language_is_found():
    for broken in (
        _GOOD.replace("[bêta]{.language-fr}", "bêta"),  # no span
        _GOOD.replace("{.language-fr}", "{.language-es}"),
    ):  # the wrong language
        with pytest.raises(AssertionError):
            test_every_translation_is_marked_with_its_language(parse_glossary(broken))


def test_parser_rejects_layouts_sphinx_warns_about():
    with pytest.raises(ValueError):
        parse_glossary(_GOOD.replace("Beta\n", "Beta\n\nB\n"))


def test_parser_finds_a_missing_definition():
    broken = _GOOD.replace("  A definition that is long enough to count as one real sentence of prose here.\n\n", "")
    with pytest.raises(AssertionError):
        test_every_entry_has_a_definition(parse_glossary(broken))


def test_sort_and_uniqueness_checks_fail_when_they_should():
    alpha = _GOOD.replace("Beta", "Alpha").replace("```{glossary}\n", "")
    unsorted = _GOOD[:-4] + "\n" + alpha  # Beta, then Alpha
    with pytest.raises(AssertionError):
        test_terms_are_sorted(parse_glossary(unsorted))
    duplicated = _GOOD[:-4] + "\n" + _GOOD.replace("```{glossary}\n", "")
    with pytest.raises(AssertionError):
        test_terms_are_unique(parse_glossary(duplicated))
