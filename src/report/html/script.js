// Marks every clause of the SQL (and the finding) that belongs to the finding pointed at: the
// one in the address (#f3) or the one under the pointer.
(function () {
  "use strict";
  function select(group, on) {
    var marked = document.querySelectorAll("[data-f]");
    for (var i = 0; i < marked.length; i++) {
      var groups = marked[i].getAttribute("data-f").split(" ");
      marked[i].classList.toggle(on, group !== "" && groups.indexOf(group) >= 0);
    }
  }
  function fromAddress() {
    var id = decodeURIComponent(window.location.hash.slice(1)).replace(/-(old|new|at)$/, "");
    select(id, "active");
  }
  window.addEventListener("hashchange", fromAddress);
  fromAddress();
  var findings = document.querySelectorAll("li[data-f]");
  for (var i = 0; i < findings.length; i++) {
    findings[i].addEventListener("mouseenter", function (e) {
      select(e.currentTarget.getAttribute("data-f"), "hover");
    });
    findings[i].addEventListener("mouseleave", function () {
      select("", "hover");
    });
  }
})();
