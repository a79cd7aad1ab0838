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

// Copying code: Material copies a block's text without its annotation markers
// ("# (1)!"), but keeps the spaces that stood before them, so copied lines end
// in spaces. Material copies the text of the closest [data-copy] when there is
// one: just before its copy button acts, give the block that text, each line's
// trailing spaces dropped. A selection copied from a block (Ctrl+C) gets the same.
(function () {
  function clean(text) { return text.replace(/[ \t]+$/gm, ""); }
  document.addEventListener("click", function (event) {
    var button = event.target.closest && event.target.closest("[data-clipboard-target]");
    if (!button) return;
    var code = document.querySelector(button.getAttribute("data-clipboard-target"));
    if (!code) return;
    code.removeAttribute("data-copy");
    code.setAttribute("data-md-copying", "");  // what Material hides while it copies
    var text = code.innerText;
    code.removeAttribute("data-md-copying");
    code.setAttribute("data-copy", clean(text));
  }, true);
  document.addEventListener("copy", function (event) {
    var selection = document.getSelection();
    if (!selection || selection.isCollapsed || !event.clipboardData) return;
    var node = selection.anchorNode;
    var element = node && (node.nodeType === 1 ? node : node.parentElement);
    if (!element || !element.closest("pre code")) return;
    event.clipboardData.setData("text/plain", clean(selection.toString()));
    event.preventDefault();
  });
})();
