// The review queue's keyboard (docs/ui.md): j / k move between memories, v verifies, e edits,
// d deletes the focused one. Every action is also a plain button or link, so the page works
// without this script; it only saves reaching for the mouse. Loaded as a file (no inline
// script: the Content-Security-Policy allows only this server's files).
(function () {
  "use strict";

  var ACTIONS = { v: "verify", e: "edit", d: "delete" };

  function cards() {
    return Array.prototype.slice.call(document.querySelectorAll("[data-review-queue] [data-memory]"));
  }

  function focused() {
    var active = document.activeElement;
    return active && active.closest ? active.closest("[data-memory]") : null;
  }

  function move(step) {
    var all = cards();
    if (all.length === 0) return;
    var index = all.indexOf(focused());
    var next = index < 0 ? 0 : Math.min(all.length - 1, Math.max(0, index + step));
    all[next].focus();
    all[next].scrollIntoView({ block: "nearest" });
  }

  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    var target = event.target;
    if (target && /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName)) return;
    var key = event.key;
    if (key === "j") { move(1); event.preventDefault(); return; }
    if (key === "k") { move(-1); event.preventDefault(); return; }
    var action = ACTIONS[key];
    var card = focused();
    if (!action || !card) return;
    var control = card.querySelector('[data-action="' + action + '"]');
    if (control) { control.click(); event.preventDefault(); }
  });

  document.addEventListener("DOMContentLoaded", function () {
    var first = cards()[0];
    if (first && !focused()) first.focus();
  });
})();
