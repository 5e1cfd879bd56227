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
    function install(lab) {
      Object.keys(lab).forEach(function (key) {
        if (key.indexOf('json_') === 0) {
          var rawJson = lab[key];
          lab[key.slice(5)] = function (options) {
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
