(function () {
  "use strict";
  var tl = document.querySelector(".tl");
  var scroller = document.querySelector(".tl-scroll");
  var status = document.querySelector(".zoom");
  var zoom = 1;

  function setZoom(z) {
    // Keep the middle of what is in view in the middle.
    var mid = (scroller.scrollLeft + scroller.clientWidth / 2) / scroller.scrollWidth;
    zoom = z;
    tl.style.width = "calc(" + zoom * 100 + "% - 3rem)";
    scroller.scrollLeft = mid * scroller.scrollWidth - scroller.clientWidth / 2;
    status.textContent = zoom === 1 ? "" : "zoom ×" + zoom;
  }

  // Open every details element around the target of the address's
  // fragment, so that a link into a collapsed message shows it.
  function reveal() {
    var id = decodeURIComponent(location.hash.slice(1));
    var el = id && document.getElementById(id);
    if (!el) {
      return;
    }
    for (var d = el; d; d = d.parentElement) {
      if (d.tagName === "DETAILS") {
        d.open = true;
      }
    }
    el.scrollIntoView({ block: "start" });
  }

  document.addEventListener("click", function (e) {
    var b = e.target.closest("button");
    if (!b) {
      return;
    }
    var z = b.getAttribute("data-zoom");
    if (z && tl) {
      setZoom(z === "in" ? Math.min(zoom * 2, 512) : z === "out" ? Math.max(zoom / 2, 1) : 1);
    }
    var x = b.getAttribute("data-expand");
    if (x) {
      var all = document.querySelectorAll("#messages details");
      for (var i = 0; i < all.length; i++) {
        all[i].open = x === "all";
      }
    }
  });
  window.addEventListener("hashchange", reveal);
  reveal();
})();
