// Code annotations: Material's markers are links whose number is drawn by CSS,
// so they have no text a screen reader could announce. Name them ("注释 1",
// "Annotation 1") as Material creates them.
(function () {
  var word = (document.documentElement.lang || "").indexOf("zh") === 0 ? "注释 " : "Annotation ";
  function name() {
    document.querySelectorAll("a.md-annotation__index:not([aria-label])").forEach(function (link) {
      var id = link.querySelector("[data-md-annotation-id]");
      link.setAttribute("aria-label", word + (id ? id.getAttribute("data-md-annotation-id") : ""));
    });
  }
  new MutationObserver(name).observe(document.body, { childList: true, subtree: true });
  name();
})();

// A link to an anchor that moved: the error reference was one page, and links
// to /reference/errors/#anchor still exist elsewhere. When the address names an
// anchor this page does not have, and the page links that anchor on another
// page (the hub links every entry), the reader is taken there.
(function () {
  var id = decodeURIComponent(location.hash.slice(1));
  if (!id || document.getElementById(id)) return;
  var link = document.querySelector('article a[href$="#' + CSS.escape(id) + '"]');
  if (link) location.replace(link.href);
})();
