// Served as labsupport-scroll-regions.js on every page of the book (see coursetools/book.py).
//
// Every box in a page's content that scrolls (a wide table, code block, chart or output on a
// phone) becomes a labelled, keyboard-focusable region while it scrolls, and stops being one when
// it no longer does, so that a keyboard can scroll it and a screen reader says what it holds
// (WCAG 2.1.1; axe's scrollable-region-focusable). The theme makes some such boxes focusable but
// names none. A box that already has a role and a name (a chart's figure) keeps them.
(function () {
  var kinds = [["table", "Table"], [".labsupport-vega", "Chart"], [".highlight-text", "Diagram"],
               [".cell_input", "Code"], [".cell_output", "Output"], ["pre", "Code"]];
  function kind(el) {
    for (var i = 0; i < kinds.length; i++) {
      var k = kinds[i][0];
      if ((k === "table" && el.querySelector("table")) || (k !== "table" && (el.matches(k) || el.closest(k)))) {
        return kinds[i][1];
      }
    }
    return "Scrolling box";
  }
  function caption(el) {
    var c = el.querySelector("caption, figcaption");
    var chart = el.matches(".labsupport-vega") ? el : el.querySelector(".labsupport-vega");
    var text = c ? c.textContent : (chart ? chart.getAttribute("aria-label") || "" : "");
    text = text.replace(/\s+/g, " ").trim();
    return text.length > 80 ? text.slice(0, 79) + "\u2026" : text;
  }
  // Which sides of a sideways-scrolling box hide more of its content (the stylesheet fades them).
  function more(el) {
    var left = el.scrollLeft > 1, right = el.scrollLeft + el.clientWidth < el.scrollWidth - 1;
    var side = left && right ? "both" : left ? "left" : right ? "right" : "";
    if (side) { el.setAttribute("data-ls-more", side); } else { el.removeAttribute("data-ls-more"); }
  }
  function update() {
    var root = document.getElementById("main-content") || document.body, counts = {};
    root.querySelectorAll("*").forEach(function (el) {
      var cs = getComputedStyle(el), mine = el.hasAttribute("data-ls-region");
      var wide = el.scrollWidth > el.clientWidth + 1 && /auto|scroll/.test(cs.overflowX);
      var tall = el.scrollHeight > el.clientHeight + 1 && /auto|scroll/.test(cs.overflowY);
      if ((wide || tall) && el.clientWidth > 0) {
        if (!mine && el.hasAttribute("role") && el.hasAttribute("aria-label")) { el.tabIndex = 0; return; }
        var what = kind(el), n = counts[what] = (counts[what] || 0) + 1, text = caption(el);
        el.setAttribute("data-ls-region", "");
        el.setAttribute("role", "region");
        el.setAttribute("aria-label", what + " " + n + (text ? ": " + text : "")
          + (wide ? " (scrolls sideways)" : " (scrolls)"));
        el.tabIndex = 0;
        more(el);
        if (!el.hasAttribute("data-ls-watched")) {
          el.setAttribute("data-ls-watched", "");
          el.addEventListener("scroll", function () { more(el); }, {passive: true});
        }
      } else if (mine) {
        el.removeAttribute("data-ls-more");
        el.removeAttribute("data-ls-region");
        el.removeAttribute("role");
        el.removeAttribute("aria-label");
        el.removeAttribute("tabindex");
      }
    });
  }
  // settled is false while an update is pending (tests wait for it before they check the page).
  var timer = null, state = window.labsupportScrollRegions = {settled: false};
  function soon() {
    state.settled = false;
    clearTimeout(timer);
    timer = setTimeout(function () { timer = null; update(); state.settled = true; }, 150);
  }
  function start() {
    update();
    state.settled = true;
    window.addEventListener("resize", soon);
    var main = document.getElementById("main-content");
    if (main && window.MutationObserver) {
      new MutationObserver(soon).observe(main, {subtree: true, childList: true});
    }
    // A web font that arrives after the load event changes text widths, so a box can start (or
    // stop) scrolling with no change to the page's elements.
    if (document.fonts) {
      document.fonts.ready.then(soon);
      document.fonts.addEventListener("loadingdone", soon);
    }
  }
  if (document.readyState === "complete") { start(); } else { window.addEventListener("load", start); }
})();
