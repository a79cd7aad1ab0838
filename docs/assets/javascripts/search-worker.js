// The site's search worker. It replaces Material's lunr worker and speaks the
// same messages (SETUP → READY, QUERY → RESULT), so Material's search box and
// result list are unchanged; devguide/mkdocs_plugin/hooks/search_per_language.py points every page
// at this file.
//
// Why not lunr: readers type questions ("怎么把模型放到GPU上"), API names
// ("torch.cuda.synchronize", "set_to_none") and pasted error messages with
// their own numbers, paths and quotes. Each query word is matched on its own
// terms here:
//   - Chinese is segmented like the index: the build cuts page text with jieba
//     (Material's search plugin, words joined by U+200B); a Chinese run of the
//     query is cut by a jieba-style dynamic programme over the index's own
//     words and their counts, with Intl.Segmenter's words as alternatives, and
//     split from Latin text ("放到GPU上" → 放到, gpu, 上).
//   - Stop words (English and Chinese) are dropped from the query, unless
//     nothing else is left.
//   - No wildcard on finished words: only the word being typed (the last one,
//     three letters or more) also matches longer words, and a word the index
//     does not have matches its spelling neighbours (one or two edits).
//   - A dotted, underscored or camel-case name is a term of its own
//     (torch.cuda.synchronize, cuda.synchronize) before its parts (torch,
//     cuda, synchronize); pasted quotes are not syntax; numbers, sizes, pids
//     and shapes are dropped; words the index does not know are left out of
//     the query rather than turning it into zero results.
//   - Sections are ranked with BM25 over title, text and code names, scaled by
//     how much of the query (weighted by rarity) each one covers; pages by
//     their best sections.
(function () {
  "use strict";

  var SETUP = 0, READY = 1, QUERY = 2, RESULT = 3;
  var EXPLAIN = 100, EXPLAINED = 101;  // not Material's: how a query is read (make bench)
  var COMPLETE = 102;  // not Material's: the rest of the index is in (see loadRest)

  // ------------------------------------------------------------------ words

  // Chinese characters (the index keeps jieba's words apart with spaces)
  var HAN = /[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]/;
  // a Han run, or a Latin word with its inner joiners (torch.cuda.synchronize,
  // set_to_none, device-side, float16)
  var WORD = /([\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+)|([A-Za-z0-9_\u00C0-\u024F]+(?:[.\-][A-Za-z0-9_\u00C0-\u024F]+)*)/g;
  // spaces between Chinese characters or punctuation (jieba's word breaks) are not shown
  var CJK_GAP = /([\u2018-\u201f\u2026\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef](?:<\/mark>)?) +(?=(?:<mark>)?[\u2018-\u201f\u2026\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef])/g;
  var NUMBERISH = /^(?:\d+(?:[._]\d+)*|0x[0-9a-f]+|\d+(?:x\d+)+|\d+[a-z]{1,3})$/;  // 20.00, 0x7f, 32x2048, 12gb

  var STOP_EN = new Set((
    "a an and are as at be been being but by can could did do does doing for from had has have how " +
    "i if in into is it its me my of on or our should so than that the their them then there these " +
    "they this those to too use used using via vs was we were what when where which while who why " +
    "will with would you your get got getting want need way ways make made does don doesn isn " +
    "after before about also just only any some such not no yes please help " +
    // the filler of real questions (tests/site/real_questions_en.toml)
    "hi hello thanks thank question questions wondering wonder know anyone someone anybody really " +
    "actually possible able am maybe seem seems currently still kind sort"
  ).split(" "));
  var STOP_ZH = new Set((
    "的 了 吗 呢 吧 啊 呀 么 嘛 是 在 我 你 他 她 它 我们 你们 把 被 和 与 及 或 就 都 也 还 又 要 " +
    "会 能 可以 可 怎么 怎样 怎么样 怎么办 如何 什么 为什么 为何 哪 哪个 哪些 有 有没有 一个 这 那 这个 " +
    "那个 这样 那样 之 后 以后 之后 时 时候 上 下 中 里 到 给 让 用 使用 对 从 做 得 地 着 过 " +
    "请问 求 求助 问题 方法 一下 下 一些 是否 不 没 每个 每 个 所有 以上 " +
    // the filler of real questions (tests/site/real_questions_zh.toml): words that ask, not what is asked about
    "到底 究竟 具体 一直 总是 老是 请教 大佬 各位 作者 您好 你好 谢谢 感谢 想问 想 问 请 知道 发现 感觉 " +
    "觉得 好像 似乎 应该 这种 那种 但是 但 而且 然后 所以 因为 如果 的话 啥 咋 咋办 怎么回事 会不会 " +
    "能不能 可不可以 是不是 已经 就是 非常 很 太 比较 自己 目前 现在 当前 手上 这边 大家 " +
    "关于 进行 遇到 还是"
  ).split(" "));

  // Readers' words for the site's words (and back): a query word also matches
  // these, a little less strongly. Only true synonyms: the same thing named
  // two ways.
  var SYNONYMS = {
    "放到": ["搬到", "移到", "搬运", "搬"], "放在": ["搬到", "放到", "搬运"], "移到": ["搬到", "放到", "搬运"],
    "转到": ["搬到", "搬运"], "挪到": ["搬到", "搬运"], "搬到": ["放到", "移到"], "显卡": ["gpu"], "双卡": ["多卡"],
    "fp16": ["float16"], "float16": ["fp16"], "half": ["float16"], "半精度": ["float16"],
    "fp32": ["float32"], "bf16": ["bfloat16"], "bfloat16": ["bf16"], "fp64": ["float64"],
    "mac": ["mps"], "m1": ["mps"], "m2": ["mps"], "苹果": ["mps", "apple"], "apple": ["mps"],
    "爆显存": ["显存"],
    // a GPU is a 卡 to Chinese readers: 多GPU is 多卡, 单GPU 单卡
    "多gpu": ["多卡"], "单gpu": ["单卡"], "多显卡": ["多卡"],
    // resuming training from a checkpoint
    "断点续训": ["恢复训练"], "续训": ["恢复训练"],
    // the validation pass of a training loop is an evaluation
    "val": ["eval", "评估"],
    // readers' English for the pages' words: "multiple GPUs" are the pages' "several GPUs"; memory
    // is "released", "cleared" or a model "deinitialized" where the pages free it
    "multiple": ["several"], "several": ["multiple"], "release": ["free"], "clear": ["free"], "deinitialize": ["free"]
  };

  var synonymMap = new Map();  // a reader's word or phrase (as query terms) → the site's words
  var expanded = new Map();

  // A word or phrase → its terms as the query side makes them
  function keyOf(phrase) {
    var out = [];
    WORD.lastIndex = 0;
    var m, words = [];
    while ((m = WORD.exec(phrase.normalize("NFKC")))) words.push(m);
    words.forEach(function (m) {
      if (m[1]) { out.push(m[1]); return; }
      var a = analyse(m[2]);
      out.push(a.whole || a.parts[0]);
    });
    return out.join(" ");
  }

  function setSynonyms(extra) {
    synonymMap = new Map();
    expanded = new Map();
    [SYNONYMS, extra || {}].forEach(function (table) {
      Object.keys(table).forEach(function (key) {
        var k = keyOf(key);
        if (!synonymMap.has(k)) synonymMap.set(k, []);
        table[key].forEach(function (v) { if (synonymMap.get(k).indexOf(v) < 0) synonymMap.get(k).push(v); });
      });
    });
  }

  // The site's words for a reader's word: [[term, …], …] (one list per synonym;
  // a Chinese synonym is cut into the index's words like a query is)
  function synonyms(key) {
    if (expanded.has(key)) return expanded.get(key);
    var out = [];
    (synonymMap.get(key) || []).forEach(function (value) {
      var terms = [];
      WORD.lastIndex = 0;
      var m, words = [];
      while ((m = WORD.exec(value.normalize("NFKC")))) words.push(m);
      words.forEach(function (m) {
        if (m[1]) {
          cutHan(m[1]).forEach(function (w) { if (!STOP_ZH.has(w.word)) terms.push(w.word); });
        } else {
          var a = analyse(m[2]);
          terms.push(a.whole || a.parts[0]);
        }
      });
      terms = terms.filter(function (t) { return postings.has(t); });
      if (terms.length) out.push(terms);
    });
    expanded.set(key, out);
    return out;
  }

  // Adds a word's synonyms to its group: one term as an alternative, several as a phrase
  function addSynonyms(group, key) {
    synonyms(key).forEach(function (terms) {
      if (terms.length === 1) group.alts.push({ t: terms[0], w: 0.7 });
      else group.phrases.push(terms);
    });
  }

  // Words that frame a question more than they name its subject: kept, weakly
  var WEAK = new Set((
    "作用 用法 意思 含义 区别 原理 办法 解决 多少 设置 报错 出现 正确 difference work problem issue " +
    "correct correctly right best proper properly wrong " +
    // the English for the Chinese ones above (作用 用法 意思 原理 解决 出现 设置), and bug as issue
    "purpose usage meaning explain explanation principle solve fix resolve occur happen happens " +
    "setting settings bug bugs"
  ).split(" "));


  function lowerLetters(w) {
    for (var i = 0; i < w.length; i++) {
      var c = w.charCodeAt(i);
      if (c < 97 || c > 122) return false;
    }
    return true;
  }

  // A light English stemmer, the same for pages and queries: tensors → tensor,
  // loading/loaded/loader → load, synchronize(d) → synchroniz, pinned → pin
  function stem(w) {
    if (w.length < 4 || !lowerLetters(w)) return w;
    var cut = false, n;
    if (w.length > 4 && w.endsWith("ies")) return w.slice(0, -3) + "y";
    if (w.endsWith("es") && (w.endsWith("sses") || w.endsWith("xes") || w.endsWith("zes") ||
        w.endsWith("ches") || w.endsWith("shes"))) w = w.slice(0, -2);
    else if (w.endsWith("s") && !w.endsWith("ss") && !w.endsWith("us") && !w.endsWith("is")) w = w.slice(0, -1);
    // the noun and the verb alike: synchronization → synchroniz(e), evaluation → evaluat(e)
    if (w.length > 8 && (w.endsWith("ization") || w.endsWith("isation"))) return w.slice(0, -5);
    if (w.length > 7 && w.endsWith("ation")) return w.slice(0, -3);
    if (w.length > 5 && w.endsWith("ing")) { w = w.slice(0, -3); cut = true; }
    else if (w.length > 4 && w.endsWith("ed")) { w = w.slice(0, -2); cut = true; }
    else if (w.length > 5 && w.endsWith("er")) w = w.slice(0, -2);
    n = w.length;
    if (cut && n > 1 && w[n - 1] === w[n - 2] && "bdgkmnprt".indexOf(w[n - 1]) >= 0) w = w.slice(0, -1);
    if (w.length > 4 && w.endsWith("e")) w = w.slice(0, -1);
    return w;
  }

  // A Latin word → {whole, suffixes, parts}; whole is null for a plain word.
  var analysed = new Map();
  function analyse(word) {
    var a = analysed.get(word);
    if (!a) analysed.set(word, a = analyseWord(word));
    return a;
  }

  function upper(c) { return c >= 65 && c <= 90; }
  function lowerOrDigit(c) { return c >= 97 && c <= 122 || c >= 48 && c <= 57; }

  // set_to_none → set, to, none; torch.cuda → torch, cuda; DataLoader → data,
  // loader; BCEWithLogitsLoss → bce, with, logits, loss (lower case)
  function splitWord(word) {
    var pieces = [], start = 0, n = word.length;
    for (var i = 0; i <= n; i++) {
      var c = i < n ? word.charCodeAt(i) : 46;
      if (c === 46 || c === 95 || c === 45) {  // . _ -
        if (i > start) pieces.push(word.slice(start, i).toLowerCase());
        start = i + 1;
      } else if (i > start && upper(c)) {
        var prev = word.charCodeAt(i - 1);
        if (lowerOrDigit(prev) || upper(prev) && i + 1 < n && word.charCodeAt(i + 1) >= 97 && word.charCodeAt(i + 1) <= 122) {
          pieces.push(word.slice(start, i).toLowerCase());
          start = i;
        }
      }
    }
    return pieces;
  }

  function analyseWord(word) {
    // most words: letters only, lower case or capitalised
    var rest = word.charCodeAt(0) >= 65 && word.charCodeAt(0) <= 90 ? word.slice(1) : word;
    if (lowerLetters(rest)) return { whole: null, suffixes: [], parts: [stem(word.toLowerCase())] };
    var lower = word.toLowerCase().replace(/-/g, "_").replace(/^[_.]+|[_.]+$/g, "");
    var pieces = splitWord(word);
    if (pieces.length < 2) return { whole: null, suffixes: [], parts: [stem(lower)] };
    var suffixes = [];
    var dotted = lower.split(".");
    for (var i = 1; i < dotted.length; i++) suffixes.push(dotted.slice(i).join("."));
    return { whole: lower, suffixes: suffixes, parts: pieces.map(stem) };
  }

  // A GPU's number is what a reader asks about ("train on GPU 1, leaving GPU 0", "gpu0 uses more
  // memory", "cuda:1", "0号卡显存"), and numbers are no terms: each way of writing one is also the
  // term gpu0, gpu1…, in the pages and in a query alike. Not a version ("CUDA 12.1"), and of "N卡"
  // only 0卡: "8卡训练" counts GPUs
  var ORDINAL = /\b(?:gpu|cuda)[: ]?(\d{1,2})\b(?!\.\d)|(\d{1,2}) ?号(?:显卡|卡|gpu)|\b(0) ?卡/gi;
  function ordinals(text) {
    return text.replace(ORDINAL, function (all, a, b, c) { return all + " gpu" + (a || b || c) + " "; });
  }

  // ------------------------------------------------------------------ index

  var W_TITLE = 5, W_PAGE = 1.5, W_TEXT = 1, W_CODE = 0.6;
  var K1 = 1.2, B = 0.5;

  var docs = [];         // index entries, with .page (index of the page's first entry)
  var ids = new Map();   // term → id
  var names = [];        // id → term
  // postings of term id: entries postStart[id] … postStart[id + 1] - 1 of postDoc
  // (the entry) and postTf (the term's weighted count in it)
  var postStart = new Int32Array(1), postDoc = new Int32Array(0), postTf = new Float32Array(0);
  var counts = [];       // id → occurrences in titles and text (Chinese words: segmenting queries)
  var lengths = [];
  var avgLength = 1;
  var hanTotal = 1;
  var hanMaxLength = 1;
  var latin = [];        // Latin terms, sorted (prefix and spelling matches)
  var wholes = [];       // the whole names among them (DataLoader → dataloader, set_to_none)
  var segmenter = null;

  var postings = {
    has: function (term) { return ids.has(term); }
  };
  var hanCount = {
    get: function (term) { var id = ids.get(term); return id === undefined ? 0 : counts[id]; },
    has: function (term) { var id = ids.get(term); return id !== undefined && counts[id] > 0 && HAN.test(term); }
  };

  function isHan(c) {
    return c >= 0x4e00 ? c <= 0x9fff || c >= 0xf900 && c <= 0xfaff : c >= 0x3400 && c <= 0x4dbf;
  }

  function isWordChar(c) {  // [A-Za-z0-9_\u00C0-\u024F], as in WORD
    return c >= 97 ? c <= 122 || c >= 0xc0 && c <= 0x24f : c >= 65 ? c <= 90 || c === 95 : c >= 48 && c <= 57;
  }

  function idOf(term) {
    var id = ids.get(term);
    if (id === undefined) {
      id = names.length;
      ids.set(term, id);
      names.push(term);
      counts.push(0);
    }
    return id;
  }

  // A Latin word's term ids: whole name, its dotted suffixes, its parts
  var wordIds = new Map();
  var whole = [];
  function idsOfWord(word) {
    var out = wordIds.get(word);
    if (out) return out;
    var a = analyse(word);
    out = [];
    if (a.whole) {
      out.push(idOf(a.whole));
      whole[ids.get(a.whole)] = 1;
      for (var i = 0; i < a.suffixes.length; i++) out.push(idOf(a.suffixes[i]));
    }
    for (var j = 0; j < a.parts.length; j++) if (a.parts[j].length > 1) out.push(idOf(a.parts[j]));
    wordIds.set(word, out);
    return out;
  }

  function grow(array, size) {
    var bigger = new array.constructor(Math.max(size, array.length * 2));
    bigger.set(array);
    return bigger;
  }

  var byLocation = new Map();  // an entry's location → its index in docs
  function build(entries) {
    corpus = valueCorpus = entryTitles = shortTitles = null;  // documented()'s texts: made again from the new sections
    docs = entries;
    byLocation = new Map(docs.map(function (d, i) { return [d.location, i]; }));
    ids = new Map(); names = []; counts = []; wordIds = new Map(); whole = [];
    lengths = new Array(docs.length);
    var pageFirst = new Map();
    var total = 0;
    var tf = new Float64Array(1 << 14);     // this entry's weighted count of each term id
    var touched = new Int32Array(1 << 12), nTouched = 0;
    var titleIds = [];
    // (term id, entry, weighted count) of every entry, in entry order
    var size = 1 << 16, n = 0;
    var allIds = new Int32Array(size), allDocs = new Int32Array(size), allTf = new Float32Array(size);

    function add(id, weight, title) {
      if (id >= tf.length) tf = grow(tf, id + 1);
      if (tf[id] === 0) {
        if (nTouched === touched.length) touched = grow(touched, 0);
        touched[nTouched++] = id;
        if (title) titleIds.push(id);
      }
      tf[id] += weight;
    }

    // Adds the terms of an entry's HTML with a weight: Han runs (jieba's words,
    // the index keeps them apart with spaces) and Latin words as WORD reads
    // them, skipping tags and entities. A loop over char codes: the index is
    // built while the reader waits for the first result.
    function scan(text, weight, count, title) {
      var n = text.length, i = 0, c, start, id, list, k;
      while (i < n) {
        c = text.charCodeAt(i);
        if (c === 60) {  // <tag>
          k = text.indexOf(">", i);
          i = k < 0 ? n : k + 1;
        } else if (c === 38) {  // &entity;
          k = text.indexOf(";", i);
          i = k > i && k - i <= 8 ? k + 1 : i + 1;
        } else if (isHan(c)) {
          start = i;
          while (++i < n && isHan(text.charCodeAt(i)));
          id = idOf(text.slice(start, i));
          if (count) counts[id]++;
          add(id, weight, title);
        } else if (isWordChar(c)) {
          start = i++;
          while (i < n) {
            c = text.charCodeAt(i);
            if (isWordChar(c)) i++;
            else if ((c === 46 || c === 45) && i + 1 < n && isWordChar(text.charCodeAt(i + 1))) i += 2;
            else break;
          }
          list = idsOfWord(text.slice(start, i));
          for (k = 0; k < list.length; k++) add(list[k], weight, title);
        } else i++;
      }
    }

    for (var d = 0; d < docs.length; d++) {
      var doc = docs[d];
      var path = doc.location.split("#")[0];
      if (!pageFirst.has(path)) pageFirst.set(path, d);
      doc.page = pageFirst.get(path);
      titleIds = [];
      scan(ordinals(doc.title), W_TITLE, true, true);
      doc.titleIds = titleIds;
      scan(ordinals(doc.text), W_TEXT, true, false);
      if (doc.code) scan(doc.code, W_CODE, false, false);
      if (doc.page !== d) {
        var pageTitle = docs[doc.page].titleIds;
        for (var p = 0; p < pageTitle.length; p++) add(pageTitle[p], W_PAGE, false);
      }
      if (n + nTouched > size) {
        size = Math.max(size * 2, n + nTouched);
        allIds = grow(allIds, size); allDocs = grow(allDocs, size); allTf = grow(allTf, size);
      }
      var length = 0;
      for (var t = 0; t < nTouched; t++) {
        var id = touched[t];
        allIds[n] = id; allDocs[n] = d; allTf[n++] = tf[id];
        length += tf[id];
        tf[id] = 0;
      }
      nTouched = 0;
      lengths[d] = length;
      total += length;
    }
    // group by term (a counting sort keeps each term's entries in entry order)
    var terms = names.length;
    postStart = new Int32Array(terms + 1);
    for (var a = 0; a < n; a++) postStart[allIds[a] + 1]++;
    for (var b = 0; b < terms; b++) postStart[b + 1] += postStart[b];
    var fill = postStart.slice(0, terms);
    postDoc = new Int32Array(n);
    postTf = new Float32Array(n);
    for (var e = 0; e < n; e++) {
      var at = fill[allIds[e]]++;
      postDoc[at] = allDocs[e];
      postTf[at] = allTf[e];
    }
    avgLength = total / Math.max(1, docs.length);
    hanTotal = 0;
    hanMaxLength = 1;
    latin = [];
    wholes = [];
    for (var m = 0; m < terms; m++) {
      if (isHan(names[m].charCodeAt(0))) {
        hanTotal += counts[m];
        if (names[m].length > hanMaxLength) hanMaxLength = names[m].length;
      } else {
        latin.push(names[m]);
        if (whole[m]) wholes.push(names[m]);
      }
    }
    hanMaxLength = Math.min(hanMaxLength, 8);
    latin.sort();
  }

  function df(term) {
    var id = ids.get(term);
    return id === undefined ? 0 : postStart[id + 1] - postStart[id];
  }

  function idf(term) {
    var n = df(term);
    return Math.log(1 + (docs.length - n + 0.5) / (n + 0.5));
  }

  // ------------------------------------------------------------------ query

  // Index words of a Han run, cut like jieba cuts the pages: the most probable
  // path through the index's words; a character the index lacks stands alone.
  function cutHan(run) {
    var n = run.length;
    var best = [0], back = [0];
    var logTotal = Math.log(hanTotal + 1);
    for (var i = 1; i <= n; i++) { best[i] = -Infinity; back[i] = i - 1; }
    for (var s = 0; s < n; s++) {
      if (best[s] === -Infinity) continue;
      for (var len = 1; len <= hanMaxLength && s + len <= n; len++) {
        var word = run.substr(s, len);
        // a reader's word the pages lack (a synonym's key, a stop word: 作者) is still a word
        var c = hanCount.get(word) || (synonymMap.has(word) || STOP_ZH.has(word) ? 2 : 0);
        var score;
        if (c) score = best[s] + Math.log(c) - logTotal;
        else if (len === 1) score = best[s] - logTotal - 4;
        else continue;
        if (score > best[s + len]) { best[s + len] = score; back[s + len] = s; }
      }
    }
    var words = [];
    for (var e = n; e > 0; e = back[e]) words.unshift({ word: run.slice(back[e], e), start: back[e] });
    return words;
  }

  function segments(run) {
    if (!segmenter) return [];
    var out = [];
    for (var it = segmenter.segment(run)[Symbol.iterator](), r = it.next(); !r.done; r = it.next()) {
      out.push({ word: r.value.segment, start: r.value.index });
    }
    return out;
  }

  // Damerau (optimal string alignment) distance, at most `max`, else max + 1
  function distance(a, b, max) {
    if (Math.abs(a.length - b.length) > max) return max + 1;
    var prev2 = null, prev = [], cur;
    for (var j = 0; j <= b.length; j++) prev[j] = j;
    for (var i = 1; i <= a.length; i++) {
      cur = [i];
      var low = i;
      for (var k = 1; k <= b.length; k++) {
        var cost = a[i - 1] === b[k - 1] ? 0 : 1;
        var v = Math.min(prev[k] + 1, cur[k - 1] + 1, prev[k - 1] + cost);
        if (i > 1 && k > 1 && a[i - 1] === b[k - 2] && a[i - 2] === b[k - 1]) v = Math.min(v, prev2[k - 2] + 1);
        cur[k] = v;
        if (v < low) low = v;
      }
      if (low > max) return max + 1;
      prev2 = prev;
      prev = cur;
    }
    return prev[b.length];
  }

  function prefixed(prefix, limit) {
    var lo = 0, hi = latin.length;
    while (lo < hi) { var mid = (lo + hi) >> 1; if (latin[mid] < prefix) lo = mid + 1; else hi = mid; }
    var out = [];
    for (var i = lo; i < latin.length && latin[i].lastIndexOf(prefix, 0) === 0; i++) {
      if (latin[i] !== prefix) out.push(latin[i]);
    }
    out.sort(function (x, y) { return df(y) - df(x); });
    return out.slice(0, limit);
  }

  function neighbours(word, among) {
    if (word.length < 5 || /\d/.test(word)) return [];
    var max = word.length >= 8 ? 2 : 1;
    var out = [];
    among = among || latin;
    for (var i = 0; i < among.length; i++) {
      var t = among[i];
      if (Math.abs(t.length - word.length) > max || HAN.test(t)) continue;
      var d = distance(word, t, max);
      if (d <= max) out.push({ t: t, w: d === 1 ? 0.7 : 0.5 });
    }
    out.sort(function (x, y) { return df(y.t) - df(x.t); });
    return out.slice(0, 4);
  }

  // A term the index has → [{t, w}]; a term it lacks → its neighbours.
  function alternatives(term, typing, long) {
    var alts = [];
    if (postings.has(term)) alts.push({ t: term, w: 1 });
    // the word being typed may be the start of a longer one, unless it is a
    // common word already (gpu, data, to: no wildcard)
    if (typing && term.length >= 3 && !(alts.length && df(term) > docs.length / 20)) {
      prefixed(term, 8).forEach(function (t) { alts.push({ t: t, w: alts.length ? 0.4 : 0.8 }); });
    }
    if (!alts.length && long) {
      if (term.length >= 5) prefixed(term, 4).forEach(function (t) { alts.push({ t: t, w: 0.6 }); });
      if (!alts.length) alts = neighbours(term);
    }
    return alts;
  }

  // The query → groups, one per reader's word:
  //   {label, w, alts: [{t, w}], parts: [group], phrases: [[term, …]], join}
  // A group matches a section through its best alternative, the mean of its
  // parts (a compound's pieces) or the mean of a phrase (a synonym in words).
  function parse(raw, keepStopWords) {
    var query = ordinals(raw.normalize("NFKC"));
    var typingEnd = !/\s$/.test(query);
    var groups = [];
    var words = [];
    WORD.lastIndex = 0;
    var m;
    while ((m = WORD.exec(query))) words.push(m);
    words.forEach(function (m, index) {
      var typing = typingEnd && index === words.length - 1 && m.index + m[0].length === query.length;
      if (m[1]) return hanGroups(m[1], groups, keepStopWords);
      var word = m[2], lower = word.toLowerCase();
      if (NUMBERISH.test(lower)) return;
      var a = analyse(word);
      var group;
      if (!a.whole) {
        var term = a.parts[0];
        if (term.length < 2 || !keepStopWords && (STOP_EN.has(lower) || STOP_EN.has(term))) return;
        group = { label: lower, w: WEAK.has(lower) ? 0.3 : 1, alts: alternatives(term, typing, true),
          parts: [], phrases: [], join: term };
        // "dataloader" is also the whole name DataLoader, which is not stemmed;
        // "dataloder" is a misspelt name even when its stem happens to exist
        if (lower !== term && postings.has(lower)) group.alts.unshift({ t: lower, w: 1 });
        else if (lower !== term) group.alts = group.alts.concat(neighbours(lower, wholes));
        addSynonyms(group, term);
        groups.push(group);
        return;
      }
      var alts = alternatives(a.whole, typing, false);
      a.suffixes.forEach(function (s) { if (postings.has(s)) alts.push({ t: s, w: 0.8 }); });
      if (!alts.length) alts = neighbours(a.whole);
      var parts = [];
      a.parts.forEach(function (p, i) {
        if (p.length < 2 || STOP_EN.has(p) || NUMBERISH.test(p)) return;
        parts.push({ label: p, w: 1, alts: alternatives(p, typing && i === a.parts.length - 1, true), parts: [], phrases: [] });
      });
      group = { label: a.whole, w: 1, alts: alts, parts: parts, phrases: [] };
      addSynonyms(group, a.whole);
      groups.push(group);
    });
    joined(groups);
    return once(groups);
  }

  // A word the query repeats ("训练 … 训练", "device= vs .to(device)") is still
  // one thing it asks about: counted twice, it outweighed the rest.
  function once(groups) {
    var seen = new Set();
    return groups.filter(function (g) {
      if (seen.has(g.label)) return false;
      seen.add(g.label);
      return true;
    });
  }

  // Neighbouring words that the pages write as one name ("data loader" is also
  // DataLoader, "zero grad" zero_grad, "distributed data parallel"
  // DistributedDataParallel), or that the glossary names ("pinned memory" is
  // 锁页内存 on the Chinese site). A Chinese word counts as a neighbour for
  // the synonyms only ("多GPU" → 多 gpu is 多卡).
  function joined(groups) {
    var found = [];
    for (var i = 0; i < groups.length; i++) {
      var name = groups[i].join, snake = groups[i].join, phrase = groups[i].join || groups[i].han;
      for (var j = i + 1; j < groups.length && j < i + 3 && phrase && (groups[j].join || groups[j].han); j++) {
        name = name && groups[j].join && name + groups[j].join;
        snake = name && snake + "_" + groups[j].join;
        phrase += " " + (groups[j].join || groups[j].han);
        if (name) [name, snake].forEach(function (t) {
          if (postings.has(t)) found.push({ label: t, w: JOINED_WEIGHT, alts: [{ t: t, w: 1 }], parts: [], phrases: [] });
        });
        var group = { label: phrase, w: 1, alts: [], parts: [], phrases: [] };
        addSynonyms(group, phrase);
        if (group.alts.length || group.phrases.length) found.push(group);
      }
    }
    Array.prototype.push.apply(groups, found);
  }

  function hanGroups(run, groups, keepStopWords) {
    var path = cutHan(run);
    var extra = segments(run).filter(function (s) { return s.word.length > 1 && hanCount.has(s.word); });
    path.forEach(function (p) {
      var word = p.word;
      var known = hanCount.has(word);
      if (!keepStopWords && STOP_ZH.has(word)) return;
      var group = { label: word, w: word.length > 1 && !WEAK.has(word) ? 1 : 0.3, alts: [], parts: [], phrases: [], han: word };
      if (known) group.alts.push({ t: word, w: 1 });
      addSynonyms(group, word);
      if (!known && word.length === 1 && !group.alts.length && !group.phrases.length) return;
      var end = p.start + word.length;
      // Intl.Segmenter's words that overlap this one, and the index's words inside it
      extra.forEach(function (s) {
        if (s.word !== word && s.start < end && s.start + s.word.length > p.start) group.alts.push({ t: s.word, w: 0.8 });
      });
      for (var i = 0; i < word.length; i++) {
        for (var j = i + 2; j <= word.length; j++) {
          var sub = word.slice(i, j);
          if (sub !== word && hanCount.has(sub) && !STOP_ZH.has(sub)) group.alts.push({ t: sub, w: 0.5 });
        }
      }
      if (group.alts.length || group.phrases.length) groups.push(group);
    });
  }

  // ------------------------------------------------------------------ ranking

  var PART_WEIGHT = 0.6;
  var MAX_PAGES = 10, MAX_SECTIONS = 6;
  var PAGE_TITLE_BOOST = 0.5;
  // A page scores its best sections, each counting DECAY times the one before
  // it (the first SECTIONS_SUMMED of them): a page that answers a question in
  // several sections beats one section that happens to share its words
  var DECAY = 0.6, SECTIONS_SUMMED = 8;
  // Neighbouring words joined into a name the pages use ("data loader" →
  // DataLoader) are one more way to match, not one more thing the query asks
  // for: at full weight a short title naming DataLoader outranked the page
  // titled "Data loading" for "data loading".
  var JOINED_WEIGHT = 0.3;

  function termScores(alts, into) {
    for (var a = 0; a < alts.length; a++) {
      var id = ids.get(alts[a].t);
      if (id === undefined) continue;
      var weight = alts[a].w * idf(alts[a].t);
      for (var i = postStart[id]; i < postStart[id + 1]; i++) {
        var d = postDoc[i], tf = postTf[i];
        var s = weight * tf * (K1 + 1) / (tf + K1 * (1 - B + B * lengths[d] / avgLength));
        if (!(into.get(d) >= s)) into.set(d, s);
      }
    }
    return into;
  }

  var SYNONYM_PHRASE_WEIGHT = 0.7;

  function groupScores(group) {
    var scores = termScores(group.alts, new Map());
    group.phrases.forEach(function (terms) {
      var sum = new Map(), found = new Map();
      terms.forEach(function (t) {
        termScores([{ t: t, w: 1 }], new Map()).forEach(function (s, d) {
          sum.set(d, (sum.get(d) || 0) + s);
          found.set(d, (found.get(d) || 0) + 1);
        });
      });
      sum.forEach(function (s, d) {
        // a phrase (恢复训练 → 恢复, 训练) is matched by a section with all its words
        if (found.get(d) < terms.length) return;
        var v = SYNONYM_PHRASE_WEIGHT * s / terms.length;
        if (!(scores.get(d) >= v)) scores.set(d, v);
      });
    });
    if (group.parts.length) {
      var sum = new Map();
      group.parts.forEach(function (part) {
        groupScores(part).forEach(function (s, d) { sum.set(d, (sum.get(d) || 0) + s); });
      });
      sum.forEach(function (s, d) {
        var v = PART_WEIGHT * s / group.parts.length;
        if (!(scores.get(d) >= v)) scores.set(d, v);
      });
    }
    return scores;
  }

  function rarity(group) {
    var best = 0;
    group.alts.forEach(function (a) { best = Math.max(best, a.w * idf(a.t)); });
    group.parts.forEach(function (p) { best = Math.max(best, PART_WEIGHT * rarity(p)); });
    group.phrases.forEach(function (terms) {
      var sum = 0;
      terms.forEach(function (t) { sum += idf(t); });
      best = Math.max(best, SYNONYM_PHRASE_WEIGHT * sum / terms.length);
    });
    return best;
  }

  // A section's score is scaled by the share of the query it covers,
  // COVERAGE_FLOOR + (1 - COVERAGE_FLOOR) · share (squared, it let a section
  // with every common word beat the one with the words that matter)
  var COVERAGE_FLOOR = 0.3;
  // each word's part of that share: its weight times its rarity to this power
  // (at 1, one rare word of a question outweighed all its others)
  var RARITY_POWER = 0.5;

  function rank(groups) {
    var total = new Map(), covered = new Map();
    var coverable = 0;
    var matched = new Set();
    groups.forEach(function (group) {
      var weight = group.w * Math.pow(rarity(group), RARITY_POWER);
      if (!weight) return;
      coverable += weight;
      groupScores(group).forEach(function (s, d) {
        total.set(d, (total.get(d) || 0) + group.w * s);
        covered.set(d, (covered.get(d) || 0) + weight);
      });
    });
    var sections = [];
    total.forEach(function (s, d) {
      var coverage = covered.get(d) / coverable;
      sections.push({ d: d, score: s * (COVERAGE_FLOOR + (1 - COVERAGE_FLOOR) * coverage) });
    });
    return sections;
  }

  // ------------------------------------------------------------------ results

  // Marks the words of `html` (outside tags) whose index terms are in `terms`
  function mark(html, terms) {
    return html.replace(/(<[^>]*>)|([^<]+)/g, function (all, tag, text) {
      if (tag) return tag;
      return text.replace(WORD, function (word, han, latinWord) {
        if (han) return terms.has(han) ? "<mark>" + han + "</mark>" : han;
        var a = analyse(latinWord);
        var hit = a.whole ? terms.has(a.whole) || a.suffixes.some(function (s) { return terms.has(s); }) ||
          a.parts.some(function (p) { return terms.has(p); }) : terms.has(a.parts[0]);
        return hit ? "<mark>" + word + "</mark>" : word;
      });
    });
  }

  // The (at most two) blocks of a section's text that hold a match
  function teaser(html, terms) {
    var blocks = html.split(/(?<=<\/(?:p|li|ul|ol|dl|table|blockquote|div)>)\s*/);
    var hits = [];
    for (var i = 0; i < blocks.length && hits.length < 2; i++) {
      var marked = mark(blocks[i], terms);
      if (marked !== blocks[i]) hits.push(marked);
    }
    return hits.length ? hits.join("") : blocks[0] || "";
  }

  function groupTerms(group) {
    var out = group.alts.map(function (a) { return a.t; });
    group.parts.forEach(function (p) { out = out.concat(groupTerms(p)); });
    group.phrases.forEach(function (terms) { out = out.concat(terms); });
    return out;
  }

  // ------------------------------------------------------------------ pasted text

  // A long paste (a log line, a message with its paths and addresses): paths
  // and hexadecimal addresses are not what it asks about. Tracebacks pasted
  // into the box arrive here already cut to their error lines (search-box.js:
  // an <input> drops line breaks, so the page reads them before it does).
  var PATH = /(?:[A-Za-z]:)?(?:[\\/][\w.@+~-]+){2,}[\\/]?/g;
  var HEX = /\b0x[0-9a-fA-F]+\b/g;

  // The lines torch adds under every CUDA runtime error, whichever it is: in a
  // paste they outweighed the line that names the error (out of memory, illegal
  // memory access), so they count only when nothing else was pasted. (And the two
  // sentences torch.compile adds under each of its errors: "Compiler: cl is not
  // found. Set TORCHDYNAMO_VERBOSE=1 …" got the notice that the site lacks it.)
  // (their sources are in search_families.json, "boilerplate": made at SETUP, as the families are)
  var BOILERPLATE = /$^/g;

  // the kernel, block and thread a device-side assertion is printed with ("…/NLLLoss.cu:104: void
  // cunn_…_kernel(T *, …) [with T = float]: block: [0,0,0], thread: [455,0,0] Assertion `…` failed."):
  // its assertion says what went wrong, as search-box.js keeps it from a paste of several lines
  var KERNEL_CONTEXT = /\S*\.cuh?:\d+:[^`]*?block:\s*\[[\d,\s]*\],\s*thread:\s*\[[\d,\s]*\]\s*(?=Assertion)/g;
  function pasted(raw) {
    if (raw.length < 160) return raw;
    raw = raw.replace(KERNEL_CONTEXT, " ");
    var kept = raw.replace(BOILERPLATE, " ");
    if (/[A-Za-z]{3}/.test(kept.replace(/\b(?:RuntimeError|torch\.AcceleratorError|CUDA error)\b/g, ""))) raw = kept;
    return raw.replace(PATH, " ").replace(HEX, " ");
  }

  // Pages that gather the others (the validation report, the glossary, the
  // print pages, the home page) answer a query only when no page of its own does.
  var HUB = /(?:^|\/)(?:validation|print|reference\/glossary)\/$|^(?:en\/)?$/;
  var HUB_WEIGHT = 0.5;
  // The misconceptions page touches every topic in a few lines each: it answers
  // when the topic's own page does not (at 0.7 its one-line entries still took
  // a top-3 place from the page that explains: 复现 → misconceptions, not cudnn.benchmark)
  var BROAD = /(?:^|\/)reference\/misconceptions\/$/;
  var BROAD_WEIGHT = 0.4;
  // The error reference (one section per message) answers a pasted message;
  // a question in the reader's own words is answered by the topic's page, and
  // the long, wordy entries otherwise crowd it out.
  var ERRORS = /(?:^|\/)reference\/errors\//;
  var ERRORS_WEIGHT = 0.5;
  // What a message looks like: an exception's name, "error"/"warning", a
  // CUDA/NCCL status, or the Chinese words for an error
  var MESSAGE = /[a-z](?:Error|Exception|Warning)\b|\b(?:error|errors|exception|warning|failed|traceback|cuda\w*Error\w*)\b|报错|错误|异常/i;
  // A line that begins with an exception's or a warning's name and a colon
  var STARTS_AS_MESSAGE = /^\s*(?:[\w.]*(?:Error|Exception|Warning)|warning|error)\s*:/i;
  // or a long line in English with no question mark: a log line
  var PASTE_LENGTH = 100;
  // A question that names an error ("Is there an error in …?") is asked, not pasted: it has a
  // question mark, or the asker's own "I"/"my" and no long quote, and no exception's name, and does
  // not begin as a message does (a long line of prose is no log line either)
  var EXCEPTION_NAME = /[a-z](?:Error|Exception|Warning)\b/;
  function asked(raw) {
    return (/[?？]/.test(raw) || /\b(?:I|I'm|my|me)\b/.test(raw) && !/[`"“][^`"”]{25}/.test(raw)) &&
      !EXCEPTION_NAME.test(raw) && !STARTS_AS_MESSAGE.test(raw);
  }


  // ------------------------------------------------------------------ families
  // A pasted message whose wording is on no page still lands (issue 35): its
  // shape names the family page that explains its kind (a cuBLAS status, an
  // NCCL error, a kernel's assertion…), and that page opens with a notice, in
  // the reader's language, that this exact message is not documented yet and a
  // link that opens a pre-filled report (search-box.js reads ?undocumented=).
  // The first shape that matches decides; the specific ones come first.
  // filled from the index's config at SETUP (search_families.json, put there by
  // devguide/mkdocs_plugin/hooks/search_per_language.py): {shape, page, name}, first match wins
  var FAMILIES = [];
  var WINDOW = 6;  // words of the message that must stand together on a page for it to be documented
  // accelerators whose messages copy CUDA's wording, named where a message begins: at a line's
  // start or after an exception's name
  var OTHER_DEVICES = /(?:^|\n|[a-z](?:Error|Exception|Warning)[:\uff1a])[ \t]*(?:XPU|MPS)(?![\w:])/g;
  var corpus = null;  // every section's title and text, as normalise() makes them (built on first need)
  // a status or an NCCL error names the message by itself: it is documented when a page has it
  // (and the older forms that name it: NCCL's "NCCL Error 1: unhandled cuda error" and its tests'
  // "NCCL failure common.cu:777 'unhandled system error'"; torch 1.x's "cuda runtime error (74) :
  // misaligned address at …/THCTensorCopy.cu:84" and "THCudaCheck FAIL file=… line=84 error=74 :
  // misaligned address", whose CUDA status is what torch 2 prints after "CUDA error:")
  // (its source is in search_families.json, "key")
  var KEY = /$^/;
  // the lines torch adds to many messages, and module paths, say nothing about which message it is
  // BOILERPLATE, then (search_families.json, "not_wording") an exception thrown through C++
  // ("terminate called after throwing an instance of …", "what():"), dotted module paths, a C++
  // stack frame (the same frames and conda build paths are in many quoted tracebacks), the prefix
  // c10d's log lines and c10's checks carry ("[rank0]:[E608 14:09:10.210136079
  // ProcessGroupNCCL.cpp:1484] [PG ID 0 PG GUID 0(default_pg) Rank 0]", "[W socket.cpp:697] [c10d]",
  // "[enforce fail at inline_container.cc:145] .": the same on every message of its source file),
  // Python's own lines around any exception (quoted tracebacks on many pages have them too), then
  // file paths and addresses. Made at SETUP (notWording)
  var NOT_WORDING = BOILERPLATE;
  function notWording(more) {
    return new RegExp([BOILERPLATE.source].concat(more, PATH.source, HEX.source).join("|"), "gi");
  }
  // an exception's name before its message, and an OS error's number: the same message is
  // raised as RuntimeError here and OSError there ("[Errno 24] Too many open files").
  // Case-sensitive: "CUDA error:" is part of the message
  var RAISED_AS = /\b[\w.]*[A-Za-z](?:Error|Exception|Warning)[:\uff1a]|\[(?:Errno|WinError) \d+\]/g;
  var GENERIC = new Set();  // words in many messages (search_families.json, at SETUP)
  // the messages the pages quote in text blocks, which the index's texts leave out: with the
  // rest of the index (served), or in the index's config (offline, one file)
  var QUOTED = [];

  // (a word's leading and trailing underscores are Markdown's emphasis in a pasted issue,
  // "_OSError: [Errno 24] Too many open files_", not part of a name)
  function normalise(text) {
    return (" " + text.replace(/<[^>]*>/g, " ").replace(/&(?:amp|lt|gt|quot|#39);/g, " ")
      .toLowerCase().replace(/\d+/g, " ").replace(/[^a-z0-9_\u3400-\u9fff]+/g, " ") + " ")
      .replace(/ _+| _+$|_+ /g, " ").replace(/ +/g, " ");
  }

  // A word that tells one message from another (not a stop word, not an exception's name)
  function informative(w) {
    return w.length > 1 && !STOP_EN.has(w) && !GENERIC.has(w) && !/(?:error|exception|warning)$/.test(w);
  }

  // Whether a page quotes the message: its status or NCCL error, or six of its words in a row
  // (two of them informative) stand together on some section or in a text block of a page
  // (QUOTED). null where none does; else {location}: the section whose text block quotes it,
  // null where only a section's text has it.
  var quotes = null;  // QUOTED's texts as normalise() makes them, one string, and where each starts
  var entryTitles = null;  // [location, title as normalise() makes it] of each error entry
  var shortTitles = null;  // the error entries' titles shorter than a phrase, as normalise() makes them
  function isEntry(location) { return ERRORS.test(location) && location.indexOf("#") >= 0; }
  function titlesOfEntries() {
    if (!entryTitles) {
      entryTitles = docs.filter(function (d) { return isEntry(d.location); })
        .map(function (d) { return [d.location, normalise(wording(d.title))]; });
    }
    return entryTitles;
  }
  // A message's own words: what NOT_WORDING and RAISED_AS name taken out. Before that, what a
  // paste changes without changing the message: full-width punctuation typed by a Chinese input
  // method ("torch。cuda.is_available()", "RuntimeError："). The source line a traceback shows
  // ("raise RuntimeError('received %d items of ancdata' %") is the message too: its "raise X("
  // and its format fields say nothing about which message it is.
  // With ``values``, what differs from one report of a message to the next counts as one word,
  // the same for all (documented() tries this after the words as pasted): an operator in double
  // quotes ('"LayerNormKernelImpl" not implemented for \'Half\'' is the entry '"addmm_impl_cpu_"
  // not implemented for \'Half\''), an exception's name inside a message ("Caught IndexError in
  // DataLoader worker process 0" is the entry "Caught ValueError in …"). Single quotes hold what
  // tells messages apart ("module 'torch.compiler' has no attribute 'is_compiling'").
  var QUOTED_VALUE = /"[^"\s]{1,80}"|\b[A-Z]\w*(?:Error|Exception|Warning)\b/g;
  var SOURCE_LINE = /\braise\s+[\w.]+\(|%[-+ #0]*\d*(?:\.\d+)?[sdifrx]\b|\{\w*\}/g;
  var valueCorpus = null;  // corpus, with each value as one word (wording(…, true))
  function wording(text, values) {
    text = text.normalize("NFKC").replace(/\u3002/g, ".").replace(/&quot;/g, '"');
    text = text.replace(NOT_WORDING, " ").replace(RAISED_AS, " ").replace(SOURCE_LINE, " ");
    return values ? text.replace(QUOTED_VALUE, " quotedvalue ") : text;
  }
  // The phrases of a paste that a page quoting it has, and the test a phrase passes when it names
  // the device the message begins with ({phrases, names}).
  // A message that begins with another accelerator's name ("XPU out of memory. Tried to
  // allocate…") shares its other words with CUDA's message: only the phrases that name the
  // device tell whether a page has it. A device named inside a message (a list of device
  // types, "mps:0 and cpu") is a value, and the message is the same on every device
  function phrasesOf(raw, values) {
    var key = KEY.exec(raw);
    // (a status names no device: every phrase passes)
    if (key) return { phrases: [normalise(key[1] || key[2] || key[3] || key[4] || key[0])], names: Boolean };
    var phrases = [], words = normalise(wording(raw, values)).trim().split(" ").filter(Boolean);
    var devices = (raw.match(OTHER_DEVICES) || []).map(function (m) { return " " + m.slice(-3).toLowerCase() + " "; });
    if (words.length && words.length < WINDOW) phrases.push(" " + words.join(" ") + " ");
    // a short message after the asker's own words ("用VOC2012数据集跑mask RCNN的时候报错OSError:
    // [Errno 24] Too many open files", "LORA + FSDP: ValueError: …"): what follows the last
    // exception's name, up to the asker's next Chinese words, is the message
    var raised = null, m;
    RAISED_AS.lastIndex = 0;
    while ((m = RAISED_AS.exec(raw))) raised = m;
    if (raised && raised.index > 0) {
      var tail = normalise(wording(raw.slice(raised.index).split(HAN)[0], values)).trim().split(" ").filter(Boolean);
      if (tail.length >= 3 && tail.length < WINDOW && tail.filter(informative).length >= 2) {
        phrases.push(" " + tail.join(" ") + " ");
      }
    }
    // a kernel's assertion names the check that failed, whatever kernel and thread it is pasted with
    // ("…SpatialClassNLLCriterion.cu:104: void cunn_…_kernel(T *, …): block: [0,0,0], thread:
    // [455,0,0] Assertion `t >= 0 && t < n_classes` failed.")
    var assertion = raw.match(/Assertion\s+\**`[^`]*`\**\s+failed/);
    if (assertion) phrases.push(normalise(wording(assertion[0], values)));
    for (var i = 0; i + WINDOW <= words.length; i++) {
      var run = words.slice(i, i + WINDOW);
      if (run.filter(informative).length >= 2) phrases.push(" " + run.join(" ") + " ");
    }
    var names = function (p) { return devices.every(function (d) { return p.indexOf(d) >= 0; }); };
    return { phrases: phrases.filter(names), names: names };
  }
  // The line torchrun's launcher prints under any worker's failure ("ERROR:torch.distributed.elastic.
  // multiprocessing.api:failed (exitcode: 1) local_rank: 0 (pid: 23812) of binary: …"): pasted
  // under the worker's own message, it is documented (its entry) while that message may not be
  // ("Function argument device_ids not supported for the selected backend gloo"). It decides only
  // when nothing else was pasted, as the lines CUDA adds under every error do (BOILERPLATE).
  var LAUNCHER = /(?:ERROR:)?torch\.distributed\.elastic\.multiprocessing\.api:(?:\s*\[ERROR\])?|failed \(exitcode: -?\d+\) local_rank: \d+ \(pid: \d+\) of binary:(?:[ \t]*[^\s]+)?/g;
  // The piece of a joined text that the offset ``at`` falls in, given where each piece starts
  function pieceAt(starts, at) {
    var lo = 0, hi = starts.length - 1;
    while (lo < hi) {
      var mid = (lo + hi + 1) >> 1;
      if (starts[mid] <= at) lo = mid; else hi = mid - 1;
    }
    return lo;
  }
  // The location of the error entry whose title has the phrase, or null
  function entryWith(phrase) {
    var titled = titlesOfEntries().filter(function (e) { return e[1].indexOf(phrase) >= 0; })[0];
    return titled ? titled[0] : null;
  }
  function documented(raw) {
    var own = raw.replace(LAUNCHER, " ");
    if (own !== raw && normalise(wording(own)).trim().split(" ").filter(informative).length >= 3) raw = own;
    // the pages' texts lose what a paste loses (module paths, exception names, traceback lines…):
    // "`torch.cuda.amp.GradScaler(args...)` is deprecated" on a page and in a paste then agree
    if (!corpus) corpus = docs.map(function (d) { return normalise(wording(d.title + " " + d.text)); }).join("\n");
    if (!quotes) {
      quotes = { text: "", starts: [], at: [] };
      QUOTED.forEach(function (q) {
        quotes.starts.push(quotes.text.length);
        quotes.at.push(q[0]);
        quotes.text += normalise(wording(q[1])) + "\n";
      });
    }
    var found = phrasesOf(raw, false), phrases = found.phrases, names = found.names;
    // A status (a cuBLAS status, an NCCL error, a CUDA error's older form) names one message: the
    // error entry that has it opens first, as the entry that quotes a message in a text block does
    // (a short paste's other words, "THCudaCheck FAIL file=… line=84 error=74", ranked another page first)
    if (KEY.test(raw) && phrases.length) {
      var entry = entryWith(phrases[0]);
      if (entry !== null) return { location: entry };
    }
    // a section's title or text has it: the ranking finds that section
    if (phrases.some(function (p) { return corpus.indexOf(p) >= 0; })) return { location: null };
    // or has it with other values (QUOTED_VALUE)
    if (raw.search(QUOTED_VALUE) >= 0) {
      if (!valueCorpus) valueCorpus = docs.map(function (d) { return normalise(wording(d.title + " " + d.text, true)); }).join("\n");
      if (phrasesOf(raw, true).phrases.some(function (p) { return valueCorpus.indexOf(p) >= 0; })) return { location: null };
    }
    // or the paste holds an entry's whole title, a message shorter than a phrase ("received 0
    // items of ancdata" in a sentence about it: its six-word phrases are the asker's words)
    if (!shortTitles) {
      shortTitles = titlesOfEntries().map(function (e) { return e[1]; }).filter(function (t) {
        var w = t.trim().split(" ");
        return w.length >= 3 && w.length < WINDOW && w.filter(informative).length >= 2;
      });
    }
    var whole = normalise(wording(raw));
    if (shortTitles.some(function (t) { return names(t) && whole.indexOf(t) >= 0; })) return { location: null };
    // else the text block that holds most of its phrases (a whole variant, not an output sharing a few)
    var counts = new Map(), best = -1;
    phrases.forEach(function (p) {
      var seen = new Set();
      for (var at = quotes.text.indexOf(p); at >= 0; at = quotes.text.indexOf(p, at + 1)) {
        var lo = pieceAt(quotes.starts, at);
        if (!seen.has(lo)) { seen.add(lo); counts.set(lo, (counts.get(lo) || 0) + 1); }
      }
    });
    counts.forEach(function (n, piece) { if (best < 0 || n > counts.get(best)) best = piece; });
    return best >= 0 ? { location: quotes.at[best] } : null;
  }

  var TORCH_VERSION = /\b(?:torch|pytorch)(?:\s*version)?\s*(?:==|=|:|v)?\s*([12]\.\d{1,2}(?:\.\d{1,2})?(?:\+\w+)?)(?![\d.])/i;
  var NOTICE = {};  // the notice's words per language (search_families.json, at SETUP)

  // The family item for a pasted message no page quotes, or null.
  // ``fallback`` ({page, name}) stands for the family when no shape matches: the error
  // reference page the ranking put first.
  function familyItem(raw, language, fallback) {
    var family = null;
    // the lines torch adds to every CUDA error name no family ("…to enable device-side
    // assertions" is not a device-side assertion)
    var own = raw.replace(BOILERPLATE, " ");
    for (var i = 0; i < FAMILIES.length && !family; i++) if (FAMILIES[i].shape.test(own)) family = FAMILIES[i];
    if (!family && fallback && !FAMILIES.some(function (f) { return f.shape.test(own); })) family = fallback;
    if (!family || documented(raw)) return null;
    var prefix = language === "zh" ? "" : language + "/";
    var url = new URL(prefix + family.page, "https://x.invalid/");
    url.searchParams.set("undocumented", raw.slice(0, 500));
    var version = TORCH_VERSION.exec(raw);
    if (version) url.searchParams.set("torch", version[1]);
    var words = NOTICE[language] || NOTICE.en;
    if (!words) return null;
    var quoted = raw.length > 120 ? raw.slice(0, 117) + "…" : raw;
    return {
      location: url.href.slice("https://x.invalid/".length),
      title: words.title + " · " + escapeHtml(family.name),
      text: "<code>" + escapeHtml(quoted) + "</code> " + words.text.replace("{family}", escapeHtml(family.name)),
      score: 1e9,
      terms: {},
      family: family.page
    };
  }

  function escapeHtml(s) {
    return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
  }

  function search(raw) {
    var asPasted = raw;
    raw = pasted(raw);
    var message = MESSAGE.test(raw) && !asked(raw) || raw.length >= PASTE_LENGTH && !asked(raw) && !HAN.test(raw);
    var family = message ? familyItem(asPasted, language()) : null;
    var none = { items: family ? [[family]] : [] };
    var groups = parse(raw, false);
    if (!groups.length) groups = parse(raw, true);
    var known = groups.filter(function (g) { return rarity(g) > 0; });
    if (!known.length) return none;
    var sections = rank(known);
    var pages = new Map();
    sections.forEach(function (s) {
      var page = docs[s.d].page;
      if (!pages.has(page)) pages.set(page, []);
      pages.get(page).push(s);
    });
    // a page whose title names what the query asks about is about it
    var weights = known.map(function (g) { return g.w * rarity(g); });
    var all = weights.reduce(function (a, b) { return a + b; }, 0);
    var termsOf = known.map(function (g) {
      return groupTerms(g).map(function (t) { return ids.get(t); });
    });
    var ranked = [];
    pages.forEach(function (list, page) {
      list.sort(function (x, y) { return y.score - x.score; });
      var score = 0;
      for (var i = 0, f = 1; i < list.length && i < SECTIONS_SUMMED; i++, f *= DECAY) score += f * list[i].score;
      var title = docs[page].titleIds, named = 0;
      termsOf.forEach(function (list, g) {
        if (list.some(function (id) { return title.indexOf(id) >= 0; })) named += weights[g];
      });
      var path = docs[page].location.split("#")[0];
      var hub = HUB.test(path) ? HUB_WEIGHT : BROAD.test(path) ? BROAD_WEIGHT :
        !message && ERRORS.test(path) ? ERRORS_WEIGHT : 1;
      ranked.push({ page: page, score: hub * score * (1 + PAGE_TITLE_BOOST * named / all), sections: list });
    });
    ranked.sort(function (x, y) { return y.score - x.score; });
    // a message a section quotes in a text block (its other forms, "Also pasted as", a block's
    // output) opens that section, first: the index's texts leave text blocks out
    var quote = message && !family ? documented(asPasted) : null;
    var quoting = quote && quote.location !== null ? byLocation.get(quote.location) : undefined;
    if (quoting !== undefined) {
      var home = docs[quoting].page, entry = null;
      ranked = ranked.filter(function (r) { if (r.page === home) entry = r; return r.page !== home; });
      var best = ranked.length ? ranked[0].score : 1;
      entry = entry || { page: home, score: best, sections: [] };
      var others = entry.sections.filter(function (s) { return s.d !== quoting; });
      entry.sections = [{ d: quoting, score: others.length ? others[0].score : 1 }].concat(others);
      entry.score = Math.max(entry.score, best);
      ranked.unshift(entry);
    }
    if (message && !family && ranked.length) {  // no shape: the first error reference page, if it is one,
      // or, for a line that starts as a message does ("Warning: …", "ValueError: …"), the error
      // reference page ranked highest (a topic page may rank above it: a warning's words are
      // often in the page's advice); a question that names an error keeps its topic page
      var firstError = STARTS_AS_MESSAGE.test(raw) ?
        ranked.filter(function (r) { return ERRORS.test(docs[r.page].location); })[0] : ranked[0];
      var first = firstError && docs[firstError.page];
      if (first && ERRORS.test(first.location) && firstError.score >= ranked[0].score * 0.15) {
        family = familyItem(asPasted, language(), {
          page: first.location.replace(/^en\//, "").split("#")[0],
          name: first.title.replace(/<[^>]*>/g, "")
        });
      }
    }
    if (!ranked.length) return none;
    var floor = ranked[0].score * 0.15;  // pages far below the best are noise
    ranked = ranked.filter(function (r) { return r.score >= floor; }).slice(0, MAX_PAGES);

    var terms = new Set();
    var labels = {};
    known.forEach(function (g) {
      labels[g.label] = false;
      groupTerms(g).forEach(function (t) { terms.add(t); });
    });
    var items = ranked.map(function (r) {
      var top = r.sections[0].score;
      var group = r.sections.slice(0, MAX_SECTIONS).map(function (s) {
        var doc = docs[s.d];
        var hit = {};
        known.forEach(function (g) {
          hit[g.label] = groupTerms(g).some(function (t) {
            var id = ids.get(t);
            if (id === undefined) return false;
            for (var i = postStart[id]; i < postStart[id + 1]; i++) if (postDoc[i] === s.d) return true;
            return false;
          });
        });
        return {
          // a variant of a message opens its entry (search_per_language.variant_openings)
          location: doc.open || doc.location,
          title: mark(doc.title, terms).replace(CJK_GAP, "$1"),
          text: teaser(doc.text, terms).replace(CJK_GAP, "$1"),
          score: s.score / top * r.score,
          terms: hit
        };
      });
      // The result opens the best section (Material's main link is the item
      // without "#", or else the last one): a pasted message lands on its entry,
      // highlighted, not on the top of the page.
      // Material shows that item as the card's title with no text of its own, the
      // next section's title and text under it: the card read as one section's
      // title over another's excerpt (review 2026-12-06, problem 10). Its own
      // text goes under its title (Material writes a title as HTML).
      if (group[0].location.indexOf("#") >= 0) {
        var best = group.shift(), at = best.location.split("#")[1];
        if (best.text) best.title += '<span class="devguide-teaser">' + best.text + "</span>";
        return group.filter(function (item) {
          return item.location !== docs[r.page].location && item.location.split("#")[1] !== at;
        }).concat([best]);
      }
      return group;
    });
    if (family) items.unshift([family]);
    return { items: items };
  }

  // The language of the index: English locations start with "en/", Chinese ones at the root.
  function language() {
    return docs.length && docs[0].location.indexOf("en/") === 0 ? "en" : "zh";
  }

  // How a query is read: its groups and terms, and how many of its Chinese
  // characters fall in words the index has, cut by Intl.Segmenter alone and
  // by cutHan (which the search uses)
  function explain(raw) {
    var runs = raw.normalize("NFKC").match(/[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+/g) || [];
    var out = { chars: 0, segmenter: 0, cut: 0, groups: [] };
    runs.forEach(function (run) {
      out.chars += run.length;
      segments(run).forEach(function (s) { if (hanCount.has(s.word)) out.segmenter += s.word.length; });
      cutHan(run).forEach(function (w) { if (hanCount.has(w.word)) out.cut += w.word.length; });
    });
    out.groups = parse(raw, false).map(function (g) { return { label: g.label, w: g.w, terms: groupTerms(g) }; });
    return out;
  }

  // ------------------------------------------------------------------ messages

  // The index comes in two parts (devguide/mkdocs_plugin/hooks/search_per_language.py): Material's
  // request brings every section's title, code names and the first ≈500
  // characters of its text, enough for a first answer; the rest of the text
  // (config.rest, relative to the site root) is fetched once that answer is
  // out (or a second after the index, if the reader has not typed yet). Then
  // the index is built again and the reader's last query answered again:
  // Material shows whichever answer came last. The offline build has no rest.
  var rest = { url: null, state: "none", timer: null, lastQuery: null, synonyms: null };

  function loadRest() {
    if (rest.state !== "pending") return;
    rest.state = "loading";
    clearTimeout(rest.timer);
    fetch(new URL(rest.url, new URL("../../", self.location.href)).href)
      .then(function (response) {
        if (!response.ok) throw new Error("HTTP " + response.status);
        return response.json();
      })
      .then(function (more) {
        if (!more || !Array.isArray(more.text) || more.text.length !== docs.length) {
          throw new Error("the rest of the index does not match its first part");
        }
        var started = Date.now();
        if (Array.isArray(more.quoted)) { QUOTED = more.quoted; quotes = null; }
        build(docs.map(function (doc, i) {
          var entry = {};
          for (var key in doc) if (key !== "page") entry[key] = doc[key];
          if (more.text[i]) entry.text = doc.text + " " + more.text[i];
          return entry;
        }));
        setSynonyms(rest.synonyms);
        rest.state = "complete";
        postMessage({ type: COMPLETE, ms: Date.now() - started });
        if (rest.lastQuery !== null) postMessage(handle({ type: QUERY, data: rest.lastQuery }));
      })
      .catch(function (err) {  // the first part still answers
        rest.state = "failed";
        console.warn("search: the rest of the index could not be loaded", err);
        postMessage({ type: COMPLETE, failed: String(err) });
      });
  }

  function handle(message) {
    switch (message.type) {
      case SETUP:
        var started = Date.now();
        if (!segmenter) warmUp();
        var settings = message.data.config || {};
        build(message.data.docs);
        setSynonyms(settings.synonyms);
        var families = settings.families || {};
        FAMILIES = (families.families || []).map(function (f) {
          return { shape: new RegExp(f.shape, f.flags || ""), page: f.page, name: f.name };
        });
        GENERIC = new Set(families.generic || []);
        BOILERPLATE = new RegExp((families.boilerplate || ["$^"]).join("|"), "gi");
        NOT_WORDING = notWording(families.not_wording || []);
        KEY = new RegExp(families.key || "$^", "i");
        QUOTED = families.quoted || [];
        quotes = null;
        NOTICE = families.notice || {};
        rest = { url: settings.rest || null, state: settings.rest ? "pending" : "complete",
                 timer: null, lastQuery: null, synonyms: settings.synonyms };
        if (rest.url) rest.timer = setTimeout(loadRest, 1000);
        return { type: READY, ms: Date.now() - started, complete: !rest.url };
      case QUERY:
        rest.lastQuery = String(message.data || "");
        try {
          var t0 = Date.now();
          var data = search(String(message.data || ""));
          return { type: RESULT, data: data, query: message.data, ms: Date.now() - t0, complete: rest.state !== "pending" && rest.state !== "loading" };
        } catch (err) {
          console.warn("search failed for " + JSON.stringify(message.data), err);
          return { type: RESULT, data: { items: [] }, query: message.data };
        }
      case EXPLAIN:
        return { type: EXPLAINED, data: explain(String(message.data || "")), query: message.data };
      default:
        throw new TypeError("Invalid message type");
    }
  }

  // Warm-up, while the page loads and long before the index comes (it is only
  // fetched when the reader goes for the search box): the word segmenter loads
  // its data, and the code that builds the index and answers a query runs on a
  // small made-up index, so that the JavaScript engine has compiled it by the
  // time the reader's first query waits for the real one.
  function warmUp() {
    if (typeof Intl !== "undefined" && Intl.Segmenter) {
      segmenter = new Intl.Segmenter("zh", { granularity: "word" });
      Array.from(segmenter.segment("预热分词器"));
    }
    if (docs.length) return;
    var text = "<p>把 模型 和 数据 放到 GPU 上 ， 用 的 是 <code>Tensor.to(device)</code> 。 " +
      "The DataLoader loads batches; torch.cuda.synchronize() waits &amp; set_to_none=True " +
      "pinned memory non-blocking copies float16 tensors.</p> <ul><li>锁页 内存 与 异步 拷贝</li></ul>";
    var fake = [];
    for (var i = 0; i < 60; i++) {
      fake.push({ location: "p" + (i >> 2) + "/" + (i & 3 ? "#s" + i : ""), title: "标题 Title " + i, text: text + " word" + i });
    }
    build(fake);
    setSynonyms({});
    ["怎么把模型放到GPU上", "torch.cuda.synchronize", "pinned memry", "data loader"].forEach(search);
    docs = [];
  }

  self.addEventListener("message", function (ev) {
    postMessage(handle(ev.data));
    if (ev.data && ev.data.type === QUERY && rest.state === "pending") setTimeout(loadRest, 0);
  });
  setTimeout(warmUp, 0);
})();
