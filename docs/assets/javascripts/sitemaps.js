// Sitemaps only when the reader goes for the language selector.
// Material reads sitemap.xml under each language root as soon as a page loads
// (≈25 kB each, two per page), to resolve the language switcher's links; our
// language-switcher.js resolves those clicks itself. The requests are held until
// the pointer or the focus reaches the selector, so a page's first load does not
// carry them. Loaded before Material's bundle, like search-index.js.
(function () {
  var sitemap = /\/sitemap\.xml$/;
  var wanted = false;
  var held = [];
  function intent(event) {
    var target = event.target;
    if (wanted || !target || !target.closest || !target.closest(".md-select, [hreflang]")) return;
    wanted = true;
    held.splice(0).forEach(function (send) { send(); });
  }
  ["pointerover", "focusin"].forEach(function (type) {
    document.addEventListener(type, intent, true);
  });
  var open = XMLHttpRequest.prototype.open;
  var send = XMLHttpRequest.prototype.send;
  XMLHttpRequest.prototype.open = function (method, url) {
    this.sitemap = sitemap.test(new URL(String(url), location.href).pathname);
    return open.apply(this, arguments);
  };
  XMLHttpRequest.prototype.send = function () {
    var xhr = this, args = arguments;
    // from a folder (file://) they fail (CORS) and are not needed: never sent
    if (!xhr.sitemap || wanted && location.protocol !== "file:") return send.apply(xhr, args);
    held.push(function () { send.apply(xhr, args); });
  };
})();
