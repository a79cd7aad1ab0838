// The search box answers whatever puts text into it, and reads a pasted
// traceback the way a reader means it.
//
// 1. Material searches on "keyup", so a paste from the context menu, a long
//    press on a phone or an input method's commit (none of which fires a key
//    event) left the results empty until the reader pressed a key. Every
//    "input" event (and the end of a composition) is now followed by the keyup
//    Material listens to; Material ignores a query it has just answered, so a
//    real keyup after it costs nothing.
// 2. An <input> drops the line breaks of a paste, gluing the last word of one
//    line to the first of the next. A paste of several lines is read here
//    first (devguideSearchPaste): traceback frames ('File "…", line N, in f')
//    and the source line under each, caret lines and "Traceback (most recent
//    call last)" go; log prefixes ("[rank0]:[E321 02:07:08 …]", "W1110 … ]")
//    go; when lines name an error (RuntimeError: …, terminate called …, NCCL
//    error …), those lines and the lines that continue them are what is
//    searched, each distinct line once (ranks repeat it with other numbers).
//    The box shows what is searched. A kernel's "Assertion `…` failed" line,
//    the line that says what went wrong in a device-side assert, is kept
//    (once, without its file, block and thread) and searched first. A traceback
//    cut before its message is searched by its innermost frame: the function
//    and the line it raised in ("recvfds len(ancdata))").
//    A paste made before this file has loaded (it loads when the reader goes for
//    the box) is held by the page's loader (overrides/main.html) and put in here.
// 3. A result's link carries the words it matched (?h=…). Material marks them
//    on the page it opens only once the search index is loaded, and this site
//    loads the index when the reader goes for the search box, not with every
//    page: the words are marked here instead, in the section the result opened
//    (not the whole page), the words most messages share and one-letter words
//    left out, and the parameter is dropped from the address so that Material
//    does not mark them a second time. A result for another form of a message
//    (?v=) marks that form in the entry it opened.
(function () {
  "use strict";
  var BOX = "input.md-search__input";
  var FRAME = /^\s*File "[^"]*", line \d+/;
  var CARETS = /^\s*[\^~]+\s*$/;
  var TRACEBACK = /^\s*Traceback \(most recent call last\)|^\s*The above exception was the direct cause|^\s*During handling of the above exception/;
  var ERROR_LINE = /(?:^|[\]:\s])(?:[A-Za-z_][\w.]*(?:Error|Exception|Warning|Failure|CompilerFailed)\b|terminate called|what\(\):|CUDA error|NCCL error|cuDNN error|Watchdog caught|ERROR:|[Ee]rror:)/;
  // "[80746] [rank0]:[E321 02:07:08.408 ProcessGroupNCCL.cpp:607] ", "W1110 17:56:13.321 77473 torch/x.py:1550] [0/8] "
  var LOG_PREFIX = /^\s*(?:\[\d+\]\s*)?(?:\[(?:rank|Rank|RANK)\s*\d+\]:?\s*)?(?:\[?[EWIF]\d{3,4} [\d:.]+ [^\]]*\]\s*)?(?:\[\d+\/\d+\]\s*)?/;
  // "…/NLLLoss2d.cu:103: nll_loss2d_forward_kernel: block: [5,0,0], thread: [996,0,0] Assertion `t >= 0 && t < n_classes` failed."
  var ASSERTION = /Assertion\s+`[^`]*`\s+failed\.?/;
  var LIMIT = 1000;

  function paste(text) {
    var lines = text.split(/\r?\n/);
    if (lines.length < 2) return text;
    var kept = [], asserts = [], underFrame = false, last = "";
    lines.forEach(function (line) {
      if (FRAME.test(line)) { underFrame = true; last = (line.match(/, in (\S+)\s*$/) || ["", ""])[1]; return; }
      if (underFrame && /^\s+\S/.test(line) && !ERROR_LINE.test(line)) {
        last += " " + line.replace(/\s+#.*$/, "").trim();
        underFrame = false;
        return;
      }
      underFrame = false;
      if (TRACEBACK.test(line) || CARETS.test(line) || !line.trim()) return;
      var assertion = line.match(ASSERTION);
      if (assertion && !ERROR_LINE.test(line)) {
        if (asserts.indexOf(assertion[0]) < 0) asserts.push(assertion[0]);
        return;
      }
      kept.push(line.replace(LOG_PREFIX, "").trim());
    });
    var errors = asserts.slice(), seen = new Set(), inError = false;
    kept.forEach(function (line) {
      if (ERROR_LINE.test(line)) inError = true;
      else if (!inError) return;
      var key = line.replace(/\d+/g, "#");
      if (!seen.has(key)) { seen.add(key); errors.push(line); }
    });
    var out = (errors.length > asserts.length ? errors : asserts.concat(kept)).join(" ");
    // a traceback cut before its message: the innermost frame's function and line, where it raised
    if (!out.trim()) out = last.trim();
    return out.length > LIMIT ? out.slice(0, LIMIT) : out;
  }
  window.devguideSearchPaste = paste;

  var composing = false;
  function search(box) {
    box.dispatchEvent(new KeyboardEvent("keyup", { bubbles: true }));
  }
  function isBox(target) {
    return target && target.matches && target.matches(BOX);
  }
  function insert(box, text) {
    box.setRangeText(paste(text), box.selectionStart || 0, box.selectionEnd || 0, "end");
    box.dispatchEvent(new Event("input", { bubbles: true }));
  }
  document.addEventListener("paste", function (ev) {
    if (!isBox(ev.target) || !ev.clipboardData) return;
    var text = ev.clipboardData.getData("text/plain");
    if (!/[\r\n]/.test(text)) return;  // one line: the browser pastes it, "input" searches
    ev.preventDefault();
    insert(ev.target, text);
  }, true);
  document.addEventListener("compositionstart", function (ev) {
    if (isBox(ev.target)) composing = true;
  }, true);
  document.addEventListener("compositionend", function (ev) {
    if (!isBox(ev.target)) return;
    composing = false;
    search(ev.target);
  }, true);
  document.addEventListener("input", function (ev) {
    if (!composing && isBox(ev.target)) search(ev.target);
  }, true);
  // a paste the page's loader held while this file loaded: put in once the "input"
  // listener above is there to search it (before it, the paste was searched only when
  // the index arrived after it; with the index there first, never)
  var held = window.devguideSearchHeld;
  window.devguideSearchHeld = null;
  if (held && document.contains(held.box)) insert(held.box, held.text);

  // Escape closes the search (Material) and blurs the box, which left the focus on
  // <body>: Tab then started again at the top of the page. The focus goes back to
  // what had it before the search (the page's loader notes it), else to the
  // page's title (review 2026-12-06, problem 18).
  document.addEventListener("keydown", function (ev) {
    if (ev.key !== "Escape" || !ev.target.closest || !ev.target.closest(".md-search")) return;
    setTimeout(function () {
      var now = document.activeElement;  // the box, or a result the arrow keys reached, now hidden
      if (now && now !== document.body && !(now.closest && now.closest(".md-search"))) return;
      var back = window.devguideSearchFrom;
      if (!back || !document.contains(back) || back.closest(".md-search") || !back.getClientRects().length) {
        back = document.querySelector("article.md-content__inner h1");
        if (back) back.setAttribute("tabindex", "-1");
      }
      if (back) back.focus({ preventScroll: true });
    }, 0);
  }, true);

  // The worker answers the same query a second time when the rest of the index
  // arrives (search-worker.js): Material draws the list again, and a result the
  // arrow keys had reached was removed with the focus on it, which fell to
  // <body> (the next ArrowDown then did nothing). The focus goes back to the
  // same result (same address), else to the one at the same place.
  var reached = null;
  function resultLinks() {
    return Array.prototype.slice.call(document.querySelectorAll(".md-search-result__list .md-search-result__link"));
  }
  document.addEventListener("focusin", function (ev) {
    var link = ev.target.closest && ev.target.closest(".md-search-result__link");
    reached = link ? { href: link.getAttribute("href"), index: resultLinks().indexOf(link) } : null;
  }, true);
  var list = document.querySelector(".md-search-result__list");
  if (list) new MutationObserver(function () {
    var now = document.activeElement;
    var open = document.querySelector("input[data-md-toggle=search]");
    if (!reached || (now && now !== document.body) || !(open && open.checked)) return;
    var links = resultLinks();
    var again = links.filter(function (a) { return a.getAttribute("href") === reached.href; })[0] ||
      links[Math.min(reached.index, links.length - 1)];
    if (again && again.getClientRects().length) again.focus({ preventScroll: true });
  }).observe(list, { childList: true, subtree: true });

  // Words a pasted error shares with most messages: marked, they drowned the
  // section in yellow (review 2026-12-06, problem 5)
  var GENERIC = new Set(("cuda error errors out see free total gpu gpus pytorch torch runtimeerror " +
    "tried allocate allocated reserved capacity already but got found least two the and for with " +
    "expected message warning").split(" "));

  // The part of the article the result opened: its heading (the address's #anchor)
  // and what follows up to the next heading of the same or a higher level; the
  // whole article for a page-level result.
  function section(article, id) {
    var heading = id && document.getElementById(id);
    if (!heading || !/^H[1-6]$/.test(heading.tagName) || !article.contains(heading)) return [article];
    var level = +heading.tagName[1], parts = [heading];
    for (var el = heading.nextElementSibling; el; el = el.nextElementSibling) {
      if (/^H[1-6]$/.test(el.tagName) && +el.tagName[1] <= level) break;
      parts.push(el);
    }
    return parts;
  }

  // Whether a word is in most of the page's entries (its level-2 sections): then
  // it says nothing about the one the result opened
  function common(article, word) {
    var parts = [], text = "";
    Array.prototype.forEach.call(article.children, function (el) {
      if (el.tagName === "H2") { parts.push(text); text = ""; }
      text += " " + el.textContent.toLowerCase();
    });
    parts.push(text);
    if (parts.length < 5) return false;
    var pattern = new RegExp("\\b" + word.replace(/[.*+?^${}()|[\]\\]/g, "\\$&") + "\\b");
    return parts.filter(function (p) { return pattern.test(p); }).length > parts.length / 2;
  }

  function highlight() {
    var url = new URL(location.href);
    var article = document.querySelector("article.md-content__inner");
    var variant = url.searchParams.get("v");
    url.searchParams.delete("v");
    if (variant && article) markVariant(article, variant);
    var all = (url.searchParams.get("h") || "").split(/\s+/).filter(function (w) {
      return w.length > 1 && !GENERIC.has(w.toLowerCase()) && (w.length > 2 || /[\u3400-\u9fff]/.test(w));
    });
    var words = all.filter(function (w) { return !article || !common(article, w.toLowerCase()); });
    if (!words.length) words = all;
    url.searchParams.delete("h");
    history.replaceState(history.state, "", url.pathname + url.search + url.hash);
    if (!words.length || !article) return;
    words.sort(function (a, b) { return b.length - a.length; });
    var pattern = new RegExp("(" + words.map(function (w) {
      var escaped = w.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
      return /^\w/.test(w) ? "\\b" + escaped + "\\b" : escaped;  // English words whole; Chinese anywhere
    }).join("|") + ")", "gi");
    var nodes = [];
    section(article, decodeURIComponent(location.hash.slice(1))).forEach(function (root) {
      var walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT, {
        acceptNode: function (node) {
          return node.parentElement.closest("script, style, mark, .md-clipboard, .headerlink, .devguide-variant-note")
            ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT;
        }
      });
      for (var node = walker.nextNode(); node; node = walker.nextNode()) {
        pattern.lastIndex = 0;
        if (pattern.test(node.nodeValue)) nodes.push(node);
      }
    });
    nodes.forEach(function (node) {
      var fragment = document.createDocumentFragment(), text = node.nodeValue, last = 0;
      text.replace(pattern, function (match, word, at) {
        fragment.appendChild(document.createTextNode(text.slice(last, at)));
        var mark = document.createElement("mark");
        mark.setAttribute("data-md-highlight", "");
        mark.textContent = match;
        fragment.appendChild(mark);
        last = at + match.length;
      });
      fragment.appendChild(document.createTextNode(text.slice(last)));
      node.parentNode.replaceChild(fragment, node);
    });
  }

  // A result for one of the other forms of a message opens the entry (the
  // message, its cause, its fix) with ?v=<the form's anchor> (search-worker.js):
  // the form's heading, at the entry's end, is outlined where it stands, and a
  // line under the entry's title says that the pasted form is one of them and
  // links down to it.
  function markVariant(article, id) {
    var heading = document.getElementById(id);
    var entry = document.getElementById(decodeURIComponent(location.hash.slice(1)));
    if (!heading || !article.contains(heading)) return;
    heading.classList.add("devguide-variant");
    heading.style.outline = "2px solid var(--md-accent-fg-color)";
    heading.style.outlineOffset = "0.3em";
    heading.style.borderRadius = "0.1rem";
    if (!entry || entry === heading) return;
    var zh = (document.documentElement.lang || "").indexOf("zh") === 0;
    var note = document.createElement("p");
    note.className = "devguide-variant-note";
    note.setAttribute("role", "note");
    var link = document.createElement("a");
    link.href = "#" + id;
    link.textContent = heading.textContent.replace(/[¶#]\s*$/, "").trim();
    note.appendChild(document.createTextNode(zh ? "你搜索的是这条信息的另一种形式，列在本条末尾：" : "What you searched for is another form of this message, listed at the end of this entry: "));
    note.appendChild(link);
    entry.parentNode.insertBefore(note, entry.nextSibling);
  }

  highlight();
})();

// A pasted message that no page quotes opens its family's page with
// ?undocumented=<the message>[&torch=<version>] (search-worker.js, FAMILIES):
// the page then says, above its title, that this exact message is not
// documented yet, and offers a report with the message as its title, this
// page and the torch version (when the paste named one) filled in.
(function () {
  "use strict";
  var url = new URL(location.href);
  var message = url.searchParams.get("undocumented");
  var article = document.querySelector("article.md-content__inner");
  if (!message || !article) return;
  var zh = (document.documentElement.lang || "").indexOf("zh") === 0;
  var torch = url.searchParams.get("torch");
  var page = url.origin + url.pathname;
  var words = zh ? {
    title: "这条报错原文尚未收录",
    lead: "站内还没有页面收录这条报错的原文。本页讲解它所属的这一类报错，以及其原因与解决办法：",
    report: "反馈这条报错（已预填报错原文、本页地址" + (torch ? "和 torch 版本" : "") + "）",
    body: "### 粘贴的报错\n\n```\n{message}\n```\n\n搜索打开的页面：{page}\ntorch 版本：{torch}\n\n### 出现的场景\n\n（当时在做什么；所用设备、操作系统）\n",
    unknown: "粘贴内容中未注明"
  } : {
    title: "This exact message is not documented yet",
    lead: "No page quotes this message yet. This page explains the family it belongs to, its causes and fixes:",
    report: "Report this message (the message, this page" + (torch ? " and the torch version" : "") + " filled in)",
    body: "### The pasted message\n\n```\n{message}\n```\n\nThe search opened: {page}\ntorch version: {torch}\n\n### When it happens\n\n(what you were doing; device, OS)\n",
    unknown: "not in the paste"
  };
  var existing = document.querySelector('a[href*="/issues/new"]');
  var repo = existing ? existing.href.split("/issues/new")[0] : null;
  var box = document.createElement("div");
  box.className = "admonition warning devguide-undocumented";
  box.setAttribute("role", "note");
  var title = document.createElement("p");
  title.className = "admonition-title";
  title.textContent = words.title;
  var lead = document.createElement("p");
  lead.textContent = words.lead;
  var quote = document.createElement("pre");
  var code = document.createElement("code");
  code.textContent = message;
  quote.appendChild(code);
  box.appendChild(title);
  box.appendChild(lead);
  box.appendChild(quote);
  if (repo) {
    var link = document.createElement("a");
    var body = words.body.replace("{message}", message).replace("{page}", page).replace("{torch}", torch || words.unknown);
    link.href = repo + "/issues/new?title=" + encodeURIComponent(message.slice(0, 200)) + "&body=" + encodeURIComponent(body);
    link.textContent = words.report;
    link.className = "devguide-undocumented__report";
    var p = document.createElement("p");
    p.appendChild(link);
    box.appendChild(p);
  }
  article.insertBefore(box, article.firstChild);
})();
