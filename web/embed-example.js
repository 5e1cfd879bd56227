// The example course page's script (web/embed-example.html): embeds the lab's
// exercises and lists the statements it receives. A file of its own so that
// the page's CSP can refuse every inline script.
(function () {
  'use strict';
  var q = new URLSearchParams(location.search);
  var fromFile = location.protocol === 'file:' || location.origin === 'null';
  var folder = new URL('.', location.href).href;

  // A URL parameter may only name a place on this page's own origin: an
  // http(s) path there or, for a page opened from disk, a relative path inside
  // its folder. Anything else (javascript:, data:, //other.example,
  // https://other.example) would run another site's script here, or script
  // in the lab's frames. Returns the URL, or null.
  function sameOrigin(value) {
    var url;
    try {
      url = new URL(value, location.href);
    } catch (e) {
      return null;
    }
    if (fromFile) {
      // Relative only: no scheme, no leading slash, inside this folder.
      if (/^[a-z][a-z0-9+.-]*:|^[\\/]/i.test(value.trim())) return null;
      return url.protocol === 'file:' && url.href.indexOf(folder) === 0 ? url : null;
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
    return url.origin === location.origin ? url : null;
  }
  // What the course author wrote in the page (a <meta>): trusted, but still
  // only http(s) (or file: next to a file: page).
  function configured(name) {
    var meta = document.querySelector('meta[name="' + name + '"]');
    var value = meta && meta.getAttribute('content');
    if (!value) return null;
    var url;
    try {
      url = new URL(value, location.href);
    } catch (e) {
      return null;
    }
    var ok = url.protocol === 'http:' || url.protocol === 'https:' || (fromFile && url.protocol === 'file:');
    return ok ? url : null;
  }
  function refuse(param, value) {
    var box = document.getElementById('refused');
    box.querySelectorAll('[data-slot="param"]').forEach(function (el) {
      el.textContent = '?' + param + '=';
    });
    box.querySelectorAll('[data-slot="value"]').forEach(function (el) {
      el.textContent = value;
    });
    box.hidden = false;
    document.body.setAttribute('data-refused', param);
  }

  var base = configured('position-lab-base') || new URL(folder);
  var lab = configured('position-lab-page');
  var checked = true;
  if (q.has('base')) {
    var b = sameOrigin(q.get('base').replace(/\/?$/, '/'));
    if (b) {
      base = b;
      lab = null;
    } else {
      refuse('base', q.get('base'));
      checked = false;
    }
  }
  if (checked && q.has('lab')) {
    var l = sameOrigin(q.get('lab'));
    if (l) lab = l;
    else {
      refuse('lab', q.get('lab'));
      checked = false;
    }
  }
  document.getElementById('origin').textContent = location.origin;
  if (!checked) return;
  lab = lab || new URL('index.html', base);

  var hide = q.get('hide');
  var learner = q.get('learner') || 'demo-student';
  var lang = q.get('lang') === 'en' ? 'en' : 'ja';
  var ids = (q.get('exercises') || 'hand-calc,rope').split(',').filter(Boolean);
  // A page opened from file:// has no addressable origin (Chromium shows it
  // as "file://", the spec as "null"): say '*' explicitly.
  var parentOrigin = q.get('parentOrigin') || (fromFile ? '*' : location.origin);
  var main = document.getElementById('labs');
  ids.forEach(function (id, i) {
    var url = new URL(lab.href);
    url.searchParams.set('exercise', id);
    url.searchParams.set('embed', '1');
    url.searchParams.set('parentOrigin', parentOrigin);
    url.searchParams.set('learner', learner);
    url.searchParams.set('lang', lang);
    if (hide) url.searchParams.set('hide', hide);
    var h = document.createElement('h2');
    h.textContent = '演習 ' + (i + 1) + '：' + id;
    var frame = document.createElement('iframe');
    frame.setAttribute('data-position-lab', '');
    frame.setAttribute('title', 'Position Lab: ' + id);
    frame.id = 'lab-' + id;
    frame.src = url.href;
    main.append(h, frame);
  });
  // The kit from the lab's folder, as a course page includes it
  // (<script src="https://lab.example.edu/position-lab/embed.js">).
  var kit = document.createElement('script');
  kit.src = new URL('embed.js', base).href;
  document.body.append(kit);
})();

(function () {
  'use strict';
  var body = document.getElementById('statements');
  var n = 0;
  var resizes = 0;
  var cell = function (text) {
    var td = document.createElement('td');
    td.textContent = text == null ? '' : String(text);
    return td;
  };
  window.addEventListener('positionlab:resize', function () {
    resizes += 1;
    document.getElementById('resizes').textContent = String(resizes);
  });
  window.addEventListener('positionlab:statement', function (e) {
    var s = e.detail.statement;
    var r = s.result || {};
    var score = r.score ? r.score.raw + ' / ' + r.score.max : '';
    var name = (s.object.definition && s.object.definition.name) || {};
    var tr = document.createElement('tr');
    tr.append(
      cell(s.timestamp),
      cell(s.verb.display && (s.verb.display.ja || s.verb.display['en-US'])),
      cell((name.ja || name.en || '') + ' — ' + s.object.id),
      cell(score),
      cell(r.success === undefined ? '' : r.success ? '○' : '×'),
      cell(r.response),
      cell(r.duration),
      cell(e.detail.origin)
    );
    body.append(tr);
    n += 1;
    document.getElementById('count').textContent = String(n);
  });
})();
