/*
 * Position Lab embed kit for course pages. Include it once on the host page:
 *
 *   <iframe data-position-lab title="…"
 *     src="https://lab.example.edu/position-lab/index.html?exercise=hand-calc&embed=1
 *          &parentOrigin=https://course.example.edu&learner=s1234567"></iframe>
 *   <script src="https://lab.example.edu/position-lab/embed.js"></script>
 *
 * It sizes every iframe[data-position-lab] to its content and re-dispatches
 * the lab's xAPI statements as DOM events:
 *
 *   window.addEventListener('positionlab:statement', (e) => e.detail.statement);
 *   iframe.addEventListener('positionlab:statement', …);   // the same, on the frame
 *   'positionlab:resize' (detail.height) likewise.
 *
 * A message counts only if it comes from one of those iframes AND from the
 * origin of its src (or of data-position-lab-origin): a frame that navigated
 * elsewhere, or any other window, is ignored. A lab opened from file:// has
 * the origin "null"; that is what such a frame's src gives, and is accepted
 * only from that frame's window.
 *
 * It speaks H5P's resizer protocol (ready / hello / prepareResize →
 * resizePrepared / resize, {context: 'h5p'}) and Canvas's
 * {subject: 'lti.frameResize', height}; statements arrive as
 * {context: 'h5p', action: 'xAPI', statement}. The lab's side is
 * web/js/grading/embed-bridge.js.
 *
 * window.PositionLabEmbed: { frames(), statements, ignored, setLearner(iframe, id), stop() }.
 */
(function (root) {
  'use strict';

  var MAX_HEIGHT = 100000; // px; anything larger (or not a number) is not a height

  function start(options) {
    var win = (options && options.window) || root;
    var doc = win.document;
    var selector = (options && options.selector) || 'iframe[data-position-lab]';
    var api = { statements: [], ignored: [] };

    function frames() {
      return Array.prototype.slice.call(doc.querySelectorAll(selector));
    }

    // The origin a frame's messages must come from: its src's. A file: src
    // has an opaque origin, "null" by the URL spec (Chromium's messages
    // from file: pages say "file://"): both stand for it.
    function expectedOrigin(iframe) {
      var declared = iframe.getAttribute('data-position-lab-origin');
      if (declared) return declared;
      try {
        return new win.URL(iframe.getAttribute('src') || '', doc.baseURI).origin;
      } catch (e) {
        return undefined;
      }
    }
    function fromExpected(eventOrigin, origin) {
      return eventOrigin === origin || (opaque(origin) && opaque(eventOrigin));
    }

    // postMessage cannot address an opaque origin: such a frame is answered
    // with '*', which only ever carries the handshake (no learner data).
    function opaque(origin) {
      return origin === 'null' || origin === 'file://';
    }
    function targetOf(origin) {
      return opaque(origin) ? '*' : origin;
    }

    function emit(target, type, detail) {
      target.dispatchEvent(new win.CustomEvent(type, { detail: detail }));
    }

    function setHeight(iframe, height, origin) {
      if (typeof height === 'string') height = parseFloat(height);
      if (typeof height !== 'number' || !isFinite(height) || height < 0 || height > MAX_HEIGHT) {
        api.ignored.push({ reason: 'bad height', height: height, origin: origin });
        return;
      }
      iframe.style.height = Math.ceil(height) + 'px';
      var detail = { height: Math.ceil(height), iframe: iframe, origin: origin };
      emit(iframe, 'positionlab:resize', detail);
      emit(win, 'positionlab:resize', detail);
    }

    function onMessage(event) {
      var iframe = null;
      var list = frames();
      for (var i = 0; i < list.length; i++) {
        if (list[i].contentWindow === event.source) iframe = list[i];
      }
      if (!iframe) return; // not one of ours: H5P's own resizer or others may handle it
      var origin = expectedOrigin(iframe);
      if (!fromExpected(event.origin, origin)) {
        api.ignored.push({ reason: 'origin', origin: event.origin, expected: origin });
        return;
      }
      var d = event.data;
      if (!d || typeof d !== 'object') return;
      var reply = function (action) {
        event.source.postMessage({ context: 'h5p', action: action }, targetOf(origin));
      };
      if (d.subject === 'lti.frameResize') setHeight(iframe, d.height, origin);
      else if (d.context === 'h5p') {
        if (d.action === 'hello') reply('hello');
        else if (d.action === 'prepareResize') reply('resizePrepared');
        else if (d.action === 'resize') setHeight(iframe, d.scrollHeight, origin);
        else if (d.action === 'xAPI' && d.statement && typeof d.statement === 'object') {
          var detail = { statement: d.statement, iframe: iframe, origin: origin };
          api.statements.push(detail);
          emit(iframe, 'positionlab:statement', detail);
          emit(win, 'positionlab:statement', detail);
        }
      }
    }

    function sayReady(iframe) {
      var origin = expectedOrigin(iframe);
      if (origin && iframe.contentWindow) iframe.contentWindow.postMessage({ context: 'h5p', action: 'ready' }, targetOf(origin));
    }

    // A frame that (re)loads is told the host is ready, as h5p-resizer does.
    function onLoad(event) {
      var t = event.target;
      if (t && t.matches && t.matches(selector)) sayReady(t);
    }

    // The host window changed size: the labs re-measure.
    function onResize() {
      frames().forEach(function (iframe) {
        var origin = expectedOrigin(iframe);
        if (origin && iframe.contentWindow) iframe.contentWindow.postMessage({ context: 'h5p', action: 'resize' }, targetOf(origin));
      });
    }

    win.addEventListener('message', onMessage);
    doc.addEventListener('load', onLoad, true);
    win.addEventListener('resize', onResize);
    frames().forEach(sayReady);

    api.frames = frames;
    api.setLearner = function (iframe, learner) {
      var origin = expectedOrigin(iframe);
      if (!origin || opaque(origin)) throw new Error('PositionLabEmbed.setLearner: the frame has no addressable origin (a file:// lab gets its learner id from the URL)');
      iframe.contentWindow.postMessage({ context: 'position-lab', action: 'learner', learner: String(learner) }, origin);
    };
    api.stop = function () {
      win.removeEventListener('message', onMessage);
      doc.removeEventListener('load', onLoad, true);
      win.removeEventListener('resize', onResize);
    };
    return api;
  }

  if (typeof module === 'object' && module.exports) {
    module.exports = { start: start };
  } else if (root && root.document && !root.PositionLabEmbed) {
    root.PositionLabEmbed = start({ window: root });
    root.PositionLabEmbed.start = start;
  }
})(typeof window !== 'undefined' ? window : this);
