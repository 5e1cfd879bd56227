#pragma once
// Converting JS values to the core's types, strictly: an unknown option, a
// value of the wrong type, a fraction where a whole number is needed — each is
// an error naming the option and what it allows. Shared by every binding file.
#include <emscripten/val.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include <xtensor/xtensor.hpp>

#include "poslab/errors.hpp"

namespace poslab::wasm {

using emscripten::val;

inline std::string js_type(const val& v) {
    if (v.isNull()) return "null";
    if (v.isArray()) return "an array";
    std::string t = v.typeOf().as<std::string>();
    if (t == "number") {
        const double d = v.as<double>();
        if (std::isnan(d)) return "NaN";
        return "the number " + val::global("String")(v).as<std::string>();
    }
    if (t == "string") return "the string \"" + v.as<std::string>() + "\"";
    return "a " + t;
}

// Reads the properties of one options object.
class Options {
public:
    Options(const val& obj, const std::string& what, std::set<std::string> allowed) : obj_(obj), what_(what) {
        if (obj.isUndefined() || obj.isNull() || obj.typeOf().as<std::string>() != "object" || obj.isArray())
            throw InvalidArgument("bad_options", what + " takes an options object, got " +
                                                     (obj.isUndefined() ? std::string("nothing") : js_type(obj)));
        const val keys = val::global("Object").call<val>("keys", obj);
        const unsigned n = keys["length"].as<unsigned>();
        for (unsigned i = 0; i < n; ++i) {
            const std::string key = keys[i].as<std::string>();
            if (!allowed.count(key)) {
                std::string list;
                for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
                throw InvalidArgument("unknown_option", "unknown option '" + key + "' for " + what + "; allowed: " + list,
                                      {{"option", key}});
            }
        }
    }
    // Own properties only: an inherited key (Object.create({causal: true}),
    // a polluted Object.prototype) is not an option the caller gave.
    bool has(const char* key) const {
        return val::global("Object")["prototype"]["hasOwnProperty"].call<bool>("call", obj_, std::string(key)) &&
               !obj_[key].isUndefined();
    }
    val get(const char* key) const { return obj_[key]; }

    std::string string(const char* key, const std::string& fallback) const {
        if (!has(key)) return fallback;
        const val v = get(key);
        if (!v.isString()) throw type_error(key, v, "a string");
        return v.as<std::string>();
    }
    bool boolean(const char* key, bool fallback) const {
        if (!has(key)) return fallback;
        const val v = get(key);
        if (v.typeOf().as<std::string>() != "boolean") throw type_error(key, v, "true or false");
        return v.as<bool>();
    }
    double number(const char* key, double fallback) const {
        if (!has(key)) return fallback;
        const val v = get(key);
        if (v.typeOf().as<std::string>() != "number" || !std::isfinite(v.as<double>()))
            throw type_error(key, v, "a finite number");
        return v.as<double>();
    }
    std::size_t whole(const char* key, std::size_t fallback, double max = 9007199254740991.0) const {
        if (!has(key)) return fallback;
        return whole_value(get(key), key, max);
    }
    std::uint32_t seed(const char* key, std::uint32_t fallback) const {
        return static_cast<std::uint32_t>(whole(key, fallback, 4294967295.0));
    }

    static std::size_t whole_value(const val& v, const std::string& name, double max) {
        // size_t is 32 bits in wasm: larger whole numbers must be refused, not wrapped.
        max = std::min(max, static_cast<double>(SIZE_MAX));
        const bool is_number = v.typeOf().as<std::string>() == "number";
        const double d = is_number ? v.as<double>() : 0.0;
        if (!is_number || !std::isfinite(d) || d < 0 || d != std::floor(d) || d > max) {
            std::string range = " (0 or more)";
            if (max < 9007199254740991.0) {
                char buf[32];
                std::snprintf(buf, sizeof buf, " from 0 to %.0f", max);
                range = buf;
            }
            throw InvalidArgument("bad_option_type", name + " must be a whole number" + range + ", got " + js_type(v),
                                  {{"option", name}});
        }
        return static_cast<std::size_t>(d);
    }

    InvalidArgument type_error(const std::string& key, const val& v, const std::string& expected) const {
        return InvalidArgument("bad_option_type", what_ + ": " + key + " must be " + expected + ", got " + js_type(v),
                               {{"option", key}});
    }

