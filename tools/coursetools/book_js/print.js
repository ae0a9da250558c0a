// Served as labsupport-print.js on every page of the book (see coursetools/book.py).
//
// A reader's own print (Ctrl-P, or the download menu's "Print this page") opens the exercise
// solutions (sphinx-exercise dropdowns are <details>, which print cannot open) and closes them again
// after. MyST-NB's "Show code cell source" toggles (details.hide) and the charts' data tables
// (details.labsupport-chart-data) stay as they are.
(function () {
  var opened = [];
  window.addEventListener("beforeprint", function () {
    opened = [].filter.call(document.querySelectorAll("details:not(.hide):not(.labsupport-chart-data):not([open])"), function (d) {
      d.open = true; return true;
    });
  });
  window.addEventListener("afterprint", function () {
    opened.forEach(function (d) { d.open = false; });
    opened = [];
  });
})();
