// The language switcher links to the same page in the other language
// (mkdocs-static-i18n). Headings carry the same anchor in both languages
// (tests/test_parity.py), so take the reader's place along: the #anchor, or
// when the address has none (the reader scrolled), the last heading above the
// top of the screen.
// Capture phase on document: runs before Material's own alternate-language
// handler on <body>, which would otherwise re-resolve the link via sitemaps.
document.addEventListener("click", function (event) {
  var link = event.target.closest && event.target.closest("a[hreflang]");
  if (!link || event.metaKey || event.ctrlKey || event.shiftKey) return;
  var target = new URL(link.getAttribute("href"), location.href), hash = location.hash;
  if (!hash && scrollY > 0) document.querySelectorAll("article :is(h2,h3,h4)[id]").forEach(function (h) {
    if (h.getBoundingClientRect().top < 100) hash = "#" + h.id;
  });
  target.hash = hash;
  event.preventDefault();
  event.stopPropagation();
  location.assign(target.href);
}, true);
