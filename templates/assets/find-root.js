/* bbsarchive: a static host shows 404.html for a missing address at any
   depth. Built without --site-url, the page cannot know where the archive
   starts, so this script (inlined into 404.html, allowed by its hash)
   looks for the archive's stylesheet in each folder above the address,
   deepest first, and points the page's links, style and scripts there. */
(function () {
  "use strict";
  if (location.protocol !== "http:" && location.protocol !== "https:") return;
  var doc = document.documentElement;
  var folders = [];
  var parts = location.pathname.split("/");
  parts.pop();
  while (parts.length > 0) {
    var folder = parts.join("/") + "/";
    // Only folders of this host: "//other.host/a/" (an address such as
    // http://archive//other.host/a/x) would name another one.
    if (folder.charAt(0) === "/" && folder.charAt(1) !== "/") folders.push(folder);
    parts.pop();
  }
  var relative = /^(?![a-z][a-z0-9+.-]*:|\/|#)/i;
  function moveTo(root) {
    if (root === location.pathname.replace(/[^/]*$/, "")) return;
    doc.setAttribute("data-root", root);
    [["a", "href"], ["link", "href"], ["form", "action"]].forEach(function (pair) {
      document.querySelectorAll(pair[0] + "[" + pair[1] + "]").forEach(function (element) {
        var value = element.getAttribute(pair[1]);
        if (relative.test(value)) element.setAttribute(pair[1], root + value);
      });
    });
    ["assets/boot.js", "assets/site.js"].forEach(function (path) {
      var script = document.createElement("script");
      script.src = root + path;
      script.async = false;
      document.head.appendChild(script);
    });
  }
  function probe(index) {
    if (index >= folders.length || !window.fetch) return;
    fetch(folders[index] + "assets/style.css", { cache: "no-store", mode: "same-origin" }).then(function (response) {
      if (!response.ok) return probe(index + 1);
      var root = folders[index];
      if (document.readyState === "loading") {
        document.addEventListener("DOMContentLoaded", function () { moveTo(root); });
      } else {
        moveTo(root);
      }
    }, function () { probe(index + 1); });
  }
  probe(0);
})();
