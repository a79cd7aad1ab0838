// Why a request rewrite and not a setting: Material builds the index URL from its
// "base" (the site root), and static-i18n builds every language into one site with
// one base. Moving English pages' base to /en/ would break the version selector and
// the result links; the index is chosen here instead, for search-index requests only.
// Search index, loaded per language and only when the reader wants to search;
// sitemaps from the language roots.
// 1. One index per language (devguide/mkdocs_plugin/hooks/search_per_language.py): pages in a language
//    other than the default (zh) load /<lang>/search/search_index.json.
// 2. The index (≈400 kB, ≈125 kB gzip) is most of a page's weight, so Material's request for
//    it is held until the reader shows intent: pointer over or focus on the
//    search box, the search toggle (also opened by the s, f and / keys), or a
//    ?q= link. Typing then waits only for a local or cached file.
// Material requests the index with XMLHttpRequest from "<base>/search/".
(function () {
  var lang = (document.documentElement.lang || "").split("-")[0];  // zh-Hans → zh
  var own = lang && lang !== "zh" ? "/" + lang + "/search/search_index.json" : null;
  var index = /\/search\/search_index\.json$/;
  var wanted = /[?&]q=/.test(location.search);
  var held = [];
  function release() {
    wanted = true;
    held.splice(0).forEach(function (send) { send(); });
  }
  function intent(event) {
    var target = event.target;
    if (target && target.closest && target.closest(".md-search, [for=__search], #__search")) release();
  }
  ["pointerover", "focusin", "change", "click"].forEach(function (type) {
    document.addEventListener(type, intent, true);
  });
  var open = XMLHttpRequest.prototype.open;
  var send = XMLHttpRequest.prototype.send;
  XMLHttpRequest.prototype.open = function (method, url) {
    var args = Array.prototype.slice.call(arguments);
    var href = new URL(String(url), location.href).href;
    this.searchIndex = index.test(href);
    // 3. Material reads sitemap.xml beside each <link rel=alternate>. Ours point
    //    at the page's translation, not a language root: use that root's sitemap.
    var root = String(window.__md_scope || "");
    if (/\/sitemap\.xml$/.test(href) && root && href.indexOf(root) === 0) {
      var first = href.slice(root.length).split("/")[0];
      var langs = Array.prototype.map.call(
        document.querySelectorAll("link[rel=alternate][hreflang]"),
        function (link) { return link.getAttribute("hreflang"); });
      args[1] = root + (first && langs.indexOf(first) >= 0 && first !== "zh" ? first + "/" : "") + "sitemap.xml";
    }
    if (this.searchIndex && own && href.slice(-own.length) !== own) {
      args[1] = href.replace(index, own);
    }
    return open.apply(this, args);
  };
  XMLHttpRequest.prototype.send = function () {
    var xhr = this, args = arguments;
    if (!xhr.searchIndex || wanted) return send.apply(xhr, args);
    held.push(function () { send.apply(xhr, args); });
  };
})();
