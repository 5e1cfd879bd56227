// Appended after Emscripten's glue (--extern-post-js). Wraps the factory so
// that every raw_* binding becomes a plain method that throws a JS Error (with
// .code and .params for the page's translations) instead of returning an
// error record. Errors are returned, not thrown, from C++: a JS exception
// unwinding through C++ frames would skip destructors and leak handles.
(function () {
  var rawFactory = createPositionLab;
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
  createPositionLab = function (options) {
    return rawFactory(options).then(install);
  };
  if (typeof module === 'object' && module.exports) module.exports = createPositionLab;
})();
