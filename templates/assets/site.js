/* bbsarchive: what JavaScript adds to pages that already work without it.
   Theme toggle and reading settings (kept in this browser), reading history
   (visited threads marked in lists, "recently read" on the home page), and
   an image viewer (full screen, swipe or arrow keys, pinch, wheel or
   double-tap zoom, Esc to leave). Nothing here talks to a server. */
(function () {
  "use strict";

  var root = document.documentElement;
  var KEYS = {
    theme: "bbsarchive.theme",
    fontScale: "bbsarchive.fontScale",
    lineHeight: "bbsarchive.lineHeight",
    mono: "bbsarchive.mono",
    history: "bbsarchive.history"
  };
  var HISTORY_LIMIT = 60;

  /* localStorage may be missing or refuse (privacy modes, some file:// setups). */
  var store = {
    get: function (key) {
      try { return window.localStorage.getItem(key); } catch (e) { return null; }
    },
    set: function (key, value) {
      try {
        if (value === null) window.localStorage.removeItem(key);
        else window.localStorage.setItem(key, value);
      } catch (e) { /* settings then last for this page only */ }
    }
  };

  /* The site's root, relative to this page (every link in the archive is relative). */
  var siteRoot = root.getAttribute("data-root") || "";

  // MARK: Theme and reading settings

  function systemDark() {
    return window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches;
  }

  function effectiveTheme() {
    var chosen = root.getAttribute("data-theme");
    if (chosen === "light" || chosen === "dark") return chosen;
    return systemDark() ? "dark" : "light";
  }

  function applyTheme(choice) {
    if (choice === "light" || choice === "dark") {
      root.setAttribute("data-theme", choice);
      store.set(KEYS.theme, choice);
    } else {
      root.removeAttribute("data-theme");
      store.set(KEYS.theme, null);
    }
    syncControls();
    tellFrame();
  }

  /* The thread list beside a thread is a page of its own: it follows the
     theme and text size chosen here without a reload (a message, so it
     works from file:// too). */
  function tellFrame() {
    var frame = document.querySelector(".threadlist iframe");
    if (!frame || !frame.contentWindow || !frame.getAttribute("src")) return;
    frame.contentWindow.postMessage({
      bbsarchive: "settings", theme: root.getAttribute("data-theme") || "",
      scale: root.style.getPropertyValue("--font-scale") || ""
    }, "*");
  }

  function followParent() {
    if (window.parent === window) return;
    window.addEventListener("message", function (event) {
      var data = event.data;
      if (event.source !== window.parent || !data || data.bbsarchive !== "settings") return;
      if (data.theme === "light" || data.theme === "dark") root.setAttribute("data-theme", data.theme);
      else root.removeAttribute("data-theme");
      if (data.scale) root.style.setProperty("--font-scale", data.scale);
      else root.style.removeProperty("--font-scale");
    });
  }

  /* 等宽: posts drawn for a terminal start in monospace; a reader can
     switch any post, or make monospace the default for every post. */
  function monoForAll() { return store.get(KEYS.mono) === "all"; }

  function setMono(post, on) {
    post.classList.toggle("mono", on);
    var button = post.querySelector("[data-mono-toggle]");
    if (button) button.setAttribute("aria-pressed", on ? "true" : "false");
  }

  function setUpMono() {
    var posts = Array.prototype.slice.call(document.querySelectorAll("article.post"));
    posts.forEach(function (post) {
      post.setAttribute("data-drawn", post.classList.contains("mono") ? "true" : "false");
      if (monoForAll()) setMono(post, true);
      var button = post.querySelector("[data-mono-toggle]");
      if (!button) return;
      button.hidden = false;
      button.addEventListener("click", function () { setMono(post, !post.classList.contains("mono")); });
    });
  }

  function applyMono(choice) {
    store.set(KEYS.mono, choice === "all" ? "all" : null);
    document.querySelectorAll("article.post").forEach(function (post) {
      setMono(post, choice === "all" || post.getAttribute("data-drawn") === "true");
    });
  }

  function currentScale() {
    var value = parseFloat(store.get(KEYS.fontScale));
    return value >= 0.8 && value <= 1.6 ? value : 1;
  }

  function applyScale(scale) {
    scale = Math.round(Math.min(1.6, Math.max(0.8, scale)) * 10) / 10;
    if (scale === 1) {
      root.style.removeProperty("--font-scale");
      store.set(KEYS.fontScale, null);
    } else {
      root.style.setProperty("--font-scale", String(scale));
      store.set(KEYS.fontScale, String(scale));
    }
    tellFrame();
  }

  function applyLine(value) {
    var line = parseFloat(value);
    if (!(line >= 1.3 && line <= 2.2) || line === 1.75) {
      root.style.removeProperty("--reading-line");
      store.set(KEYS.lineHeight, null);
    } else {
      root.style.setProperty("--reading-line", String(line));
      store.set(KEYS.lineHeight, String(line));
    }
  }

  function syncControls() {
    var dark = effectiveTheme() === "dark";
    var toggle = document.querySelector("[data-theme-toggle]");
    if (toggle) {
      toggle.setAttribute("aria-pressed", dark ? "true" : "false");
      toggle.textContent = "深色";
      toggle.title = dark ? "切换到浅色" : "切换到深色";
    }
    var chosen = store.get(KEYS.theme) || "auto";
    document.querySelectorAll('input[name="theme"]').forEach(function (input) {
      input.checked = input.value === chosen;
    });
    var mono = monoForAll() ? "all" : "auto";
    document.querySelectorAll('input[name="mono"]').forEach(function (input) {
      input.checked = input.value === mono;
    });
    var line = store.get(KEYS.lineHeight) || "1.75";
    document.querySelectorAll('input[name="line-height"]').forEach(function (input) {
      input.checked = parseFloat(input.value) === parseFloat(line);
    });
  }

  function setUpTools() {
    var tools = document.querySelector("header.site .tools");
    if (!tools) return;
    tools.hidden = false;
    var toggle = tools.querySelector("[data-theme-toggle]");
    if (toggle) {
      toggle.addEventListener("click", function () {
        applyTheme(effectiveTheme() === "dark" ? "light" : "dark");
      });
    }
    tools.querySelectorAll("[data-font]").forEach(function (button) {
      button.addEventListener("click", function () {
        var step = parseInt(button.getAttribute("data-font"), 10);
        applyScale(step === 0 ? 1 : currentScale() + step * 0.1);
      });
    });
    tools.querySelectorAll('input[name="line-height"]').forEach(function (input) {
      input.addEventListener("change", function () { applyLine(input.value); });
    });
    tools.querySelectorAll('input[name="theme"]').forEach(function (input) {
      input.addEventListener("change", function () { applyTheme(input.value); });
    });
    tools.querySelectorAll('input[name="mono"]').forEach(function (input) {
      input.addEventListener("change", function () { applyMono(input.value); });
    });
    var settings = tools.querySelector("details.settings");
    if (settings) {
      document.addEventListener("keydown", function (event) {
        if (event.key === "Escape" && settings.open) {
          settings.open = false;
          settings.querySelector("summary").focus();
        }
      });
      document.addEventListener("click", function (event) {
        if (settings.open && !settings.contains(event.target)) settings.open = false;
      });
    }
    if (window.matchMedia) {
      var query = window.matchMedia("(prefers-color-scheme: dark)");
      if (query.addEventListener) query.addEventListener("change", syncControls);
    }
    syncControls();
  }

  // MARK: Reading history

  function readHistory() {
    try {
      var list = JSON.parse(store.get(KEYS.history) || "[]");
      return Array.isArray(list) ? list.filter(function (item) {
        return item && typeof item.key === "string" && typeof item.title === "string";
      }) : [];
    } catch (e) {
      return [];
    }
  }

  /* A thread page records itself: its root-relative path, title and board. */
  function recordVisit() {
    var main = document.querySelector("main[data-thread-key]");
    if (!main) return;
    var key = main.getAttribute("data-thread-key");
    var list = readHistory().filter(function (item) { return item.key !== key; });
    list.unshift({
      key: key,
      title: main.getAttribute("data-thread-title") || key,
      board: main.getAttribute("data-board-title") || "",
      at: Date.now()
    });
    store.set(KEYS.history, JSON.stringify(list.slice(0, HISTORY_LIMIT)));
  }

  function markRead() {
    var seen = {};
    readHistory().forEach(function (item) { seen[item.key] = true; });
    document.querySelectorAll("[data-key]").forEach(function (element) {
      var key = element.getAttribute("data-key");
      if (seen[key] && !element.classList.contains("current")) element.classList.add("read");
    });
  }

  function showRecentlyRead() {
    var section = document.getElementById("recent-read");
    var list = section && section.querySelector("[data-recent-list]");
    if (!list) return;
    var items = readHistory().slice(0, 10);
    list.textContent = "";
    items.forEach(function (item) {
      var li = document.createElement("li");
      var link = document.createElement("a");
      link.href = siteRoot + item.key;
      link.textContent = item.title;
      li.appendChild(link);
      if (item.board) {
        var sub = document.createElement("span");
        sub.className = "sub";
        sub.textContent = " " + item.board;
        li.appendChild(sub);
      }
      list.appendChild(li);
    });
    section.hidden = items.length === 0;
    var clear = section.querySelector("[data-clear-history]");
    if (clear && !clear.hasAttribute("data-bound")) {
      clear.setAttribute("data-bound", "");
      clear.addEventListener("click", function () {
        store.set(KEYS.history, null);
        document.querySelectorAll(".read").forEach(function (element) { element.classList.remove("read"); });
        showRecentlyRead();
      });
    }
  }

  // MARK: Image viewer

  function ImageViewer(links) {
    this.links = links;
    this.index = 0;
    this.scale = 1;
    this.x = 0;
    this.y = 0;
    this.pointers = {};
    this.build();
  }

  ImageViewer.prototype.build = function () {
    var self = this;
    var dialog = document.createElement("dialog");
    dialog.className = "viewer";
    dialog.setAttribute("aria-label", "图片查看器");
    var stage = document.createElement("div");
    stage.className = "stage";
    var image = document.createElement("img");
    image.alt = "";
    image.draggable = false;
    stage.appendChild(image);
    var caption = document.createElement("p");
    caption.className = "caption";
    caption.setAttribute("aria-live", "polite");
    function button(className, label, text, action) {
      var element = document.createElement("button");
      element.type = "button";
      element.className = className;
      element.setAttribute("aria-label", label);
      element.textContent = text;
      element.addEventListener("click", function (event) {
        event.stopPropagation();
        action();
      });
      dialog.appendChild(element);
      return element;
    }
    dialog.appendChild(stage);
    dialog.appendChild(caption);
    this.closeButton = button("close", "关闭", "×", function () { self.close(); });
    this.prevButton = button("prev", "上一张", "‹", function () { self.show(self.index - 1); });
    this.nextButton = button("next", "下一张", "›", function () { self.show(self.index + 1); });
    document.body.appendChild(dialog);
    this.dialog = dialog;
    this.stage = stage;
    this.image = image;
    this.caption = caption;

    dialog.addEventListener("keydown", function (event) {
      if (event.key === "ArrowRight" || event.key === "PageDown") { self.show(self.index + 1); event.preventDefault(); }
      else if (event.key === "ArrowLeft" || event.key === "PageUp") { self.show(self.index - 1); event.preventDefault(); }
      else if (event.key === "+" || event.key === "=") { self.zoomTo(self.scale * 1.5); }
      else if (event.key === "-") { self.zoomTo(self.scale / 1.5); }
      else if (event.key === "0") { self.zoomTo(1); }
    });
    dialog.addEventListener("close", function () {
      self.image.removeAttribute("src");
      if (self.opener) self.opener.focus();
    });
    stage.addEventListener("click", function (event) {
      if (event.target === stage && self.scale === 1) self.close();
    });
    stage.addEventListener("wheel", function (event) {
      event.preventDefault();
      self.zoomTo(self.scale * Math.exp(-event.deltaY * 0.0015), event.clientX, event.clientY);
    }, { passive: false });
    stage.addEventListener("dblclick", function (event) {
      /* A touch double-tap was handled on its second pointerup; the dblclick
         the browser sends after it would zoom straight back out. */
      if (self.lastTouchZoom && Date.now() - self.lastTouchZoom < 1000) return;
      self.zoomTo(self.scale > 1 ? 1 : 2.5, event.clientX, event.clientY);
    });
    stage.addEventListener("pointerdown", function (event) { self.pointerDown(event); });
    stage.addEventListener("pointermove", function (event) { self.pointerMove(event); });
    stage.addEventListener("pointerup", function (event) { self.pointerUp(event); });
    stage.addEventListener("pointercancel", function (event) { self.pointerUp(event); });
  };

  ImageViewer.prototype.open = function (index, opener) {
    this.opener = opener;
    if (typeof this.dialog.showModal === "function") this.dialog.showModal();
    else this.dialog.setAttribute("open", "open");
    this.show(index);
    this.closeButton.focus();
  };

  ImageViewer.prototype.close = function () {
    if (typeof this.dialog.close === "function") this.dialog.close();
    else this.dialog.removeAttribute("open");
  };

  ImageViewer.prototype.show = function (index) {
    var count = this.links.length;
    if (count === 0) return;
    this.index = (index + count) % count;
    var link = this.links[this.index];
    var thumbnail = link.querySelector("img");
    this.image.src = link.href;
    this.image.alt = thumbnail ? thumbnail.alt : "";
    var figure = link.closest("figure");
    var name = figure && figure.querySelector("figcaption") ? figure.querySelector("figcaption").textContent : "";
    this.caption.textContent = (this.index + 1) + " / " + count + (name ? " · " + name : "");
    this.prevButton.hidden = count < 2;
    this.nextButton.hidden = count < 2;
    this.zoomTo(1);
  };

  /* Zooms about a point of the screen (the centre when none is given). */
  ImageViewer.prototype.zoomTo = function (scale, clientX, clientY) {
    scale = Math.min(8, Math.max(1, scale));
    if (scale === 1) {
      this.x = 0;
      this.y = 0;
    } else if (clientX !== undefined) {
      var box = this.stage.getBoundingClientRect();
      var px = clientX - box.left - box.width / 2;
      var py = clientY - box.top - box.height / 2;
      var ratio = scale / this.scale;
      this.x = px - (px - this.x) * ratio;
      this.y = py - (py - this.y) * ratio;
    }
    this.scale = scale;
    this.render();
  };

  ImageViewer.prototype.render = function () {
    this.image.style.transform = "translate(" + this.x + "px, " + this.y + "px) scale(" + this.scale + ")";
    this.stage.style.cursor = this.scale > 1 ? "grab" : "zoom-in";
  };

  ImageViewer.prototype.pointerDown = function (event) {
    this.pointers[event.pointerId] = { x: event.clientX, y: event.clientY };
    if (this.stage.setPointerCapture) this.stage.setPointerCapture(event.pointerId);
    var ids = Object.keys(this.pointers);
    if (ids.length === 1) {
      this.gesture = { startX: event.clientX, startY: event.clientY, baseX: this.x, baseY: this.y, time: Date.now() };
    } else if (ids.length === 2) {
      var a = this.pointers[ids[0]];
      var b = this.pointers[ids[1]];
      this.pinch = { distance: Math.hypot(a.x - b.x, a.y - b.y) || 1, scale: this.scale };
    }
  };

  ImageViewer.prototype.pointerMove = function (event) {
    if (!this.pointers[event.pointerId]) return;
    this.pointers[event.pointerId] = { x: event.clientX, y: event.clientY };
    var ids = Object.keys(this.pointers);
    if (ids.length === 2 && this.pinch) {
      var a = this.pointers[ids[0]];
      var b = this.pointers[ids[1]];
      var distance = Math.hypot(a.x - b.x, a.y - b.y);
      this.zoomTo(this.pinch.scale * distance / this.pinch.distance, (a.x + b.x) / 2, (a.y + b.y) / 2);
    } else if (ids.length === 1 && this.gesture && this.scale > 1) {
      this.x = this.gesture.baseX + event.clientX - this.gesture.startX;
      this.y = this.gesture.baseY + event.clientY - this.gesture.startY;
      this.render();
    }
  };

  ImageViewer.prototype.pointerUp = function (event) {
    var gesture = this.gesture;
    delete this.pointers[event.pointerId];
    var remaining = Object.keys(this.pointers).length;
    if (remaining < 2) this.pinch = null;
    if (remaining > 0 || !gesture) return;
    this.gesture = null;
    var dx = event.clientX - gesture.startX;
    var dy = event.clientY - gesture.startY;
    if (this.scale === 1 && Math.abs(dx) > 50 && Math.abs(dx) > Math.abs(dy) * 1.5) {
      this.show(this.index + (dx < 0 ? 1 : -1));
      return;
    }
    /* A second quick tap in the same place zooms (touch screens send no dblclick everywhere). */
    if (event.pointerType === "touch" && Math.abs(dx) < 10 && Math.abs(dy) < 10) {
      var now = Date.now();
      if (this.lastTap && now - this.lastTap < 300) {
        this.zoomTo(this.scale > 1 ? 1 : 2.5, event.clientX, event.clientY);
        this.lastTap = 0;
        this.lastTouchZoom = now;
      } else {
        this.lastTap = now;
      }
    }
  };

  function setUpViewer() {
    var links = Array.prototype.slice.call(document.querySelectorAll("a[data-viewer]"));
    if (links.length === 0 || typeof document.createElement("dialog").showModal !== "function") return;
    var viewer = null;
    links.forEach(function (link, index) {
      link.addEventListener("click", function (event) {
        if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
        event.preventDefault();
        if (!viewer) viewer = new ImageViewer(links);
        viewer.open(index, link);
      });
    });
  }

  // The board's thread list beside a thread is shown on wide screens
  // only: its frame loads when it is shown, never on a phone.
  function loadThreadListFrame() {
    var frame = document.querySelector(".threadlist iframe[data-src]");
    if (!frame || !window.matchMedia) return;
    var wide = window.matchMedia("(min-width: 73rem)");
    frame.addEventListener("load", tellFrame);
    function load() {
      if (!wide.matches || frame.getAttribute("src")) return;
      frame.setAttribute("src", frame.getAttribute("data-src"));
    }
    load();
    if (wide.addEventListener) wide.addEventListener("change", load);
    else if (wide.addListener) wide.addListener(load);
  }

  // The sidebar's boards: one file for the whole site (its data-boards,
  // from the site's root), so that no page carries every board. It hands
  // its groups to BBSBoards; titles and names are set as text. Without
  // JavaScript the sidebar keeps its links to the home page's full list.
  function setUpSidebar() {
    var nav = document.querySelector("nav.sidebar[data-boards]");
    if (!nav) return;
    var current = nav.getAttribute("data-board");
    window.BBSBoards = function (groups) {
      if (!Array.isArray(groups) || nav.querySelector(".group")) return;
      var links = nav.querySelector(".sidebar-links");
      groups.forEach(function (group) {
        var boards = Array.isArray(group.boards) ? group.boards : [];
        var details = document.createElement("details");
        details.className = "group";
        details.open = !current || boards.some(function (board) { return board[0] === current; });
        var summary = document.createElement("summary");
        summary.textContent = group.kind === "section" ? group.name : nav.getAttribute("data-" + group.kind) || "";
        details.appendChild(summary);
        var list = document.createElement("ul");
        function item(href, text, className) {
          var li = document.createElement("li");
          if (className) li.className = className;
          var a = document.createElement("a");
          a.setAttribute("href", siteRoot + href);
          a.textContent = text;
          li.appendChild(a);
          list.appendChild(li);
          return a;
        }
        if (group.href) item(group.href, nav.getAttribute("data-section") || "", "section-link");
        boards.forEach(function (board) {
          var a = item(board[2], board[1] + " ");
          var id = document.createElement("span");
          id.className = "id";
          id.textContent = board[0];
          a.appendChild(id);
          if (board[0] === current) a.setAttribute("aria-current", "true");
        });
        details.appendChild(list);
        nav.insertBefore(details, links);
      });
    };
    var script = document.createElement("script");
    script.src = siteRoot + nav.getAttribute("data-boards");
    document.head.appendChild(script);
  }

  // The pager's form: type a page number, or a floor of a thread. Hidden
  // without JavaScript, where the pager's links remain.
  function setUpJump() {
    var forms = document.querySelectorAll("form[data-jump]");
    Array.prototype.forEach.call(forms, function (form) {
      var pages = parseInt(form.getAttribute("data-pages"), 10) || 1;
      function pageHref(n) {
        var first = form.getAttribute("data-first");
        if (n <= 1 && first) return first;
        return form.getAttribute("data-pattern").replace("{n}", String(n));
      }
      form.hidden = false;
      form.addEventListener("submit", function (event) {
        event.preventDefault();
        var floorInput = form.elements.floor;
        var floor = floorInput ? parseInt(floorInput.value, 10) : NaN;
        if (!isNaN(floor) && floor >= 0) {
          var starts = (form.getAttribute("data-floors") || "").split(",");
          var page = 1;
          for (var i = 0; i < starts.length; i++) if (Number(starts[i]) <= floor) page = i + 1;
          window.location.href = pageHref(page) + "#a" + floor;
          return;
        }
        var number = parseInt(form.elements.page.value, 10);
        if (isNaN(number)) return;
        window.location.href = pageHref(Math.max(1, Math.min(pages, number)));
      });
    });
  }

  function start() {
    followParent();
    loadThreadListFrame();
    setUpSidebar();
    setUpJump();
    setUpMono();
    setUpTools();
    recordVisit();
    markRead();
    showRecentlyRead();
    setUpViewer();
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