    // number[] or typed array.
    std::vector<double> numbers(const char* key) const {
        const val v = get(key);
        if (!v.isArray() && !ArrayBufferView_is(v)) throw type_error(key, v, "an array of numbers");
        return number_list(v, key);
    }
    std::vector<std::size_t> wholes(const char* key) const {
        const val v = get(key);
        if (!v.isArray()) throw type_error(key, v, "an array of whole numbers");
        std::vector<std::size_t> out;
        const unsigned n = v["length"].as<unsigned>();
        for (unsigned i = 0; i < n; ++i)
            out.push_back(whole_value(v[i], std::string(key) + "[" + std::to_string(i) + "]", 9007199254740991.0));
        return out;
    }
    std::vector<std::string> strings(const char* key) const {
        const val v = get(key);
        if (!v.isArray()) throw type_error(key, v, "an array of strings");
        std::vector<std::string> out;
        const unsigned n = v["length"].as<unsigned>();
        for (unsigned i = 0; i < n; ++i) {
            if (!v[i].isString()) throw type_error(std::string(key) + "[" + std::to_string(i) + "]", v[i], "a string");
            out.push_back(v[i].as<std::string>());
        }
        return out;
    }
    // number[][] or a Matrix {shape: [S, D], data: Float32Array}.
    std::vector<std::vector<double>> rows(const char* key) const {
        const val v = get(key);
        if (!v.isArray() && v.typeOf().as<std::string>() == "object" && !v.isNull() && !v["shape"].isUndefined()) {
            const std::vector<std::size_t> shape = Options(v, key, {"shape", "data"}).wholes("shape");
            if (shape.size() != 2) throw InvalidArgument("bad_matrix", std::string(key) + ".shape must be [rows, columns]");
            const val data = v["data"];
            if (!ArrayBufferView_is(data) && !data.isArray())
                throw type_error(std::string(key) + ".data", data, "a Float32Array or an array of numbers");
            const unsigned n = data["length"].as<unsigned>();
            if (n != shape[0] * shape[1])
                throw InvalidArgument("bad_matrix", std::string(key) + ".data has " + std::to_string(n) +
                                                        " values but shape asks for " +
                                                        std::to_string(shape[0] * shape[1]));
            std::vector<double> flat = number_list(data, std::string(key) + ".data");
            std::vector<std::vector<double>> out(shape[0], std::vector<double>(shape[1]));
            for (std::size_t r = 0; r < shape[0]; ++r)
                std::copy(flat.begin() + r * shape[1], flat.begin() + (r + 1) * shape[1], out[r].begin());
            return out;
        }
        if (!v.isArray()) throw type_error(key, v, "an array of rows (arrays of numbers) or a Matrix");
        std::vector<std::vector<double>> out;
        const unsigned n = v["length"].as<unsigned>();
        for (unsigned i = 0; i < n; ++i) {
            const val row = v[i];
            const std::string name = std::string(key) + "[" + std::to_string(i) + "]";
            if (!row.isArray() && !ArrayBufferView_is(row)) throw type_error(name, row, "an array of numbers");
            out.push_back(number_list(row, name));
        }
        return out;
    }

private:
    static bool ArrayBufferView_is(const val& v) {
        return !v.isUndefined() && !v.isNull() && val::global("ArrayBuffer").call<bool>("isView", v);
    }
    std::vector<double> number_list(const val& v, const std::string& name) const {
        // Typed arrays hold only numbers; a plain array is checked element by
        // element, since a bulk copy would quietly turn "3" into 3.
        if (!ArrayBufferView_is(v)) {
            const unsigned n = v["length"].as<unsigned>();
            for (unsigned i = 0; i < n; ++i) {
                const val e = v[i];
                if (e.typeOf().as<std::string>() != "number")
                    throw type_error(name + "[" + std::to_string(i) + "]", e, "a number");
            }
        }
        return emscripten::convertJSArrayToNumberVector<double>(v);
    }

    val obj_;
    std::string what_;
};

// {shape, data: Float32Array}, copied out of wasm memory so memory growth cannot detach it.
template <class Tensor>
val matrix(const Tensor& t) {
    val shape = val::array();
    for (std::size_t i = 0; i < t.dimension(); ++i) shape.call<void>("push", t.shape(i));
    val out = val::object();
    out.set("shape", shape);
    out.set("data", val::global("Float32Array").new_(emscripten::typed_memory_view(t.size(), t.data())));
    return out;
}

inline val float_array(const std::vector<float>& v) {
    return val::global("Float32Array").new_(emscripten::typed_memory_view(v.size(), v.data()));
}

inline val string_array(const std::vector<std::string>& v) {
    val a = val::array();
    for (const auto& s : v) a.call<void>("push", s);
    return a;
}

// Runs f; on a C++ exception returns {__poslab_error: true, message, code, params}
// instead, which api.js turns into a thrown Error. Throwing a JS exception
// through C++ frames would skip destructors and leak Embind handles.
inline val guarded(const std::function<val()>& f) {
    std::string message, code;
    ErrorParams params;
    try {
        return f();
    } catch (const std::exception& e) {
        message = error_message(e);
        code = error_code(e);
        params = error_params(e);
    } catch (...) {
        message = "unexpected error in the Position Lab core";
    }
    val err = val::object();
    err.set("__poslab_error", true);
    err.set("message", message);
    err.set("code", code.empty() ? std::string("error") : code);
    val p = val::object();
    for (const auto& [k, v] : params) p.set(k, v);
    err.set("params", p);
    return err;
}

}  // namespace poslab::wasm
