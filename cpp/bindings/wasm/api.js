// Appended after Emscripten's glue (--extern-post-js). Wraps the factory so
// that every raw_* binding becomes a plain method that throws a JS Error (with
// .code and .params for the page's translations) instead of returning an
// error record. Errors are returned, not thrown, from C++: a JS exception
// unwinding through C++ frames would skip destructors and leak handles.
(function () {
  // Self-contained (no outside names), so that its source text can be copied
  // into a Worker (scriptSource below).
  function wrap(rawFactory) {
    function toError(record) {
      var e = new Error(record.message);
      e.name = 'PositionLabError';
      e.code = record.code;
      e.params = record.params;
      return e;
    }
    // Text crosses into C++ as UTF-8, and a lone UTF-16 surrogate has no UTF-8
    // form: Emscripten's encoder would pair it with whatever follows (another
    // character, and the next one dropped). So every string in the options
    // (values and keys, nested) is checked first; the first lone surrogate is
    // an 'invalid_text' error naming where it is. The walk is bounded (depth
    // and count) so that a huge or cyclic argument cannot hang it: what lies
    // beyond is left to the core's own checks.
    var LONE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?:^|[^\uD800-\uDBFF])([\uDC00-\uDFFF])/;
    function loneSurrogate(text) {
      var m = LONE.exec(text);
      if (!m) return -1;
      return m[1] === undefined ? m.index : m.index + m[0].length - 1;
    }
    function checkText(value, path, budget, depth) {
      if (typeof value === 'string') {
        var at = loneSurrogate(value);
        if (at >= 0) {
          var hex = value.charCodeAt(at).toString(16).toUpperCase();
          var where = path || 'the argument';
          // The 1-based character (code point) number, as a person counts.
          var character = Array.from(value.slice(0, at)).length + 1;
          throw toError({
            code: 'invalid_text',
            message: where + ' is not valid Unicode text: a lone surrogate (U+' + hex + ') at position ' + at + ' (UTF-16 index; character ' + character + '); text must be whole characters',
            params: { path: where, position: String(at), character: String(character), codeUnit: 'U+' + hex },
          });
        }
        return;
      }
      if (value === null || typeof value !== 'object' || depth > 64) return;
      if (ArrayBuffer.isView(value)) return;
      if (Array.isArray(value)) {
        for (var j = 0; j < value.length; j++) {
          var item = value[j];
          if (typeof item !== 'string' && (item === null || typeof item !== 'object')) continue;
          if (--budget.left < 0) return;
          checkText(item, path + '[' + j + ']', budget, depth + 1);
        }
        return;
      }
      var keys = Object.keys(value);
      for (var i = 0; i < keys.length; i++) {
        if (--budget.left < 0) return;
        checkText(keys[i], (path ? path + ': ' : '') + 'the key "' + keys[i].replace(/[\uD800-\uDFFF]/g, '\uFFFD') + '"', budget, depth + 1);
        checkText(value[keys[i]], path ? path + '.' + keys[i] : keys[i], budget, depth + 1);
      }
    }
    function checkArgument(options) {
      checkText(options, '', { left: 1000000 }, 0);
    }
    function install(lab) {
      Object.keys(lab).forEach(function (key) {
        if (key.indexOf('json_') === 0) {
          var rawJson = lab[key];
          lab[key.slice(5)] = function (options) {
            checkArgument(options);
            var text = JSON.stringify(options === undefined ? null : options);
            var record = JSON.parse(rawJson(text));
            if (record.__poslab_error === true) throw toError(record);
            return record.ok;
          };
          return;
        }
        if (key.indexOf('raw_') !== 0 || key === 'raw_limits') return;
        var raw = lab[key];
        var name = key.slice(4);
        lab[name] = function (options) {
          checkArgument(options);
          var result = raw(options);
          if (result && result.__poslab_error === true) throw toError(result);
          return result;
        };
      });
      lab.limits = lab.raw_limits();
      return lab;
    }
    var factory = function (options) {
      return rawFactory(options).then(install);
    };
    // The source of a classic script that defines this same createPositionLab,
    // for a Worker made from a blob: URL (a page opened from file:// cannot
    // start a Worker from a file). Plain text: no eval is needed to run it.
    factory.scriptSource = function () {
      return 'var createPositionLab=(' + wrap.toString() + ')((function(){var _scriptDir;return ' + rawFactory.toString() + '})());\n';
    };
    // The wasm inlined in this file (poslab.js) as bytes, so that a page can
    // compile it once and hand the WebAssembly.Module to its Workers; null
    // when the wasm is a separate file (poslab-web.js + poslab.wasm).
    factory.inlinedWasm = function () {
      var m = /data:application\/octet-stream;base64,([A-Za-z0-9+\/=]+)/.exec(rawFactory.toString());
      if (!m) return null;
      var text = atob(m[1]);
      var bytes = new Uint8Array(text.length);
      for (var i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
      return bytes;
    };
    return factory;
  }
  createPositionLab = wrap(createPositionLab);
  if (typeof module === 'object' && module.exports) module.exports = createPositionLab;
})();
