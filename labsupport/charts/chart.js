// The script after each chart in the book: labsupport.charts (its renderer) inlines it once per
// chart, without these first comment lines, after filling in __CHART_ID__ (the chart's element id),
// __SPEC__ (its Vega-Lite spec as JSON), __EMBED_OPTIONS__ (vegaEmbed's options as JSON) and, for a
// chart that takes its width from the page, __MIN_WIDTH__ (the narrowest plot, in pixels). The lines
// between "reflow: begin" and "reflow: end" are kept, without the two markers, only for such a
// chart: the plot takes the room its container leaves beside the axes and legends, never more than
// the spec's width nor less than the minimum; again whenever the container resizes.
(function () {
  // The element just before this script: the same chart twice on a page shares one id.
  var me = document.currentScript, el = me && me.previousElementSibling;
  if (!el || !el.classList.contains("labsupport-vega")) { el = document.getElementById("__CHART_ID__"); }
  if (window.vegaEmbed) {
    window.vegaEmbed(el, __SPEC__, __EMBED_OPTIONS__)
      // reflow: begin
      .then(function (result) {
        var view = result.view, widest = view.width(), narrowest = Math.min(widest, __MIN_WIDTH__);
        var fit = function (round) {
          var svg = el.querySelector("svg");
          if (!svg || !el.clientWidth) { return; }
          var extra = svg.getBoundingClientRect().width - view.width();
          var width = Math.max(narrowest, Math.min(widest, Math.floor(el.clientWidth - extra)));
          if (width !== view.width() && round < 4) {
            view.width(width).runAsync().then(function () { fit(round + 1); });
          }
        };
        fit(0);
        if (window.ResizeObserver) { new ResizeObserver(function () { fit(0); }).observe(el); }
      })
      // reflow: end
      .catch(function (err) { el.textContent = "Chart failed to render: " + err; console.error(err); });
  } else {
    el.textContent = "This chart needs the Vega libraries that the built course book bundles. "
      + el.getAttribute("aria-label");
  }
})();
