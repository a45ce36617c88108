/* bbsarchive: the original-link lookup. Reads a forum address in any of
   the forms the forum's rules name, and finds the archived thread or board
   in the map that lookup-map.js sets (window.BBSArchiveLookup).

   The forms are data, not code: lookup-rules.js sets
   window.BBSArchiveLookupRules = { forumName, base, rules: [{ part, pattern,
   board, gid }] }, written by the build from the forum's LookupRules. Each
   rule is a regular expression (matched without regard to case) over the
   address's path ("path") or its fragment with its "#" ("fragment"), and
   the numbers of the groups that hold the board and the thread id (a
   thread id that is missing or not all digits makes it a board's address).
   The first rule that matches wins.
   window.BBSArchiveResolve(text) returns
     { kind: "thread" | "board" | "unknown-board" | "invalid", href, board, gid, message }. */
(function () {
  "use strict";

  function decode(part) {
    try { return decodeURIComponent(part); } catch (e) { return part; }
  }

  /* { board, gid } (gid null for a board address), or null. */
  function parse(text, forum) {
    text = String(text === undefined || text === null ? "" : text).trim();
    if (!text || !forum || !forum.rules) return null;
    if (!/^[a-z][a-z0-9+.-]*:/i.test(text) && text.charAt(0) !== "/") text = "https://" + text;
    var url;
    try { url = forum.base ? new URL(text, forum.base) : new URL(text); } catch (e) { return null; }
    for (var i = 0; i < forum.rules.length; i++) {
      var rule = forum.rules[i];
      var match;
      try {
        match = new RegExp(rule.pattern, "i").exec(rule.part === "fragment" ? url.hash : url.pathname);
      } catch (e) { continue; }
      if (!match || !match[rule.board]) continue;
      var gid = rule.gid ? decode(match[rule.gid] || "") : "";
      return { board: decode(match[rule.board]), gid: /^\d+$/.test(gid) ? parseInt(gid, 10) : null };
    }
    return null;
  }

  var byLowerName = null;

  function findBoard(map, name) {
    if (!map || !map.boards) return null;
    if (map.boards[name]) return { name: name, entry: map.boards[name] };
    if (!byLowerName) {
      byLowerName = {};
      Object.keys(map.boards).forEach(function (key) { byLowerName[key.toLowerCase()] = key; });
    }
    var key = byLowerName[name.toLowerCase()];
    return key ? { name: key, entry: map.boards[key] } : null;
  }

  function hasThread(threads, gid) {
    var low = 0;
    var high = threads.length - 1;
    while (low <= high) {
      var middle = (low + high) >> 1;
      if (threads[middle] === gid) return true;
      if (threads[middle] < gid) low = middle + 1;
      else high = middle - 1;
    }
    return false;
  }

  function resolve(text, map, forum) {
    var address = parse(text, forum);
    if (!address) {
      return { kind: "invalid", message: "这不像是" + ((forum && forum.forumName) || "论坛") + "的帖子或版面链接。" };
    }
    var board = findBoard(map, address.board);
    if (!board) {
      return { kind: "unknown-board", board: address.board, message: "本存档没有 " + address.board + " 版。" };
    }
    var boardHref = "board/" + board.entry.dir + "/index.html";
    if (address.gid !== null && hasThread(board.entry.threads, address.gid)) {
      return {
        kind: "thread", board: board.name, gid: address.gid,
        href: "board/" + board.entry.dir + "/" + address.gid + ".html",
        message: "找到了：" + board.entry.title + " 版的主题 " + address.gid + "。"
      };
    }
    return {
      kind: "board", board: board.name, gid: address.gid, href: boardHref,
      message: address.gid !== null
        ? "这个主题没有存档；可以在 " + board.entry.title + " 版里看看。"
        : "找到了 " + board.entry.title + " 版。"
    };
  }

  window.BBSArchiveResolve = function (text) {
    return resolve(text, window.BBSArchiveLookup, window.BBSArchiveLookupRules);
  };

  function show(result, output) {
    output.textContent = "";
    var message = document.createElement("p");
    message.textContent = result.message;
    output.appendChild(message);
    if (result.href) {
      var link = document.createElement("a");
      link.href = result.href;
      link.id = "lookup-target";
      link.textContent = result.kind === "thread" ? "打开存档中的主题" : "打开存档中的版面";
      output.appendChild(link);
    }
  }

  function start() {
    var form = document.getElementById("lookup-form");
    var input = document.getElementById("lookup-url");
    var output = document.getElementById("lookup-result");
    if (!form || !input || !output) return;
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      var result = window.BBSArchiveResolve(input.value);
      show(result, output);
      if (result.kind === "thread") window.location.href = result.href;
    });
    // lookup.html?url=… (a bookmark or the form sent without script) shows the answer.
    var given = new URLSearchParams(window.location.search).get("url");
    if (given) {
      input.value = given;
      show(window.BBSArchiveResolve(given), output);
    }
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
