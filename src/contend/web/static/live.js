// Live updates of a run page: the server says when the run's ledger grew (server-sent
// events); the live part of the page is fetched again and swapped in. A decision being
// written (a note typed, a choice made) is never thrown away: the page then only says
// that the ledger changed. Without JavaScript the page works, minus the live part.
(function () {
  "use strict";
  function start() {
    var root = document.getElementById("live");
    if (!root || !window.EventSource) { return; }
    var stale = document.getElementById("stale");
    function busy() {
      var notes = root.querySelectorAll("textarea");
      for (var i = 0; i < notes.length; i++) {
        if (notes[i].value.trim() !== "" || document.activeElement === notes[i]) { return true; }
      }
      return root.querySelector("input[type=radio]:checked") !== null;
    }
    function refresh() {
      if (busy()) { if (stale) { stale.hidden = false; } return; }
      fetch(root.getAttribute("data-fragment"), { credentials: "same-origin" })
        .then(function (response) { return response.ok ? response.text() : null; })
        .then(function (html) {
          if (html !== null && !busy()) { root.innerHTML = html; root.setAttribute("data-updated", String(Date.now())); }
        });
    }
    var source = new EventSource(root.getAttribute("data-live"));
    source.addEventListener("change", refresh);
    root.setAttribute("data-live-connected", "1");
  }
  if (document.readyState === "loading") { document.addEventListener("DOMContentLoaded", start); } else { start(); }
})();
