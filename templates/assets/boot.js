/* bbsarchive: runs before the first paint, so a stored theme or text size
   never flashes. Everything else is in site.js. */
(function () {
  "use strict";
  var root = document.documentElement;
  try {
    var store = window.localStorage;
    var theme = store.getItem("bbsarchive.theme");
    if (theme === "light" || theme === "dark") root.setAttribute("data-theme", theme);
    var scale = parseFloat(store.getItem("bbsarchive.fontScale"));
    if (scale >= 0.8 && scale <= 1.6) root.style.setProperty("--font-scale", String(scale));
    var line = parseFloat(store.getItem("bbsarchive.lineHeight"));
    if (line >= 1.3 && line <= 2.2) root.style.setProperty("--reading-line", String(line));
  } catch (e) {
    /* Storage can be switched off (or refused for file:// pages): defaults then. */
  }
})();
