// The report's row viewer: reads the page's JSON island and draws the rows, their filters and details.
// It builds every element with createElement and textContent (never markup from data), makes no
// request and evaluates no text; the page's Content-Security-Policy allows this script alone.
"use strict";
(function () {
  var island = document.getElementById("jev-data");
  if (!island) { return; }
  var data = JSON.parse(island.textContent);
  var criteria = data.criteria || [];
  var compare = !!data.compare;
  var pairwise = !!data.pairwise;
  var rows = data.rows || [];
  var body = document.getElementById("rows-body");
  var count = document.getElementById("f-count");
  var pick = document.getElementById("f-criterion");
  var outcome = document.getElementById("f-outcome");
  var search = document.getElementById("f-search");
  var sort = document.getElementById("f-sort");
  if (!body) { return; }

  function el(tag, text, cls) {
    var node = document.createElement(tag);
    if (text !== undefined && text !== null) { node.textContent = String(text); }
    if (cls) { node.className = cls; }
    return node;
  }
  // a text the page cut is [kept, characters left out]
  function plain(value) {
    if (Array.isArray(value)) { return value[0] + " \u2026 (" + value[1] + " more characters)"; }
    return value === undefined || value === null ? "" : String(value);
  }
  function num(value, digits) {
    return typeof value === "number" ? value.toFixed(digits === undefined ? 3 : digits) : "-";
  }
  function criterionName(finding) {
    var c = criteria[finding.c];
    return c ? c.name : plain(finding.name);
  }
  function side(row) { return compare ? row.b : row; }
  function findingOf(row, index) {
    var f = row && row.f ? row.f : [];
    for (var i = 0; i < f.length; i++) { if (f[i].c === index) { return f[i]; } }
    return null;
  }
  function failingNames(row) {
    if (!row) { return ""; }
    if (row.err !== undefined) { return "not judged"; }
    var names = [];
    (row.f || []).forEach(function (f) { if (f.b) { names.push(criterionName(f)); } });
    return names.join(", ");
  }
  function verdict(row) {
    if (!row) { return "missing"; }
    if (row.err !== undefined) { return "not judged"; }
    return row.ok ? "passed" : "failed";
  }

  var haystacks = [];
  function haystack(i) {
    if (haystacks[i] === undefined) {
      var parts = [];
      var sides = compare ? [rows[i].a, rows[i].b] : [rows[i]];
      if (pairwise) { (rows[i].ans || []).forEach(function (answer) { parts.push(plain(answer)); }); }
      sides.forEach(function (row) {
        if (!row) { return; }
        parts.push(String(row.n), plain(row.id), plain(row.fb), plain(row.err), row.k);
        (row.s || []).forEach(function (pair) { parts.push(pair[0], plain(pair[1])); });
        (row.f || []).forEach(function (f) { parts.push(criterionName(f), f.o, plain(f.d), plain(f.r)); });
        if (row.j) { row.j.m.forEach(function (name) { parts.push(plain(name)); }); }
      });
      haystacks[i] = parts.join("\n").toLowerCase();
    }
    return haystacks[i];
  }

  // ---- the table of rows
  var entries = rows.map(function (row, i) {
    var tr = el("tr", null, "row");
    tr.id = "row-" + i;
    var shown = side(row) || row.a;
    var open = el("button", (row.n !== undefined && row.n !== null) ? row.n : (shown && shown.n) || "?", "open");
    open.type = "button";
    open.setAttribute("aria-expanded", "false");
    open.title = "open the row";
    var first = el("td");
    first.appendChild(open);
    tr.appendChild(first);
    tr.appendChild(el("td", plain(shown && shown.id), "text"));
    if (pairwise) {
      var undecided = (row.f || []).filter(function (f) { return f.o === "INCONCLUSIVE" || f.o === "ERROR"; });
      tr.appendChild(el("td", preferenceWords(row.pref), "text " + (row.pref === "ERROR" || row.pref === "INCONCLUSIVE" ? "fail" : "")));
      tr.appendChild(el("td", undecided.map(criterionName).join(", "), "text fail"));
      var said = plain(row.err !== undefined ? row.err : row.sum);
      tr.appendChild(el("td", said.length > 160 ? said.slice(0, 160) + "\u2026" : said, "text feedback"));
    } else if (compare) {
      tr.appendChild(el("td", row.flip, "text " + (row.regression ? "fail" : "pass")));
      tr.appendChild(el("td", verdict(row.a) + " \u2192 " + verdict(row.b), "text"));
      tr.appendChild(el("td", (row.flipped || []).map(function (c) { return criteria[c] ? criteria[c].name : "?"; }).join(", "), "text"));
    } else {
      var state = verdict(row);
      tr.appendChild(el("td", state, "text " + (state === "passed" ? "pass" : "fail")));
      tr.appendChild(el("td", failingNames(row), "text fail"));
      tr.appendChild(el("td", num(row.m)));
      var fb = plain(row.err !== undefined ? row.err : row.fb);
      tr.appendChild(el("td", fb.length > 160 ? fb.slice(0, 160) + "\u2026" : fb, "text feedback"));
    }
    if (compare && row.regression) { tr.classList.add("regression"); }
    var detail = el("tr", null, "detail");
    detail.hidden = true;
    var cell = el("td");
    cell.colSpan = 6;
    detail.appendChild(cell);
    var entry = { i: i, tr: tr, detail: detail, cell: cell, button: open, drawn: false };
    open.addEventListener("click", function () { toggle(entry); });
    return entry;
  });

  function toggle(entry, force) {
    var opening = force === undefined ? entry.detail.hidden : force;
    if (opening && !entry.drawn) { drawDetail(entry); }
    entry.detail.hidden = !opening;
    entry.button.setAttribute("aria-expanded", opening ? "true" : "false");
    entry.tr.classList.toggle("opened", opening);
  }

  function stateTable(row) {
    if (!row.s) {
      return el("p", row.note || "The judged state is not in this report.", "note");
    }
    var table = el("table", null, "state");
    row.s.forEach(function (pair) {
      var tr = el("tr");
      tr.appendChild(el("th", pair[0], "text"));
      tr.appendChild(el("td", plain(pair[1]), "text value"));
      table.appendChild(tr);
    });
    return table;
  }

  function answerText(a) {
    if (!a) { return "-"; }
    var parts = [];
    if (a.type === "noul") { parts.push("yes " + num(a.noul)); }
    if (a.type === "score") { parts.push("score " + num(a.score, 2)); }
    if (a.type === "choice") { parts.push("chose \u201c" + plain(a.choice) + "\u201d"); }
    if (typeof a.confidence === "number") { parts.push("confidence " + num(a.confidence)); }
    if (a.probabilities) {
      parts.push(a.probabilities.map(function (p) { return p[0] + ": " + num(p[1]); }).join(", "));
    }
    return parts.join("; ");
  }

  function findingsTable(row, other) {
    var table = el("table", null, "findings");
    var head = el("tr");
    ["criterion", "outcome", "pass probability", "answer", "threshold", "closeness", "detail"].forEach(function (h) {
      head.appendChild(el("th", h, "text"));
    });
    table.appendChild(head);
    (row.f || []).forEach(function (f) {
      var tr = el("tr");
      var c = criteria[f.c];
      tr.appendChild(el("td", criterionName(f), "text"));
      tr.appendChild(el("td", f.o, "text " + (f.b ? "fail" : f.o === "PASSED" ? "pass" : "")));
      tr.appendChild(el("td", num(f.p)));
      tr.appendChild(el("td", answerText(f.a), "text"));
      tr.appendChild(el("td", c ? c.threshold : "", "text"));
      tr.appendChild(el("td", num(f.m)));
      var detail = plain(f.d);
      if (f.r !== undefined) { detail += "\nreasoning: " + plain(f.r); }
      if (f.u !== undefined) { detail += "\nunreadable: " + plain(f.u); }
      tr.appendChild(el("td", detail, "text value"));
      if (other) {
        var twin = findingOf(other, f.c);
        if (twin && twin.b !== f.b) { tr.classList.add("changed"); }
      }
      table.appendChild(tr);
    });
    return table;
  }

  function juryTable(row) {
    var table = el("table", null, "jury");
    var head = el("tr");
    ["criterion", "member", "answer", "pass probability"].forEach(function (h) { head.appendChild(el("th", h, "text")); });
    table.appendChild(head);
    (row.f || []).forEach(function (f) {
      (f.v || []).forEach(function (said, i) {
        var tr = el("tr");
        tr.appendChild(el("td", i === 0 ? criterionName(f) : "", "text"));
        tr.appendChild(el("td", plain(row.j.m[said[0]]), "text"));
        tr.appendChild(el("td", said[1] ? answerText(said[1]) : "unreadable: " + plain(said[3]), "text" + (said[1] ? "" : " fail")));
        tr.appendChild(el("td", num(said[2])));
        table.appendChild(tr);
      });
    });
    (row.j.x || []).forEach(function (pair) {
      var tr = el("tr", null, "failed");
      tr.appendChild(el("td", "", "text"));
      tr.appendChild(el("td", plain(pair[0]), "text"));
      tr.appendChild(el("td", "failed: " + plain(pair[1]), "text fail"));
      tr.appendChild(el("td", "-"));
      table.appendChild(tr);
    });
    return table;
  }

  function preferenceWords(value) {
    if (value === "A" || value === "B") { return data.labels[value === "A" ? 0 : 1] + " better"; }
    if (value === "TIE") { return "equally good"; }
    if (value === "INCONCLUSIVE") { return "undecided"; }
    if (value === "ERROR") { return "not compared"; }
    return plain(value);
  }

  function pairwiseDetail(row) {
    var box = el("div");
    var where = "row " + row.n + ", key " + row.k + " \u2014 " + preferenceWords(row.pref);
    box.appendChild(el("p", where, "note"));
    if (row.err !== undefined) { box.appendChild(el("p", plain(row.err), "fail value")); }
    box.appendChild(el("h4", "what both answer"));
    box.appendChild(stateTable(row));
    var pair = el("div", null, "pair");
    (row.ans || []).forEach(function (answer, i) {
      var side = el("div", null, "side answer");
      side.appendChild(el("h4", data.labels[i] + "'s answer"));
      side.appendChild(el("p", plain(answer), "value"));
      pair.appendChild(side);
    });
    box.appendChild(pair);
    if (!(row.f || []).length) { return box; }
    box.appendChild(el("h4", "per criterion, in both orders"));
    var table = el("table", null, "findings");
    var head = el("tr");
    ["criterion", "preference", data.labels[0] + " shown first", data.labels[1] + " shown first", "probabilities", "detail"].forEach(function (h) {
      head.appendChild(el("th", h, "text"));
    });
    table.appendChild(head);
    row.f.forEach(function (f) {
      var tr = el("tr");
      tr.appendChild(el("td", criterionName(f), "text"));
      var undecided = f.o === "INCONCLUSIVE" || f.o === "ERROR";
      tr.appendChild(el("td", preferenceWords(f.o), "text" + (undecided ? " fail" : "")));
      (f.orders || [null, null]).forEach(function (o) { tr.appendChild(el("td", o === null ? "-" : preferenceWords(o), "text")); });
      tr.appendChild(el("td", (f.p || []).map(function (p) { return preferenceWords(p[0]) + ": " + num(p[1]); }).join(", "), "text"));
      var detail = plain(f.d);
      if (f.r !== undefined) { detail += "\nreasoning: " + plain(f.r); }
      if (f.m !== undefined) {
        detail += "\nthe jury: " + f.m.map(function (m) { return plain(m[0]) + " " + preferenceWords(m[1]); }).join(", ");
      }
      tr.appendChild(el("td", detail, "text value"));
      if (undecided) { tr.classList.add("changed"); }
      table.appendChild(tr);
    });
    box.appendChild(table);
    return box;
  }

  function rowDetail(row, label, other) {
    var box = el("div", null, "side");
    if (label) { box.appendChild(el("h4", label)); }
    if (!row) { box.appendChild(el("p", "not in this results file", "note")); return box; }
    var where = "row " + row.n + (row.line !== undefined ? ", line " + row.line : "") + ", key " + row.k;
    box.appendChild(el("p", where + " \u2014 " + verdict(row), "note"));
    if (row.err !== undefined) { box.appendChild(el("p", plain(row.err), "fail value")); }
    box.appendChild(el("h4", "judged state"));
    box.appendChild(stateTable(row));
    box.appendChild(el("h4", "findings"));
    box.appendChild(findingsTable(row, other));
    if (row.j) {
      box.appendChild(el("h4", "the jury (" + plain(row.j.combine) + "): who said what"));
      box.appendChild(juryTable(row));
    }
    if (row.fb !== undefined) {
      box.appendChild(el("h4", "feedback"));
      box.appendChild(el("p", plain(row.fb), "value"));
    }
    return box;
  }

  function drawDetail(entry) {
    var row = rows[entry.i];
    if (pairwise) {
      entry.cell.appendChild(pairwiseDetail(row));
    } else if (compare) {
      var pair = el("div", null, "pair");
      pair.appendChild(rowDetail(row.a, data.labels[0], row.b));
      pair.appendChild(rowDetail(row.b, data.labels[1], row.a));
      entry.cell.appendChild(pair);
    } else {
      entry.cell.appendChild(rowDetail(row, null, null));
    }
    entry.drawn = true;
  }

  // ---- filters and sort
  function matchesFlip(entry, criterion, wanted) {
    var flip = rows[entry.i];
    if (criterion >= 0 && (flip.flipped || []).indexOf(criterion) < 0) { return false; }
    if (wanted === "regression") { return !!flip.regression; }
    if (wanted === "improvement") { return !flip.regression; }
    return true;
  }

  function matches(entry, criterion, wanted, text) {
    if (text && haystack(entry.i).indexOf(text) < 0) { return false; }
    if (compare) { return matchesFlip(entry, criterion, wanted); }
    if (pairwise) {
      var own = rows[entry.i];
      var found = criterion >= 0 ? findingOf(own, criterion) : null;
      if (wanted === "any") { return criterion < 0 || !!found || own.err !== undefined; }
      if (criterion < 0) { return own.pref === wanted; }
      return found ? found.o === wanted : (wanted === "ERROR" && own.err !== undefined);
    }
    var row = rows[entry.i];
    var f = criterion >= 0 ? findingOf(row, criterion) : null;
    if (criterion >= 0 && !f) { return false; }
    if (wanted === "any") { return true; }
    var margin = criterion >= 0 ? (f ? f.m : undefined) : row.m;
    if (wanted === "failing") { return criterion >= 0 ? !!(f && f.b) : !row.ok; }
    if (wanted === "passing") { return criterion >= 0 ? !!(f && !f.b && f.o === "PASSED") : !!row.ok; }
    if (wanted === "borderline") { return typeof margin === "number" && margin < data.borderline; }
    if (wanted === "error") { return criterion >= 0 ? !!(f && f.o === "ERROR") : row.err !== undefined; }
    if (criterion >= 0) { return !!(f && f.o === wanted); }
    return (row.f || []).some(function (g) { return g.o === wanted; });
  }

  function marginOf(entry, criterion) {
    var row = side(rows[entry.i]);
    if (!row) { return Infinity; }
    if (criterion >= 0) {
      var f = findingOf(row, criterion);
      return f && typeof f.m === "number" ? f.m : Infinity;
    }
    return typeof row.m === "number" ? row.m : Infinity;
  }

  var arranged = null;  // the order the rows are in now ("row", or "closeness:" and a criterion)

  function arrange(criterion) {
    var wanted = sort && sort.value === "closeness" ? "closeness:" + criterion : "row";
    if (wanted === arranged) { return; }
    var order = entries.slice();
    if (wanted !== "row") {
      order.sort(function (x, y) { return (marginOf(x, criterion) - marginOf(y, criterion)) || (x.i - y.i); });
    }
    var fragment = document.createDocumentFragment();
    order.forEach(function (entry) { fragment.appendChild(entry.tr); fragment.appendChild(entry.detail); });
    body.appendChild(fragment);
    arranged = wanted;
  }

  function apply() {
    var criterion = pick ? Number(pick.value) : -1;
    var wanted = outcome ? outcome.value : "any";
    var text = search ? search.value.trim().toLowerCase() : "";
    arrange(criterion);
    var shown = 0;
    entries.forEach(function (entry) {
      var keep = matches(entry, criterion, wanted, text);
      if (entry.tr.hidden === keep) { entry.tr.hidden = !keep; }
      var closed = !keep || !entry.tr.classList.contains("opened");
      if (entry.detail.hidden !== closed) { entry.detail.hidden = closed; }
      shown += keep ? 1 : 0;
    });
    if (count) { count.textContent = shown + " of " + rows.length + " rows shown"; }
  }

  if (pick) {
    criteria.forEach(function (c, i) {
      var option = el("option", c.name);
      option.value = String(i);
      pick.appendChild(option);
    });
  }
  [pick, outcome, sort].forEach(function (control) { if (control) { control.addEventListener("change", apply); } });
  if (search) { search.addEventListener("input", apply); }

  // a criterion's name links to its failing rows; a disagreement or flip links to its row
  document.addEventListener("click", function (event) {
    var target = event.target;
    while (target && target !== document && !(target.dataset && (target.dataset.criterion !== undefined || target.dataset.row !== undefined))) {
      target = target.parentNode;
    }
    if (!target || target === document) { return; }
    if (target.dataset.criterion !== undefined) {
      if (pick) { pick.value = target.dataset.criterion; }
      if (outcome) { outcome.value = compare || pairwise ? "any" : "failing"; }
      if (search) { search.value = ""; }
    } else {
      var entry = entries[Number(target.dataset.row)];
      if (!entry) { return; }
      if (pick) { pick.value = "-1"; }
      if (outcome) { outcome.value = "any"; }
      if (search) { search.value = ""; }
      apply();
      toggle(entry, true);
      event.preventDefault();
      entry.tr.scrollIntoView();
      return;
    }
    apply();
  });

  apply();
  document.body.setAttribute("data-viewer", "ready");
})();
