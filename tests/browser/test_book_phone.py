"""Every page of the built book on a phone (390 x 844 CSS px), as a reader with no network would.

Per page the tests check:

* the page does not scroll sideways (``document.documentElement.scrollWidth`` is at most the
  viewport's width), naming the elements that stick out;
* nothing in the page's content column is cut off by a box that clips without scrolling;
* every element that scrolls (sideways or down) is a labelled, keyboard-focusable region
  (``tabindex`` 0, a role and an accessible name), so that a keyboard reader can scroll it and a
  screen reader says what it holds;
* every interactive chart (one with Vega-Lite controls) reflows: the chart is no wider than its
  column and sits in no scrolling box, each control and each line of text it draws (the state
  line) lies inside the viewport and inside the drawing, and no text of it is drawn smaller than
  :data:`MIN_CHART_TEXT_PX`.

A full-page PNG of each page goes to ``_build/screenshots/phone/``. Off by default:
``pytest tests/browser --run-browser`` (see conftest.py).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from test_book_in_browser import Visit, _open, _shot_name, _watch, follow_redirect, shoot

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}
#: The smallest font size (CSS px, as drawn) of a text in an interactive chart.
MIN_CHART_TEXT_PX = 10.5

# What a page looks like on a phone, measured in the page.
_PHONE_LAYOUT = r"""() => {
  const W = document.documentElement.clientWidth;
  const root = document.querySelector('article.bd-article') || document.querySelector('main') || document.body;
  const shown = el => {
    const r = el.getBoundingClientRect(), cs = getComputedStyle(el);
    return r.width > 0 && r.height > 0 && cs.visibility !== 'hidden' && cs.display !== 'none';
  };
  const describe = el => {
    const cls = (typeof el.className === 'string' ? el.className : '').trim().split(/\s+/).filter(Boolean)
      .slice(0, 3).map(c => '.' + c).join('');
    const text = (el.getAttribute('aria-label') || el.textContent || '').replace(/\s+/g, ' ').trim().slice(0, 60);
    return `<${el.tagName.toLowerCase()}${el.id ? '#' + el.id : ''}${cls}> ${JSON.stringify(text)}`;
  };
  const clipsX = el => getComputedStyle(el).overflowX !== 'visible';
  const insideClipper = el => {
    for (let a = el.parentElement; a && a !== document.body && a !== document.documentElement; a = a.parentElement) {
      if (clipsX(a)) return true;
    }
    return false;
  };
  // What makes the page wider than the viewport: elements that stick out, or whose content (a long
  // word, an unbroken URL) sticks out of them, with no ancestor that clips or scrolls. The innermost
  // ones are the culprits; an element that spans the whole widened page is a consequence.
  const pageWidth = document.documentElement.scrollWidth;
  const spanning = [...document.body.querySelectorAll('*')].filter(el => {
    const r = el.getBoundingClientRect();
    return r.left <= 0 && r.right >= pageWidth - 1 && ['fixed', 'absolute'].includes(getComputedStyle(el).position);
  });
  const offenders = [...document.body.querySelectorAll('*')].filter(el => {
    if (!shown(el) || (el.closest('svg') && el.tagName.toLowerCase() !== 'svg') || insideClipper(el)) return false;
    if (spanning.some(s => s.contains(el))) return false;
    const r = el.getBoundingClientRect(), cs = getComputedStyle(el);
    return r.right > W + 1 || (cs.overflowX === 'visible' && el.clientWidth > 0 && r.left + el.scrollWidth > W + 1);
  });
  const innermost = offenders.filter(el => !offenders.some(o => o !== el && el.contains(o)));
  const name = el => {
    const label = (el.getAttribute('aria-label') || '').trim();
    if (label) return label;
    const ids = (el.getAttribute('aria-labelledby') || '').split(/\s+/).filter(Boolean);
    return ids.map(id => (document.getElementById(id) || {textContent: ''}).textContent.trim()).join(' ').trim();
  };
  const scrolls = [], cut = [];
  for (const el of root.querySelectorAll('*')) {
    if (!shown(el) || el.closest('svg')) continue;
    const cs = getComputedStyle(el);
    const wideX = el.scrollWidth > el.clientWidth + 1, tallY = el.scrollHeight > el.clientHeight + 1;
    const scrollX = ['auto', 'scroll'].includes(cs.overflowX), scrollY = ['auto', 'scroll'].includes(cs.overflowY);
    if ((wideX && scrollX) || (tallY && scrollY)) {
      scrolls.push({what: describe(el), tabindex: el.getAttribute('tabindex'), focusable: el.tabIndex >= 0,
                    role: el.getAttribute('role'), name: name(el)});
    } else if (wideX && ['hidden', 'clip'].includes(cs.overflowX)) {
      cut.push({what: describe(el), by: el.scrollWidth - el.clientWidth});
    }
  }
  return {viewport: W, scrollWidth: document.documentElement.scrollWidth,
          sticking: innermost.slice(0, 8).map(el => ({what: describe(el), right: Math.round(
            Math.max(el.getBoundingClientRect().right, el.getBoundingClientRect().left + el.scrollWidth))})),
          scrolls, cut};
}"""

# Every interactive chart (one with bound controls): where its drawing, controls and texts are.
_INTERACTIVE_CHARTS = r"""() => {
  const W = document.documentElement.clientWidth;
  const box = r => ({left: Math.round(r.left), right: Math.round(r.right)});
  return [...document.querySelectorAll('.labsupport-vega')].filter(el => el.querySelector('.vega-bind')).map(el => {
    const svg = el.querySelector('svg');
    let scroller = null;
    for (let a = el; a && a !== document.body; a = a.parentElement) {
      if (['auto', 'scroll'].includes(getComputedStyle(a).overflowX) && a.scrollWidth > a.clientWidth + 1) {
        scroller = a.tagName.toLowerCase() + '.' + [...a.classList].join('.'); break;
      }
    }
    const sr = svg ? svg.getBoundingClientRect() : null;
    const scale = svg && svg.width.baseVal.value ? sr.width / svg.width.baseVal.value : 1;
    const column = el.parentElement.getBoundingClientRect();
    const texts = svg ? [...svg.querySelectorAll('text')].filter(t => t.textContent.trim()).map(t => {
      const r = t.getBoundingClientRect();
      return {text: t.textContent.trim().slice(0, 80), ...box(r),
              px: Math.round(parseFloat(getComputedStyle(t).fontSize) * scale * 10) / 10};
    }) : [];
    const controls = [...el.querySelectorAll('.vega-bind')].map(b => {
      const parts = [...b.querySelectorAll('input, select, label, span')]
        .filter(p => p.getBoundingClientRect().width > 0);
      return {text: b.textContent.replace(/\s+/g, ' ').trim().slice(0, 60),
              left: Math.round(Math.min(...parts.map(p => p.getBoundingClientRect().left))),
              right: Math.round(Math.max(...parts.map(p => p.getBoundingClientRect().right))),
              below: sr ? b.getBoundingClientRect().top >= sr.bottom - 1 : true};
    });
    return {id: el.id, viewport: W, column: box(column), svg: sr ? box(sr) : null, scroller, texts, controls};
  });
}"""


def phone_page_visits(browser: Any, base_url: str, book_html: Path, phone_screenshots: Path):
    """The ``phone_visits`` fixture (conftest.py): load a page once at 390 px, with the network cut off.

    axe-core (test_book_axe.py) runs on the same loaded page, after the layout is measured, when the
    page's content has a box that scrolls at this width or a chart (else ``"axe"`` is None).
    """
    from test_book_axe import run_axe

    cache: dict[str, dict[str, Any]] = {}
    context = browser.new_context(viewport=PHONE, service_workers="block", is_mobile=True, has_touch=True)

    def visit(page_path: str) -> dict[str, Any]:
        if page_path in cache:
            return cache[page_path]
        watched = Visit(page_path)
        tab = context.new_page()
        _watch(tab, watched)
        try:
            _open(tab, base_url + follow_redirect(book_html, page_path))
            # The theme makes scrolling boxes focusable 300 ms after a change; let it.
            tab.wait_for_timeout(400)
            result = {
                "layout": tab.evaluate(_PHONE_LAYOUT),
                "charts": tab.evaluate(_INTERACTIVE_CHARTS),
                "console": watched.console,
            }
            # axe at 390 px only where the page's content is laid out differently from 1280 px (see
            # test_book_axe.py): a box that scrolls here, or a chart, which Vega draws anew at this width.
            differs = bool(result["layout"]["scrolls"]) or tab.evaluate(
                "() => document.querySelector('.labsupport-vega') !== null"
            )
            result["axe"] = run_axe(tab, watched.console, watched.external) if differs else None
            shoot(tab, phone_screenshots / _shot_name(page_path))
        finally:
            tab.close()
        cache[page_path] = result
        return result

    try:
        yield visit
    finally:
        context.close()


def test_page_does_not_scroll_sideways_on_a_phone(phone_visits, page):
    layout = phone_visits(page)["layout"]
    assert layout["scrollWidth"] <= layout["viewport"] + 1, (
        f"{page} at {PHONE['width']} px is {layout['scrollWidth']} px wide (viewport {layout['viewport']} px); "
        "what sticks out (put it in a scroll region or let it wrap):\n"
        + "\n".join(f"{s['what']} ends at {s['right']} px" for s in layout["sticking"])
    )


def test_nothing_is_cut_off_on_a_phone(phone_visits, page):
    cut = phone_visits(page)["layout"]["cut"]
    assert not cut, f"{page} at {PHONE['width']} px: boxes that clip their content without scrolling:\n" + "\n".join(
        f"{c['what']}: {c['by']} px hidden" for c in cut
    )


def test_every_scrolling_box_is_a_labelled_focusable_region(phone_visits, page):
    bad = [s for s in phone_visits(page)["layout"]["scrolls"] if not (s["focusable"] and s["role"] and s["name"])]
    assert not bad, (
        f"{page} at {PHONE['width']} px: boxes that scroll but are not a focusable region with a name "
        "(tabindex=0, role and aria-label):\n"
        + "\n".join(f"{s['what']}: tabindex={s['tabindex']} role={s['role']} name={s['name']!r}" for s in bad)
    )


def test_interactive_charts_reflow_on_a_phone(phone_visits, page):
    charts = phone_visits(page)["charts"]
    if not charts:
        pytest.skip(f"{page} has no interactive chart")
    problems = []
    for c in charts:
        right = min(c["viewport"], c["column"]["right"])
        if c["svg"] is None:
            problems.append(f"#{c['id']}: not drawn")
            continue
        if c["scroller"]:
            problems.append(
                f"#{c['id']}: sits in a box that scrolls sideways ({c['scroller']}): it should take its "
                "width from the column"
            )
        if c["svg"]["right"] > right + 1:
            problems.append(f"#{c['id']}: drawing ends at {c['svg']['right']} px, the column at {right} px")
        for t in c["texts"]:
            if t["left"] < max(0, c["svg"]["left"]) - 1 or t["right"] > min(right, c["svg"]["right"]) + 1:
                problems.append(
                    f"#{c['id']}: text {t['text']!r} spans {t['left']}-{t['right']} px, outside the "
                    f"drawing ({c['svg']['left']}-{c['svg']['right']}) or the viewport"
                )
            if t["px"] < MIN_CHART_TEXT_PX:
                problems.append(f"#{c['id']}: text {t['text']!r} drawn at {t['px']} px")
        for b in c["controls"]:
            if b["left"] < -1 or b["right"] > c["viewport"] + 1:
                problems.append(
                    f"#{c['id']}: control {b['text']!r} spans {b['left']}-{b['right']} px, "
                    f"outside the {c['viewport']} px viewport"
                )
            if not b["below"]:
                problems.append(f"#{c['id']}: control {b['text']!r} is not below the chart")
    assert not problems, f"{page} at {PHONE['width']} px:\n" + "\n".join(problems)


def test_no_console_errors_on_a_phone(phone_visits, page):
    console = phone_visits(page)["console"]
    assert not console, f"{page} at {PHONE['width']} px:\n" + "\n".join(console)


def test_the_book_has_interactive_charts(phone_visits, book_pages):
    """Guards the reflow check against passing because it found nothing to check."""
    assert sum(len(phone_visits(p)["charts"]) for p in book_pages) >= 3, "fewer than 3 interactive charts in the book"
