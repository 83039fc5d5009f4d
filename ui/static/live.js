// heed's live crawl page: applies the view the server sends (server-sent
// events, or polling /api/live when a proxy breaks the stream). Text goes
// in with textContent; the charts are SVG the server rendered and escaped.
"use strict";
(function () {
  function fmtTime(s) {
    if (!s || s.startsWith("0001-")) return "—";
    var d = new Date(s);
    return d.toTimeString().slice(0, 8) + "." + String(d.getMilliseconds()).padStart(3, "0");
  }
  function cell(tr, text, cls) {
    var td = document.createElement("td");
    if (cls) td.className = cls;
    td.textContent = text;
    tr.appendChild(td);
    return td;
  }
  function fixed(x) { return (x || 0).toFixed(2) + " s"; }
  var last = {};
  function apply(v) {
    var state = v.running ? "running" : (v.finished ? "finished" : "not started");
    var set = { state: state, time: fmtTime(v.time), pages: v.pages, rate: v.rate.toFixed(1), queued: v.queued,
      in_flight: v.in_flight, items: v.items, errors: v.errors, skipped: v.skipped, duplicates: v.duplicates,
      authorities_total: v.authorities_total };
    document.querySelectorAll("[data-k]").forEach(function (el) {
      var k = el.getAttribute("data-k");
      if (k in set) el.textContent = String(set[k]);
    });
    var dot = document.querySelector(".live-dot");
    if (dot) dot.classList.toggle("off", !v.running);
    // Redraw only what changed: the crawl's machine may be this one.
    [["chart-rate", v.charts.rate], ["chart-skips", v.charts.skips], ["chart-timeline", v.charts.timeline]].forEach(function (c) {
      var el = document.getElementById(c[0]);
      if (el && last[c[0]] !== c[1]) { el.innerHTML = c[1]; last[c[0]] = c[1]; }
    });
    var rowsKey = JSON.stringify(v.authorities);
    if (last.rows === rowsKey) return;
    last.rows = rowsKey;
    var tbody = document.querySelector("#authorities tbody");
    if (!tbody) return;
    var rows = document.createDocumentFragment();
    (v.authorities || []).forEach(function (a) {
      var tr = document.createElement("tr");
      var code = document.createElement("code");
      code.textContent = a.authority;
      cell(tr, "").appendChild(code);
      cell(tr, a.robots ? a.robots + " (" + a.robots_status + ")" : "not fetched yet");
      cell(tr, a.crawl_delay_s ? fixed(a.crawl_delay_s) + (a.excluded ? " (over the cap: excluded)" : "") : "—", "num");
      cell(tr, fixed(a.interval_s), "num");
      cell(tr, String(a.requests), "num");
      cell(tr, String(a.queued), "num");
      cell(tr, String(a.skipped), "num");
      cell(tr, fmtTime(a.last_request));
      cell(tr, a.next_start ? fmtTime(a.next_start) : "now");
      cell(tr, a.paused_until ? "until " + fmtTime(a.paused_until) + (a.retry_after ? " (Retry-After)" : " (backoff)") : "—");
      rows.appendChild(tr);
    });
    tbody.replaceChildren(rows);
  }
  function poll() {
    fetch("/api/live", { cache: "no-store" }).then(function (r) { return r.json(); }).then(function (v) {
      apply(v);
      if (v.running || !v.finished) setTimeout(poll, 2000);
    }).catch(function () { setTimeout(poll, 5000); });
  }
  if (!window.EventSource) { poll(); return; }
  var es = new EventSource("/api/live/events");
  var got = false;
  es.addEventListener("view", function (e) { got = true; apply(JSON.parse(e.data)); });
  es.addEventListener("end", function () { es.close(); });
  es.onerror = function () {
    if (!got) { es.close(); poll(); }
  };
})();
