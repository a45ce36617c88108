// Search over the static index in search/ (see SearchIndexWriter.swift).
// Every index file is a script that hands its data to BBSSearch, so the
// index loads through <script> elements, from a server and from file:// alike.
// No framework, no build step.
(function () {
  'use strict';
  var S = window.BBSSearch = window.BBSSearch || {};
  var PER_PAGE = 20;
  var info = null;
  var store = { s: {}, p: {}, t: {}, d: {}, days: null, late: null, r: null };
  var pending = {};
  var decoded = {};
  var base = '';

  var wrongVersion = '';
  // The shards that have a file (a shard that holds nothing has none):
  // the manifest lists them (`present`) or the others (`absent`), whichever
  // is shorter, spelled as a document list is.
  var listed = new Set();
  var listedPresent = true;
  function hasFile(k) { return listed.has(k) === listedPresent; }
  S.manifest = function (m) {
    // SearchIndexWriter.version
    if (m.version !== 12) wrongVersion = '索引格式不符，请重新运行 bbsarchive build --full。';
    var list = m.present !== undefined ? m.present : m.absent;
    listedPresent = m.present !== undefined;
    if (list) listed = new Set(decodeDocs(list));
    info = m;
    start();
  };
  // `tail`: the shard has one (t/K.js).
  var tailed = {};
  S.shard = function (k, data, tail) { store.s[k] = data; if (tail) tailed[k] = 1; };
  S.positions = function (k, data) { store.p[k] = data; };
  // A whole chunk of documents, run as a script (from file://).
  S.docs = function (header, k, rows) { store.d[k] = rows; whole[k] = true; };
  S.days = function (list) { store.days = list; };
  // A shard's tail: the postings of documents appended since the shard was
  // written whole (all numbered after its own), and their pairs' positions.
  S.tail = function (k, mainBytes, data, positions) { store.t[k] = { l: data, p: positions }; };
  // The recent tail: the same for documents appended after every shard's
  // tail, for all shards in one file (r.js, when the manifest names it).
  S.recent = function (data, positions) { store.r = { l: data, p: positions }; };
  // The late documents (appended after a newer post): base64 of varints,
  // each the gap from the previous document, zigzag differences of its day
  // and point from the previous one's, its rank.
  S.late = function (text) {
    var values = varints(text);
    var late = new Map();
    var doc = 0, day = 0, point = 0;
    function unzigzag(v) { return v % 2 === 0 ? v / 2 : -(v + 1) / 2; }
    for (var i = 0; i + 3 < values.length; i += 4) {
      doc += values[i];
      day += unzigzag(values[i + 1]);
      point += unzigzag(values[i + 2]);
      late.set(doc, { day: day, point: point, rank: values[i + 3] });
    }
    store.late = late;
  };

  // Loads one index file once; resolves when its script has run.
  function load(kind, key, path) {
    var id = kind + key;
    if (kind === 'days' || kind === 'late' || kind === 'r' ? store[kind] : store[kind][key]) return Promise.resolve();
    if (pending[id]) return pending[id];
    pending[id] = new Promise(function (resolve, reject) {
      var script = document.createElement('script');
      script.src = base + path;
      script.onload = function () { resolve(); };
      script.onerror = function () { delete pending[id]; reject(new Error('cannot load ' + path)); };
      document.head.appendChild(script);
    });
    return pending[id];
  }

  // The rows of documents, a chunk of info.chunk to a file (d/K.js). Over
  // HTTP only the rows shown are read: the chunk's header (from byte 16:
  // the length of the rest in six hex digits, then the rows' byte lengths
  // as base64 of varints; the rows start after it, '",K,[' and a line
  // break), then each run of rows, by Range requests. A host that ignores
  // Range answers with the whole file, which serves every later row of it
  // too. From file://, where fetch is not allowed, the chunk runs as a
  // script (BBSSearch.docs).
  var ranged = location.protocol === 'http:' || location.protocol === 'https:';
  var whole = {};
  var offsets = {};
  var HEADER_START = 16;
  var decoder = new TextDecoder();
  function fetchBytes(path, start, end) {
    return fetch(base + path, { headers: { Range: 'bytes=' + start + '-' + (end - 1) } }).then(function (response) {
      if (response.status !== 206 && response.status !== 200) throw new Error('cannot load ' + path);
      return response.arrayBuffer().then(function (buffer) {
        return { partial: response.status === 206, bytes: new Uint8Array(buffer) };
      });
    });
  }
  function takeWhole(k, bytes) {
    var text = decoder.decode(bytes);
    var open = text.indexOf(',[');
    store.d[k] = JSON.parse(text.slice(open + 1, text.lastIndexOf(']') + 1));
    whole[k] = true;
  }
  // The byte where each row of chunk k starts, and where the last ends
  // (null once the whole file came instead).
  function chunkOffsets(k, path) {
    if (offsets[k]) return offsets[k];
    // Enough for two bytes a row's length, mostly the whole header.
    var guess = 6 + Math.ceil(info.chunk * 2 / 3) * 4 + 16;
    offsets[k] = fetchBytes(path, HEADER_START, HEADER_START + guess).then(function (got) {
      if (!got.partial) { takeWhole(k, got.bytes); return null; }
      var text = decoder.decode(got.bytes);
      var size = parseInt(text.slice(0, 6), 16);
      if (isNaN(size)) throw new Error('cannot read ' + path);
      var rest = 6 + size <= text.length ? Promise.resolve(text.slice(6, 6 + size)) :
        fetchBytes(path, HEADER_START + text.length, HEADER_START + 6 + size).then(function (more) {
          return text.slice(6) + decoder.decode(more.bytes);
        });
      return rest.then(function (list) {
        var at = HEADER_START + 6 + size + ('",' + k + ',[\n').length;
        var starts = [at];
        varints(list).forEach(function (length) { at += length; starts.push(at); });
        return starts;
      });
    });
    offsets[k].catch(function () { delete offsets[k]; });
    return offsets[k];
  }
  function loadRows(k, rows) {
    var path = 'd/' + k + '.js';
    if (whole[k]) return Promise.resolve();
    if (!ranged) return load('d', k, path);
    return chunkOffsets(k, path).then(function (list) {
      if (!list || whole[k]) return;
      var have = store.d[k] || (store.d[k] = []);
      var wanted = rows.filter(function (i) { return have[i] === undefined; }).sort(function (a, b) { return a - b; });
      // Runs of neighbouring rows, one request each.
      var runs = [];
      wanted.forEach(function (i) {
        var last = runs[runs.length - 1];
        if (last && last[1] === i) last[1] = i + 1; else runs.push([i, i + 1]);
      });
      return Promise.all(runs.map(function (run) {
        if (run[1] >= list.length || list[run[1]] <= list[run[0]]) return null;
        return fetchBytes(path, list[run[0]], list[run[1]]).then(function (got) {
          if (!got.partial) { takeWhole(k, got.bytes); return; }
          var text = decoder.decode(got.bytes).replace(/,\s*$/, '');
          var parsed = JSON.parse('[' + text + ']');
          for (var i = 0; i < parsed.length; i++) have[run[0] + i] = parsed[i];
        });
      }));
    });
  }

  // NFKC then lower case, and the final sigma as σ (toLowerCase makes a
  // capital sigma ς at a word's end, Swift σ), as SearchText.normalize does.
  function normalize(text) { return text.normalize('NFKC').toLowerCase().replace(/\u03c2/g, '\u03c3'); }

  // FNV-1a over UTF-8, as SearchIndexWriter.hash does.
  var encoder = new TextEncoder();
  function shardOf(term) {
    var bytes = encoder.encode(term);
    var hash = 0x811c9dc5;
    for (var i = 0; i < bytes.length; i++) {
      hash ^= bytes[i];
      hash = Math.imul(hash, 0x01000193) >>> 0;
    }
    return hash % info.shards;
  }

  // The filter a token names, 'board', 'author', 'after' or 'before' before a
  // colon (after NFKC and case folding, so board：X is board:X), or ''.
  var FILTERS = { board: true, author: true, after: true, before: true };
  function filterKey(text) {
    var folded = normalize(text);
    var colon = folded.indexOf(':');
    return colon > 0 && FILTERS[folded.slice(0, colon)] === true ? folded.slice(0, colon) : '';
  }

  // YYYY-M-D of a day that exists, as YYYY-MM-DD; '' for anything else.
  function day(text) {
    var m = /^(\d{4})-(\d{1,2})-(\d{1,2})$/.exec(text);
    if (!m) return '';
    var year = Number(m[1]), month = Number(m[2]), date = Number(m[3]);
    var leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
    var days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1];
    if (!days || date < 1 || date > days) return '';
    return m[1] + '-' + (month < 10 ? '0' : '') + month + '-' + (date < 10 ? '0' : '') + date;
  }

  // Terms (normalized) and filters, as SearchText.parse does. A filter
  // with nothing after its colon is left out (it is being typed); a date
  // that is not one is a problem, said instead of searching; two filters
  // of one kind must both hold (two boards: no post).
  function parse(query) {
    var tokens = [];
    var current = '';
    var quoted = false;
    // board:"…": the quotes hold the filter's value.
    var valueQuoted = false;
    for (var ch of query) {
      if (ch === '"') {
        if (quoted) {
          tokens.push([current, !valueQuoted]);
          current = '';
          valueQuoted = false;
        } else if (current && filterKey(current) && /:$/.test(normalize(current))) {
          valueQuoted = true;
        } else if (current) {
          tokens.push([current, false]);
          current = '';
        }
        quoted = !quoted;
      } else if (!quoted && /\s/.test(ch)) {
        if (current) tokens.push([current, false]);
        current = '';
      } else {
        current += ch;
      }
    }
    if (current) tokens.push([current, quoted && !valueQuoted]);
    var result = { terms: [], problems: [], contradictory: false };
    tokens.forEach(function (token) {
      var text = token[0];
      var key = token[1] ? '' : filterKey(text);
      if (key) {
        var folded = normalize(text);
        var value = folded.slice(folded.indexOf(':') + 1);
        if (!value) return;
        if (key === 'board' || key === 'author') {
          if (result[key] !== undefined && result[key] !== value) result.contradictory = true;
          result[key] = value;
          return;
        }
        var d = day(value);
        if (!d) result.problems.push(text);
        else if (key === 'after') { if (!result.after || d > result.after) result.after = d; }
        else if (!result.before || d < result.before) result.before = d;
        return;
      }
      var term = normalize(text);
      // A term twice is the same condition once (a link that repeats a term
      // thousands of times made the page do its work as often).
      if (term && !/^\s+$/.test(term) && result.terms.indexOf(term) < 0) result.terms.push(term);
    });
    return result;
  }

  // Nothing to look for: no term, no filter, nothing wrong.
  function blank(query) {
    return !query.terms.length && query.board === undefined && query.author === undefined && !query.after &&
      !query.before && !query.problems.length && !query.contradictory;
  }

  // Varints from base64 (or from a binary string already decoded).
  function varints(text, binary) {
    var raw = binary ? text : atob(text);
    var out = [];
    var value = 0;
    var shift = 0;
    for (var i = 0; i < raw.length; i++) {
      var byte = raw.charCodeAt(i);
      value += (byte & 0x7f) * Math.pow(2, shift);
      if (byte & 0x80) { shift += 7; } else { out.push(value); value = 0; shift = 0; }
    }
    return out;
  }

  // Base64 read as varints (`varint`), then as Rice-coded values from
  // where they end (`rice`): each value >> k in unary, ones ended by a
  // zero, then its k low bits, low bit first.
  function reader(text) {
    var raw = atob(text);
    var r = { at: 0, raw: raw };
    r.varint = function () {
      var value = 0;
      var shift = 0;
      while (r.at < raw.length) {
        var byte = raw.charCodeAt(r.at++);
        value += (byte & 0x7f) * Math.pow(2, shift);
        if (!(byte & 0x80)) break;
        shift += 7;
      }
      return value;
    };
    r.rice = function (count, k, out, next) {
      var bit = r.at * 8;
      var end = raw.length * 8;
      for (var n = 0; n < count && bit < end; n++) {
        var quotient = 0;
        while (bit < end && (raw.charCodeAt(bit >> 3) >> (bit & 7)) & 1) { quotient++; bit++; }
        bit++;
        var low = 0;
        for (var s = 0; s < k; s++, bit++) if ((raw.charCodeAt(bit >> 3) >> (bit & 7)) & 1) low += Math.pow(2, s);
        out.push(next(quotient * Math.pow(2, k) + low));
      }
      return out;
    };
    return r;
  }

  // A list's documents as the shard spells them: "!" and base64 of a Rice
  // code (varints k, count, first document; then each further gap less
  // one), or "~" and base64 of a bitmap (varint first byte, then a bit a
  // document).
  function decodeDocs(text) {
    var r = reader(text.slice(1));
    var raw = r.raw;
    var out = [];
    if (text.charAt(0) === '~') {
      var first = r.varint();
      for (var j = r.at; j < raw.length; j++) {
        var bits = raw.charCodeAt(j);
        if (!bits) continue;
        var base = (first + j - r.at) * 8;
        for (var b = 0; b < 8; b++) if (bits & (1 << b)) out.push(base + b);
      }
      return out;
    }
    var k = r.varint();
    var count = r.varint();
    var doc = r.varint();
    out.push(doc);
    return r.rice(count - 1, k, out, function (gap) { return (doc += 1 + gap); });
  }

  // A pair's positions as a positions file spells them: base64 of varints
  // k and the number of values, then the values Rice-coded.
  function riceValues(text) {
    var r = reader(text);
    var k = r.varint();
    return r.rice(r.varint(), k, [], function (value) { return value; });
  }

  // A document list → array of documents: the shard's, then its tail's,
  // then the recent tail's.
  function docList(kind, key) {
    var id = kind + '\u0000' + key;
    if (decoded[id]) return decoded[id];
    var k = shardOf(key);
    var shard = store.s[k];
    var tail = store.t[k];
    var text = shard && shard[kind][key];
    var more = tail && tail.l[kind][key];
    var recent = store.r && store.r.l[kind][key];
    var list = text ? decodeDocs(text) : [];
    if (more) list = list.concat(decodeDocs(more));
    if (recent) list = list.concat(decodeDocs(recent));
    return (decoded[id] = list);
  }

  // A pair's documents → Map(document → occurrences), from its shard: its
  // documents; then, if some hold it more than once, "." the ranks of those
  // and "." their counts less 2, a nibble each (15: 17 or more, the rest as
  // varints after the nibbles).
  function pairDocs(pair) {
    var id = 'c\u0000' + pair;
    if (decoded[id]) return decoded[id];
    var parts = pairParts(pair);
    var map = new Map(parts[0]);
    parts[1].forEach(function (count, doc) { map.set(doc, count); });
    parts[2].forEach(function (count, doc) { map.set(doc, count); });
    return (decoded[id] = map);
  }

  // A pair's documents in its shard, in its tail and in the recent tail, apart.
  function pairParts(pair) {
    var id = 'C\u0000' + pair;
    if (decoded[id]) return decoded[id];
    var k = shardOf(pair);
    var shard = store.s[k];
    var tail = store.t[k];
    return (decoded[id] = [countsOf(shard && shard.b[pair]), countsOf(tail && tail.l.b[pair]),
      countsOf(store.r && store.r.l.b[pair])]);
  }

  function countsOf(text) {
    var map = new Map();
    if (text) {
      var parts = text.split('.');
      var docs = decodeDocs(parts[0]);
      var counts = docs.map(function () { return 1; });
      if (parts.length === 3) {
        var ranks = decodeDocs(parts[1]);
        var packed = atob(parts[2]);
        var more = varints(packed.slice((ranks.length + 1) >> 1), true);
        var m = 0;
        for (var r = 0; r < ranks.length; r++) {
          var nibble = (packed.charCodeAt(r >> 1) >> (4 * (r & 1))) & 15;
          counts[ranks[r]] = nibble === 15 ? 17 + more[m++] : nibble + 2;
        }
      }
      for (var i = 0; i < docs.length; i++) map.set(docs[i], counts[i]);
    }
    return map;
  }

  // A pair's positions → Map(document → Set of positions), from its
  // positions file (empty, and not kept, while that is not loaded).
  function pairList(pair) {
    var id = 'p\u0000' + pair;
    if (decoded[id]) return decoded[id];
    var k = shardOf(pair);
    var parts = pairParts(pair);
    var map = new Map();
    var positionsFile = store.p[k];
    if (parts[0].size && !positionsFile) return map;
    // As many positions for each document as its count in the shard (or a tail) says.
    function add(b64, counts) {
      if (!b64) return;
      var values = riceValues(b64);
      var i = 0;
      counts.forEach(function (count, doc) {
        var positions = new Set();
        var position = 0;
        for (var c = 0; c < count; c++) { position += values[i++]; positions.add(position); }
        map.set(doc, positions);
      });
    }
    if (parts[0].size) add(positionsFile[pair], parts[0]);
    add(store.t[k] && store.t[k].p[pair], parts[1]);
    add(store.r && store.r.p[pair], parts[2]);
    return (decoded[id] = map);
  }

  // The pairs that pin a term down: at offsets 0, 2, 4… and the last two characters.
  function pairsOf(term) {
    var chars = Array.from(term);
    if (chars.length < 2) return [];
    var pairs = [];
    for (var o = 0; o + 2 <= chars.length; o += 2) pairs.push([o, chars[o] + chars[o + 1]]);
    if (pairs[pairs.length - 1][0] + 2 < chars.length) {
      pairs.push([chars.length - 2, chars[chars.length - 2] + chars[chars.length - 1]]);
    }
    return pairs;
  }

  function keysOf(query) {
    var keys = [];
    query.terms.forEach(function (term) {
      var chars = Array.from(term);
      if (chars.length === 1) keys.push(term);
      else pairsOf(term).forEach(function (p) { keys.push(p[1]); });
    });
    if (query.board) keys.push('b:' + query.board);
    if (query.author) keys.push('a:' + query.author);
    return keys;
  }

  // A term's occurrences in one post are counted up to this many: past it
  // the score hardly moves (1 + ln 100 against 1 + ln 1000), and a long post
  // that holds a term everywhere (300 kB of one letter, 80 terms of it)
  // kept the page busy for 23 s counting them all.
  var COUNT_CAP = 100;
  // Positions looked up by termDocs, for the tests: the work a query costs.
  S.work = 0;

  // Map(document → occurrences, at most COUNT_CAP) of one term.
  function termDocs(term) {
    var result = new Map();
    var chars = Array.from(term);
    if (chars.length === 1) {
      docList('u', term).forEach(function (d) { result.set(d, 1); });
      return result;
    }
    if (chars.length === 2) return pairDocs(term);
    var pairs = pairsOf(term).map(function (p) { return [p[0], p[1], pairList(p[1])]; });
    pairs.sort(function (a, b) { return a[2].size - b[2].size; });
    // Whether each offset repeats a pair an earlier one holds (the same for every post).
    var seen = new Set();
    var repeats = pairs.map(function (p) { var again = seen.has(p[1]); seen.add(p[1]); return again; });
    var first = pairs[0];
    first[2].forEach(function (_, doc) {
      // In this post: each pair's offset in the term and its positions,
      // each pair's first offset first, rarest first, then the offsets
      // that repeat a pair. The rarest leads, so a pair the post is full
      // of costs what the rarest pair of the term costs.
      var lists = [];
      for (var i = 0; i < pairs.length; i++) {
        var positions = pairs[i][2].get(doc);
        if (!positions) return;
        lists.push([pairs[i][0], positions, repeats[i]]);
      }
      lists.sort(function (a, b) { return (a[2] - b[2]) || (a[1].size - b[1].size); });
      var lead = lists[0];
      var count = 0;
      for (var p of lead[1]) {
        var start = p - lead[0];
        var found = true;
        for (var j = 1; j < lists.length; j++) {
          S.work++;
          if (!lists[j][1].has(start + lists[j][0])) { found = false; break; }
        }
        if (found && ++count >= COUNT_CAP) break;
      }
      if (count) result.set(doc, count);
    });
    return result;
  }

  function dayNumber(text) { return parseInt(text.replace(/-/g, ''), 10); }

  // Whether the date filters allow a document, or null without them: the
  // late documents by their own day, the others (numbered in time order)
  // by the range of documents of the days allowed.
  function dateTest(query) {
    if (!query.after && !query.before) return null;
    var range = dayRange(query);
    var late = store.late;
    var after = query.after ? dayNumber(query.after) : 0;
    var before = query.before ? dayNumber(query.before) : Infinity;
    return function (doc) {
      var entry = late && late.get(doc);
      if (entry) return entry.day >= after && entry.day <= before;
      return doc >= range[0] && doc < range[1];
    };
  }

  // Newest first: a late document just before its point, in rank order;
  // the others by number.
  function newer(a, b) {
    var late = store.late;
    var x = late && late.get(a);
    var y = late && late.get(b);
    var ax = x ? x.point : a, bx = y ? y.point : b;
    if (ax !== bx) return bx - ax;
    var ay = x ? 0 : 1, by = y ? 0 : 1;
    if (ay !== by) return by - ay;
    return (y ? y.rank : 0) - (x ? x.rank : 0);
  }

  // Documents [from, to) of the days the filters allow, among those numbered in time order.
  function dayRange(query) {
    var from = 0;
    var to = info.docs;
    var days = store.days || [];
    if (query.after) {
      var after = dayNumber(query.after);
      from = info.docs;
      for (var i = 0; i < days.length; i++) if (days[i][0] >= after) { from = days[i][1]; break; }
    }
    if (query.before) {
      var before = dayNumber(query.before);
      for (var k = 0; k < days.length; k++) if (days[k][0] > before) { to = days[k][1]; break; }
    }
    return [from, to];
  }

  // Every matching document with its score.
  function evaluate(query) {
    var sets = query.terms.map(termDocs);
    var filters = [];
    if (query.board) filters.push(new Set(docList('m', 'b:' + query.board)));
    if (query.author) filters.push(new Set(docList('m', 'a:' + query.author)));
    var dated = dateTest(query);
    var candidates;
    if (sets.length) {
      var smallest = sets.slice().sort(function (a, b) { return a.size - b.size; })[0];
      candidates = Array.from(smallest.keys());
    } else if (filters.length) {
      candidates = Array.from(filters[0]);
    } else {
      candidates = [];
      var range = dayRange(query);
      for (var d = range[0]; d < range[1]; d++) candidates.push(d);
      if (store.late) store.late.forEach(function (entry, doc) { if (doc < range[0] || doc >= range[1]) candidates.push(doc); });
    }
    var hits = [];
    candidates.forEach(function (doc) {
      if (dated && !dated(doc)) return;
      for (var f = 0; f < filters.length; f++) if (!filters[f].has(doc)) return;
      var score = 0;
      for (var i = 0; i < sets.length; i++) {
        var count = sets[i].get(doc);
        if (!count) return;
        score += (1 + Math.log(count)) * Math.log(1 + info.docs / sets[i].size);
      }
      hits.push([doc, score]);
    });
    return hits;
  }

  // Whether some document could match, from the document lists alone
  // (every pair of a longer term present, every filter and the dates).
  function anyCandidate(query) {
    var lists = [];
    query.terms.forEach(function (term) {
      var chars = Array.from(term);
      if (chars.length === 1) lists.push(new Set(docList('u', term)));
      else pairsOf(term).forEach(function (p) { lists.push(pairDocs(p[1])); });
    });
    if (query.board) lists.push(new Set(docList('m', 'b:' + query.board)));
    if (query.author) lists.push(new Set(docList('m', 'a:' + query.author)));
    if (!lists.length) return true;
    var dated = dateTest(query);
    lists.sort(function (a, b) { return a.size - b.size; });
    var found = false;
    lists[0].forEach(function (value, key) {
      var doc = lists[0] instanceof Map ? key : value;
      if (found || (dated && !dated(doc))) return;
      for (var i = 1; i < lists.length; i++) if (!lists[i].has(doc)) return;
      found = true;
    });
    return found;
  }

  // The shards of a query's terms and filters (and the days, for dates);
  // then, for terms of three or more characters, their pairs' positions,
  // unless the document lists already leave nothing to match.
  function loadIndex(query, newest) {
    var loads = [];
    keysOf(query).forEach(function (key) {
      var k = shardOf(key);
      // A shard without a file holds nothing: no request for it.
      if (!hasFile(k)) { store.s[k] = store.s[k] || { u: {}, b: {}, m: {} }; return; }
      loads.push(load('s', k, 's/' + k.toString(16) + '.js').then(function () {
        if (tailed[k]) return load('t', k, 't/' + k.toString(16) + '.js');
      }));
    });
    if (info.recent) loads.push(load('r', '', 'r.js'));
    if (query.after || query.before) loads.push(load('days', '', 'days.js'));
    if ((query.after || query.before || newest) && info.late) loads.push(load('late', '', 'late.js'));
    return Promise.all(loads).then(function () {
      var long = query.terms.filter(function (term) { return Array.from(term).length > 2; });
      if (!long.length || !anyCandidate(query)) return;
      var files = {};
      long.forEach(function (term) {
        pairsOf(term).forEach(function (p) {
          var k = shardOf(p[1]);
          if (store.s[k] && store.s[k].b[p[1]]) files[k] = true;
        });
      });
      return Promise.all(Object.keys(files).map(function (k) {
        return load('p', k, 'p/' + Number(k).toString(16) + '.js');
      }));
    });
  }

  // Timestamps of a query's stages in the performance timeline (make bench reads them).
  function mark(name) { if (window.performance && performance.mark) performance.mark(name); }

  var results, status, form, input, sort;
  var generation = 0;
  // Whether the query being typed already has its history entry.
  var typing = false;

  function params() { return new URLSearchParams(location.search); }

  function href(q, page, order) {
    var p = new URLSearchParams();
    p.set('q', q);
    if (order === 'newest') p.set('sort', 'newest');
    if (page > 1) p.set('page', String(page));
    return location.pathname.split('/').pop() + '?' + p.toString();
  }

  // Shows a query and keeps it in the address. Runs from the values, not
  // from the address: browsers may drop history calls made in quick
  // succession (Chromium throttles them).
  function go(q, page, order, push) {
    var target = href(q, page, order);
    try {
      if (push) history.pushState(null, '', target);
      else history.replaceState(null, '', target);
    } catch (error) { /* the address is a convenience; the results are not */ }
    if (input.value !== q) input.value = q;
    sort.value = order;
    run(q, page, order);
  }

  // The run for the address as it stands.
  function runFromURL() {
    var p = params();
    var q = p.get('q') || '';
    var page = Math.max(1, parseInt(p.get('page') || '1', 10) || 1);
    var order = p.get('sort') === 'newest' ? 'newest' : 'relevance';
    if (input.value !== q) input.value = q;
    sort.value = order;
    run(q, page, order);
  }

  function run(q, page, order) {
    var mine = ++generation;
    results.setAttribute('aria-busy', 'true');
    results.dataset.query = q;
    results.dataset.page = String(page);
    var query = parse(q);
    if (wrongVersion) {
      finish(mine, [], 0, query, q, page, order, wrongVersion);
      return;
    }
    if (query.problems.length) {
      finish(mine, [], 0, query, q, page, order, query.problems.join('、') +
        ' 不是一个日期：日期写成 after:2024-01-31 这样（年-月-日）。');
      return;
    }
    if (blank(query) || query.contradictory) {
      finish(mine, [], 0, query, q, page, order, '');
      return;
    }
    status.textContent = '正在搜索…';
    mark('search-start');
    loadIndex(query, order === 'newest').then(function () {
      if (mine !== generation) return;
      mark('search-shards');
      var hits = evaluate(query);
      mark('search-evaluated');
      if (order === 'newest') hits.sort(function (a, b) { return newer(a[0], b[0]); });
      else hits.sort(function (a, b) { return b[1] - a[1] || b[0] - a[0]; });
      // A page past the last shows the last (and the address says so).
      page = Math.max(1, Math.min(page, Math.ceil(hits.length / PER_PAGE)));
      var shown = hits.slice((page - 1) * PER_PAGE, page * PER_PAGE).map(function (h) { return h[0]; });
      var chunks = {};
      shown.forEach(function (doc) {
        var k = Math.floor(doc / info.chunk);
        (chunks[k] || (chunks[k] = [])).push(doc % info.chunk);
      });
      return Promise.all(Object.keys(chunks).map(function (k) { return loadRows(k, chunks[k]); }))
        .then(function () { finish(mine, shown, hits.length, query, q, page, order, ''); });
    }).catch(function (error) {
      if (mine === generation) finish(mine, [], 0, query, q, page, order, '索引文件读不到（' + error.message + '）。');
    });
  }

  function finish(mine, shown, total, query, q, page, order, problem) {
    if (mine !== generation) return;
    results.textContent = '';
    results.dataset.total = String(total);
    results.dataset.page = String(page);
    // The address says what is shown: page=0, page=-1 or a page past the
    // last become the page shown (only for the query the address holds).
    var p = params();
    var shownHref = href(q, page, order);
    if (p.get('q') === q && location.pathname.split('/').pop() + location.search !== shownHref) {
      try { history.replaceState(null, '', shownHref); } catch (error) { /* a convenience */ }
    }
    if (problem) {
      status.textContent = problem;
    } else if (blank(query)) {
      status.textContent = '输入要找的文字。';
    } else {
      status.textContent = total ? '共 ' + total + ' 篇' + (total > PER_PAGE ? '，第 ' + page + ' 页' : '') :
        '没有找到含有这些文字的帖子。';
    }
    if (shown.length) {
      var list = document.createElement('ol');
      list.className = 'hits';
      list.start = (page - 1) * PER_PAGE + 1;
      shown.forEach(function (doc) {
        var row = (store.d[Math.floor(doc / info.chunk)] || [])[doc % info.chunk];
        if (row) list.appendChild(hitItem(row, query.terms));
      });
      results.appendChild(list);
    }
    var pages = Math.ceil(total / PER_PAGE);
    if (pages > 1) {
      var nav = document.createElement('nav');
      nav.className = 'search-pager';
      nav.setAttribute('aria-label', '搜索结果分页');
      if (page > 1) nav.appendChild(pagerLink(q, page - 1, order, 'prev', '上一页'));
      if (page < pages) nav.appendChild(pagerLink(q, page + 1, order, 'next', '下一页'));
      results.appendChild(nav);
    }
    document.title = q.trim() ? q.trim() + ' · ' + title : title;
    results.setAttribute('aria-busy', 'false');
    mark('search-shown');
  }

  function pagerLink(q, page, order, rel, label) {
    var a = document.createElement('a');
    a.href = href(q, page, order);
    a.rel = rel;
    a.textContent = label;
    a.addEventListener('click', function (event) {
      if (event.button || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
      event.preventDefault();
      typing = false;
      go(q, page, order, true);
      window.scrollTo(0, 0);
    });
    return a;
  }

  // board, gid, floor, link, author, time, title, text
  function hitItem(row, terms) {
    var item = document.createElement('li');
    var link = document.createElement('a');
    link.className = 'hit';
    // The link, or the page's number when it is board/B/GID(-P).html#aF.
    link.setAttribute('href', typeof row[3] === 'number' ?
      'board/' + row[0] + '/' + row[1] + (row[3] > 1 ? '-' + row[3] : '') + '.html#a' + row[2] : row[3]);
    link.textContent = row[6] || '(无标题)';
    item.appendChild(link);
    var meta = document.createElement('span');
    meta.className = 'meta';
    meta.textContent = row[0] + ' · ' + row[4] + ' · ' + row[5] + ' · ' + (row[2] === 0 ? '楼主' : row[2] + '楼');
    item.appendChild(meta);
    var snippet = document.createElement('p');
    snippet.className = 'snippet';
    appendSnippet(snippet, row[7], terms);
    item.appendChild(snippet);
    return item;
  }

  // A window of the text around the first match, every term in it marked.
  // A text's characters as a reader sees them: grapheme clusters where the
  // browser tells them, so that a letter and its combining accent, or
  // Hangul written as jamo, normalize together (composed) as the index
  // normalized the whole text; else code points.
  var graphemes = typeof Intl !== 'undefined' && Intl.Segmenter ?
    new Intl.Segmenter(undefined, { granularity: 'grapheme' }) : null;
  function characters(text) {
    if (!graphemes) return Array.from(text);
    var out = [];
    for (var part of graphemes.segment(text)) out.push(part.segment);
    return out;
  }

  function appendSnippet(element, text, terms) {
    var chars = characters(text);
    var folded = '';
    var origin = [];
    // Where each character's folded text starts.
    var foldedAt = [];
    chars.forEach(function (ch, i) {
      var n = normalize(ch);
      foldedAt.push(folded.length);
      for (var k = 0; k < n.length; k++) origin.push(i);
      folded += n;
    });
    origin.push(chars.length);
    foldedAt.push(folded.length);
    // The snippet starts a little before the first match of any term, and
    // only matches within it are marked (not every match of the post).
    // Each term comes once (`parse`).
    var first = -1;
    terms.forEach(function (term) {
      var at = folded.indexOf(term);
      if (at >= 0 && (first < 0 || at < first)) first = at;
    });
    var start = first >= 0 ? Math.max(0, origin[first] - 30) : 0;
    var end = Math.min(chars.length, start + 140);
    var marks = [];
    terms.forEach(function (term) {
      var at = folded.indexOf(term, foldedAt[start]);
      while (at >= 0 && origin[at] < end) {
        marks.push([origin[at], origin[at + term.length - 1] + 1]);
        at = folded.indexOf(term, at + term.length);
      }
    });
    marks.sort(function (a, b) { return a[0] - b[0]; });
    if (start > 0) element.appendChild(document.createTextNode('…'));
    var cursor = start;
    marks.forEach(function (m) {
      if (m[0] < cursor || m[0] >= end) return;
      element.appendChild(document.createTextNode(chars.slice(cursor, m[0]).join('').replace(/\n/g, ' ')));
      var mark = document.createElement('mark');
      mark.textContent = chars.slice(m[0], Math.min(m[1], end)).join('');
      element.appendChild(mark);
      cursor = Math.min(m[1], end);
    });
    element.appendChild(document.createTextNode(chars.slice(cursor, end).join('').replace(/\n/g, ' ')));
    if (end < chars.length) element.appendChild(document.createTextNode('…'));
  }

  var started = false;
  var title = document.title;
  function start() {
    if (started || !info) return;
    results = document.getElementById('results');
    if (!results) return;
    started = true;
    status = document.getElementById('search-status');
    form = document.getElementById('search-form');
    input = document.getElementById('search-q');
    sort = document.getElementById('search-sort');
    var script = document.querySelector('script[data-search-index]');
    base = script ? script.src.replace(/index\.js([?#].*)?$/, '') : 'search/';

    // 本版搜索 from a board's page: the same query with board:.
    var p = params();
    if (p.get('board')) {
      var q = (p.get('q') || '').trim();
      var board = 'board:' + p.get('board');
      if (q.split(/\s+/).indexOf(board) < 0) q = (q ? q + ' ' : '') + board;
      history.replaceState(null, '', href(q, 1, p.get('sort')));
    }

    var timer = null;
    // An input method's composition (pinyin before it becomes 价) is not
    // searched for: only what it commits.
    var composing = false;
    function typed() {
      clearTimeout(timer);
      timer = setTimeout(function () {
        // The first search of a run of typing gets a history entry of its
        // own (Back returns to the search before); the rest replace it.
        var first = !typing;
        typing = true;
        go(input.value, 1, sort.value, first);
      }, 250);
    }
    form.addEventListener('submit', function (event) {
      event.preventDefault();
      clearTimeout(timer);
      typing = false;
      go(input.value, 1, sort.value, true);
    });
    input.addEventListener('compositionstart', function () {
      composing = true;
      clearTimeout(timer);
    });
    input.addEventListener('compositionend', function () {
      composing = false;
      typed();
    });
    input.addEventListener('input', function (event) {
      if (composing || event.isComposing) return;
      typed();
    });
    sort.addEventListener('change', function () {
      typing = false;
      go(input.value, 1, sort.value, true);
    });
    window.addEventListener('popstate', function () {
      typing = false;
      runFromURL();
    });
    runFromURL();
  }

  // Every document number that matches a query, best first: what make
  // bench compares with its ground truth (the page shows 20 of them).
  S.all = function (q) {
    var query = parse(q);
    if (blank(query) || query.contradictory || query.problems.length) return Promise.resolve([]);
    return loadIndex(query).then(function () {
      return evaluate(query).sort(function (a, b) { return b[1] - a[1] || b[0] - a[0]; })
        .map(function (h) { return h[0]; });
    });
  };
  // Every matching document, newest first.
  S.newest = function (q) {
    var query = parse(q);
    if (blank(query) || query.contradictory || query.problems.length) return Promise.resolve([]);
    return loadIndex(query, true).then(function () {
      return evaluate(query).map(function (h) { return h[0]; }).sort(newer);
    });
  };
  S.info = function () { return info; };
  S.parse = parse;
  S.normalize = normalize;
  // Without the manifest once the page has loaded (every deferred script
  // has run), search/index.js is missing or broken: said, not a page that
  // looks like a search that found nothing.
  function noIndex() {
    if (info) return;
    var box = document.getElementById('results');
    var line = document.getElementById('search-status');
    if (!box || !line) return;
    var q = params().get('q') || '';
    var field = document.getElementById('search-q');
    if (field) field.value = q;
    line.textContent = '读不到搜索索引 search/index.js：这个存档的 search/ 文件夹不全。' +
      '请用 bbsarchive build 重新生成，发布时把整个 search/ 文件夹一起上传。';
    box.dataset.query = q;
    box.dataset.page = '1';
    box.dataset.total = '0';
    box.setAttribute('aria-busy', 'false');
  }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
  if (document.readyState === 'complete') noIndex();
  else window.addEventListener('load', noIndex);
})();
