// Real position tables for the page's Worker (web/js/core/table-worker.js). The
// Worker reads only what is asked for with File.slice and hands the bytes in:
//
//   lab.tableFormat(first)                                   → 'safetensors' | 'npy'
//   lab.safetensorsHeaderLength({ bytes: first8, fileSize }) → n (then read bytes 8 … 8+n)
//   lab.tableTensors({ format, header, fileSize, tensor? })  → { tensors, picked }
//   lab.tableAnalyze({ format, header, fileSize, tensor?, bytes, … }) → figures + the table
//
// header is the JSON header (safetensors) or the file's first bytes (npy, up to
// limits.npyPrefixBytes). Every call re-checks the header itself: nothing the
// page passes back is trusted.
#include <emscripten/bind.h>

#include <cmath>
#include <string>
#include <vector>

#include "convert.hpp"
#include "poslab/errors.hpp"
#include "poslab/positional.hpp"
#include "poslab/tables.hpp"

namespace poslab::wasm {
namespace {

std::vector<std::uint8_t> bytes_of(const Options& in, const char* key, std::uint64_t max) {
    if (!in.has(key)) throw InvalidArgument("missing_option", std::string("the table call needs ") + key, {{"option", key}});
    const val v = in.get(key);
    if (!v.instanceof(val::global("Uint8Array")))
        throw InvalidArgument("bad_option_type", std::string(key) + " must be a Uint8Array, got " + js_type(v), {{"option", key}});
    const double n = v["length"].as<double>();
    if (n > double(max))
        throw InvalidArgument("table_too_large", std::string(key) + " is " + std::to_string(std::uint64_t(n)) +
                                                     " bytes; at most " + std::to_string(max),
                              {{"tensor", key}, {"shape", std::to_string(std::uint64_t(n))}, {"maxRows", std::to_string(kMaxTableRows)},
                               {"maxCols", std::to_string(kMaxTableCols)}, {"maxValues", std::to_string(kMaxTableValues)}});
    std::vector<std::uint8_t> out(static_cast<std::size_t>(n));
    val view(emscripten::typed_memory_view(out.size(), out.data()));
    view.call<void>("set", v);
    return out;
}

std::uint64_t file_size_of(const Options& in) {
    if (!in.has("fileSize")) throw InvalidArgument("missing_option", "the table call needs fileSize", {{"option", "fileSize"}});
    const double d = in.number("fileSize", 0);
    if (!(d >= 0) || d > 9007199254740991.0 || std::floor(d) != d)
        throw InvalidArgument("bad_option_type", "fileSize must be a whole number of bytes", {{"option", "fileSize"}});
    return static_cast<std::uint64_t>(d);
}

val shape_of(const std::vector<std::uint64_t>& s) {
    val a = val::array();
    for (std::uint64_t v : s) a.call<void>("push", double(v));
    return a;
}

val entry_of(const TensorEntry& t) {
    val e = val::object();
    e.set("name", t.name);
    e.set("dtype", t.dtype);
    e.set("shape", shape_of(t.shape));
    e.set("begin", double(t.begin));
    e.set("end", double(t.end));
    return e;
}

std::vector<TensorEntry> tensors_of(const Options& in, std::uint64_t file_size) {
    const std::string format = in.string("format", "");
    if (format == "npy") {
        const auto prefix = bytes_of(in, "header", kNpyPrefixBytes);
        return {npy_tensor(prefix.data(), prefix.size(), file_size)};
    }
    if (format != "safetensors")
        throw InvalidArgument("bad_option_type", "format must be 'safetensors' or 'npy'", {{"option", "format"}});
    const auto h = bytes_of(in, "header", kMaxSafetensorsHeader);
    return safetensors_tensors(std::string(h.begin(), h.end()), file_size);
}

val summary_of(const xt::xtensor<float, 2>& table, const Options& in) {
        TableAnalysisOptions o;
        o.components = in.whole("components", 3, 8);
        o.max_distance = in.whole("maxDistance", 256, 4096);
        o.max_heatmap_rows = in.whole("maxHeatmapRows", 256, 1024);
        const TableSummary s = analyze_table(table, o);
        val out = val::object();
        val shape = val::array();
        shape.call<void>("push", s.rows);
        shape.call<void>("push", s.cols);
        out.set("shape", shape);
        out.set("table", matrix(table));
        auto doubles = [](const std::vector<double>& v) {
            val a = val::array();
            for (double x : v) a.call<void>("push", x);
            return a;
        };
        auto wholes = [](const std::vector<std::size_t>& v) {
            val a = val::array();
            for (std::size_t x : v) a.call<void>("push", x);
            return a;
        };
        out.set("norms", doubles(s.norms));
        out.set("heatmapRows", wholes(s.heatmap_rows));
        out.set("similarity", matrix(s.similarity));
        out.set("neighbour", doubles(s.neighbour));
        val pca = val::object();
        pca.set("variance", doubles(s.variance));
        pca.set("explained", doubles(s.explained));
        pca.set("totalVariance", s.total_variance);
        pca.set("rows", wholes(s.pca_rows));
        {  // Float64Array: a float32 copy would overflow to ±Infinity for values near ±3.4e38.
            val proj = val::object();
            val pshape = val::array();
            pshape.call<void>("push", s.projection.shape(0));
            pshape.call<void>("push", s.projection.shape(1));
            proj.set("shape", pshape);
            proj.set("data", val::global("Float64Array").new_(emscripten::typed_memory_view(s.projection.size(), s.projection.data())));
            pca.set("projection", proj);
        }
        pca.set("iterations", s.iterations);
        pca.set("converged", s.converged);
        out.set("pca", pca);
        return out;
}

val table_format_js(val first) {
    return guarded([&] {
        if (!first.instanceof(val::global("Uint8Array")))
            throw InvalidArgument("bad_option_type", "tableFormat takes the file's first bytes as a Uint8Array", {{"option", "bytes"}});
        const std::size_t n = std::min<double>(first["length"].as<double>(), 8);
        std::vector<std::uint8_t> b(n);
        for (std::size_t i = 0; i < n; ++i) b[i] = first[i].as<std::uint8_t>();
        return val(table_format(b.data(), b.size()));
    });
}

val header_length_js(val options) {
    return guarded([&] {
        Options in(options, "safetensorsHeaderLength", {"bytes", "fileSize"});
        const auto b = bytes_of(in, "bytes", 64);
        return val(double(safetensors_header_length(b.data(), b.size(), file_size_of(in))));
    });
}

val table_tensors_js(val options) {
    return guarded([&] {
        Options in(options, "tableTensors", {"format", "header", "fileSize", "tensor"});
        const auto tensors = tensors_of(in, file_size_of(in));
        val list = val::array();
        for (const auto& t : tensors) list.call<void>("push", entry_of(t));
        val out = val::object();
        out.set("tensors", list);
        val suggested = val::array();
        for (const auto& s : suggested_table_names()) suggested.call<void>("push", s);
        out.set("suggested", suggested);
        try {
            out.set("picked", entry_of(pick_table(tensors, in.string("tensor", ""))));
        } catch (const InvalidArgument& e) {
            // No pick yet is not a failure here: the page lists the tensors.
            if (in.has("tensor") || (e.code() != "table_no_tensor")) throw;
            out.set("picked", val::null());
        }
        return out;
    });
}

val table_analyze_js(val options) {
    return guarded([&] {
        Options in(options, "tableAnalyze", {"format", "header", "fileSize", "tensor", "bytes", "components",
                                             "maxDistance", "maxHeatmapRows"});
        const std::uint64_t size = file_size_of(in);
        const auto tensors = tensors_of(in, size);
        const TensorEntry& t = pick_table(tensors, in.string("tensor", ""));
        const auto bytes = bytes_of(in, "bytes", kMaxTableValues * 4);
        const auto table = decode_table(t, bytes.data(), bytes.size());
        val out = summary_of(table, in);
        out.set("tensor", entry_of(t));
        return out;
    });
}

// A table the page already has (the lab's own trained table) or sinusoidal's
// at a given shape, with the same figures: { rows, cols, data: Float32Array }
// or { rows, cols, scheme: 'sinusoidal' }.
val table_summary_js(val options) {
    return guarded([&] {
        Options in(options, "tableSummary", {"rows", "cols", "data", "scheme", "base", "components", "maxDistance", "maxHeatmapRows"});
        const std::size_t rows = in.whole("rows", 0, double(kMaxTableRows)), cols = in.whole("cols", 0, double(kMaxTableCols));
        if (rows == 0 || cols == 0 || std::uint64_t(rows) * cols > kMaxTableValues)
            throw InvalidArgument("table_too_large", "rows and cols must be 1 or more with at most " + std::to_string(kMaxTableValues) + " values",
                                  {{"tensor", "table"}, {"shape", "[" + std::to_string(rows) + ", " + std::to_string(cols) + "]"},
                                   {"maxRows", std::to_string(kMaxTableRows)}, {"maxCols", std::to_string(kMaxTableCols)},
                                   {"maxValues", std::to_string(kMaxTableValues)}});
        xt::xtensor<float, 2> table;
        if (in.has("scheme")) {
            if (in.string("scheme", "") != "sinusoidal")
                throw InvalidArgument("bad_option_type", "scheme must be 'sinusoidal' (a learned table is given as data)", {{"option", "scheme"}});
            table = sinusoidal_encoding(rows, cols, in.number("base", kDefaultBase));
        } else {
            if (!in.has("data") || !in.get("data").instanceof(val::global("Float32Array")))
                throw InvalidArgument("bad_option_type", "data must be a Float32Array of rows × cols values", {{"option", "data"}});
            const val data = in.get("data");
            if (data["length"].as<double>() != double(rows) * double(cols))
                throw InvalidArgument("bad_option_type", "data must hold rows × cols values", {{"option", "data"}});
            TensorEntry t;
            t.name = "table", t.dtype = "F32", t.shape = {rows, cols};
            std::vector<std::uint8_t> bytes(rows * cols * 4);
            val u8 = val::global("Uint8Array").new_(data["buffer"], data["byteOffset"], rows * cols * 4);
            val view(emscripten::typed_memory_view(bytes.size(), bytes.data()));
            view.call<void>("set", u8);
            table = decode_table(t, bytes.data(), bytes.size());
        }
        return summary_of(table, in);
    });
}

// What tableAnalyze will do for a rows × cols table (table_plan): the page says
// it while the figures are computed.
val table_plan_js(val options) {
    return guarded([&] {
        Options in(options, "tablePlan", {"rows", "cols", "components", "maxDistance", "maxHeatmapRows"});
        const std::size_t rows = in.whole("rows", 0, double(kMaxTableRows)), cols = in.whole("cols", 0, double(kMaxTableCols));
        if (rows == 0 || cols == 0 || std::uint64_t(rows) * cols > kMaxTableValues)
            throw InvalidArgument("table_too_large", "rows and cols must be 1 or more with at most " + std::to_string(kMaxTableValues) + " values",
                                  {{"tensor", "table"}, {"shape", "[" + std::to_string(rows) + ", " + std::to_string(cols) + "]"},
                                   {"maxRows", std::to_string(kMaxTableRows)}, {"maxCols", std::to_string(kMaxTableCols)},
                                   {"maxValues", std::to_string(kMaxTableValues)}});
        TableAnalysisOptions o;
        o.components = in.whole("components", 3, 8);
        o.max_distance = in.whole("maxDistance", 256, 4096);
        o.max_heatmap_rows = in.whole("maxHeatmapRows", 256, 1024);
        const TablePlan plan = table_plan(rows, cols, o);
        val out = val::object();
        out.set("heatmapRows", plan.heatmap_rows);
        out.set("distances", plan.distances);
        out.set("pcaRows", plan.pca_rows);
        out.set("eigenSteps", plan.eigen_steps);
        return out;
    });
}

}  // namespace
}  // namespace poslab::wasm

EMSCRIPTEN_BINDINGS(poslab_tables) {
    emscripten::function("raw_tablePlan", &poslab::wasm::table_plan_js);
    using namespace poslab::wasm;
    emscripten::function("raw_tableFormat", &table_format_js);
    emscripten::function("raw_safetensorsHeaderLength", &header_length_js);
    emscripten::function("raw_tableTensors", &table_tensors_js);
    emscripten::function("raw_tableAnalyze", &table_analyze_js);
    emscripten::function("raw_tableSummary", &table_summary_js);
}
