// Real position tables: safetensors / npy parsing and the table's figures.
// See tables.hpp.
#include "poslab/tables.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <numeric>

#include <nlohmann/json.hpp>

#include "poslab/errors.hpp"

namespace poslab {
namespace {

std::string str(std::uint64_t v) { return std::to_string(v); }

std::uint64_t read_le(const std::uint8_t* p, std::size_t bytes) {
    std::uint64_t v = 0;
    for (std::size_t i = 0; i < bytes; ++i) v |= std::uint64_t(p[i]) << (8 * i);
    return v;
}

// Size in bytes of a safetensors dtype; 0 when unknown.
std::uint64_t dtype_size(const std::string& d) {
    static const std::map<std::string, std::uint64_t> sizes = {
        {"F64", 8}, {"F32", 4}, {"F16", 2}, {"BF16", 2}, {"I64", 8}, {"I32", 4}, {"I16", 2}, {"I8", 1},
        {"U64", 8}, {"U32", 4}, {"U16", 2}, {"U8", 1},  {"BOOL", 1}, {"F8_E4M3", 1}, {"F8_E5M2", 1}};
    auto it = sizes.find(d);
    return it == sizes.end() ? 0 : it->second;
}

// How a tensor is named in messages: an .npy array has no name.
std::string label_of(const TensorEntry& t) { return t.name.empty() ? std::string("the .npy array") : t.name; }

bool supported(const std::string& d) { return d == "F32" || d == "F16" || d == "BF16"; }

// product(shape), or UINT64_MAX on overflow.
std::uint64_t count_of(const std::vector<std::uint64_t>& shape) {
    std::uint64_t n = 1;
    for (std::uint64_t s : shape) {
        if (s != 0 && n > std::numeric_limits<std::uint64_t>::max() / s) return std::numeric_limits<std::uint64_t>::max();
        n *= s;
    }
    return n;
}

std::string shape_text(const std::vector<std::uint64_t>& shape) {
    std::string s = "[";
    for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + str(shape[i]);
    return s + "]";
}

// Deepest nesting of [ and { outside strings; stops counting once past the cap.
std::size_t nesting_depth(const std::string& text) {
    std::size_t depth = 0, deepest = 0;
    bool in_string = false, escaped = false;
    for (char c : text) {
        if (in_string) {
            if (escaped) escaped = false;
            else if (c == '\\') escaped = true;
            else if (c == '"') in_string = false;
            continue;
        }
        if (c == '"') in_string = true;
        else if (c == '[' || c == '{') {
            deepest = std::max(deepest, ++depth);
            if (deepest > kMaxHeaderDepth) return deepest;
        } else if ((c == ']' || c == '}') && depth > 0) --depth;
    }
    return deepest;
}

[[noreturn]] void npy_as_safetensors() {
    throw InvalidArgument("table_npy_as_safetensors",
                          "the bytes start with \\x93NUMPY: this is an .npy file, not a .safetensors file; read it as .npy "
                          "(format 'npy'; poslab table and the page tell the two apart by the first bytes, so give the file as it is)",
                          {{"format", "npy"}});
}

[[noreturn]] void bad_header(const std::string& what, ErrorParams params = {}) {
    throw InvalidArgument("table_header_bad", "the safetensors header is not valid: " + what, std::move(params));
}

}  // namespace

std::string table_format(const std::uint8_t* first, std::size_t n) {
    static const std::uint8_t magic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
    // A file shorter than the magic that starts like it is a cut-off .npy (said so), not safetensors.
    if (n > 0 && std::memcmp(first, magic, std::min<std::size_t>(n, 6)) == 0) return "npy";
    return "safetensors";
}

std::uint64_t safetensors_header_length(const std::uint8_t* first, std::size_t n, std::uint64_t file_size) {
    if (n < 8 || file_size < 8)
        throw InvalidArgument("table_truncated",
                              "the file is " + str(file_size) +
                                  " bytes: too short for a safetensors file (8 bytes of header length, then the header)",
                              {{"size", str(file_size)}, {"needed", "8"}});
    if (table_format(first, n) == "npy") npy_as_safetensors();
    const std::uint64_t len = read_le(first, 8);
    if (len > file_size - 8)
        throw InvalidArgument("table_header_past_end",
                              "the safetensors header length is " + str(len) + " bytes but the file has only " +
                                  str(file_size - 8) + " bytes after the length: the file is truncated or not safetensors",
                              {{"length", str(len)}, {"available", str(file_size - 8)}});
    if (len > kMaxSafetensorsHeader)
        throw InvalidArgument("table_header_too_large",
                              "the safetensors header is " + str(len) + " bytes; the lab reads headers up to " +
                                  str(kMaxSafetensorsHeader) + " bytes",
                              {{"length", str(len)}, {"max", str(kMaxSafetensorsHeader)}});
    if (len < 2) bad_header("it is " + str(len) + " bytes long; a JSON object needs at least 2", {{"field", "length"}});
    return len;
}

std::vector<TensorEntry> safetensors_tensors(const std::string& header, std::uint64_t file_size) {
    if (table_format(reinterpret_cast<const std::uint8_t*>(header.data()), header.size()) == "npy") npy_as_safetensors();
    if (header.size() > kMaxSafetensorsHeader)
        throw InvalidArgument("table_header_too_large",
                              "the safetensors header is " + str(header.size()) + " bytes; the lab reads headers up to " +
                                  str(kMaxSafetensorsHeader) + " bytes",
                              {{"length", str(header.size())}, {"max", str(kMaxSafetensorsHeader)}});
    if (file_size < 8 + header.size())
        throw InvalidArgument("table_header_past_end",
                              "the safetensors header is " + str(header.size()) + " bytes but the file has only " +
                                  str(file_size < 8 ? 0 : file_size - 8) + " bytes after the length",
                              {{"length", str(header.size())}, {"available", str(file_size < 8 ? 0 : file_size - 8)}});
    if (nesting_depth(header) > kMaxHeaderDepth)
        throw InvalidArgument("table_header_not_json",
                              "the safetensors header is not the JSON a safetensors file has (nested more than " +
                                  str(kMaxHeaderDepth) + " levels)",
                              {{"detail", "nesting"}});
    nlohmann::json j = nlohmann::json::parse(header, nullptr, false);
    if (j.is_discarded())
        throw InvalidArgument("table_header_not_json",
                              "the safetensors header is not JSON: the file is not a safetensors file or is damaged",
                              {{"detail", "parse"}});
    if (!j.is_object()) bad_header("it is JSON but not an object of tensors", {{"field", "(top)"}});
    const std::uint64_t data_start = 8 + header.size();
    const std::uint64_t data_size = file_size - data_start;
    std::vector<TensorEntry> out;
    for (auto it = j.begin(); it != j.end(); ++it) {
        if (it.key() == "__metadata__") continue;
        const std::string& name = it.key();
        const nlohmann::json& e = it.value();
        if (!e.is_object() || !e.contains("dtype") || !e.contains("shape") || !e.contains("data_offsets"))
            bad_header("tensor '" + name + "' needs dtype, shape and data_offsets", {{"field", name}});
        if (!e["dtype"].is_string()) bad_header("tensor '" + name + "': dtype is not a string", {{"field", name}});
        TensorEntry t;
        t.name = name;
        t.dtype = e["dtype"].get<std::string>();
        if (!e["shape"].is_array() || e["shape"].size() > 16)
            bad_header("tensor '" + name + "': shape is not a list of up to 16 sizes", {{"field", name}});
        for (const auto& s : e["shape"]) {
            if (!s.is_number_unsigned())
                bad_header("tensor '" + name + "': a size in its shape is not a whole number ≥ 0", {{"field", name}});
            t.shape.push_back(s.get<std::uint64_t>());
        }
        const auto& off = e["data_offsets"];
        if (!off.is_array() || off.size() != 2 || !off[0].is_number_unsigned() || !off[1].is_number_unsigned())
            bad_header("tensor '" + name + "': data_offsets is not two whole numbers [begin, end]", {{"field", name}});
        const std::uint64_t b = off[0].get<std::uint64_t>(), en = off[1].get<std::uint64_t>();
        if (b > en || en > data_size)
            throw InvalidArgument("table_offsets_out_of_range",
                                  "tensor '" + name + "' says its bytes are [" + str(b) + ", " + str(en) +
                                      ") of the data, but the data has " + str(data_size) +
                                      " bytes: the file is truncated or damaged",
                                  {{"tensor", name}, {"begin", str(b)}, {"end", str(en)}, {"size", str(data_size)}});
        const std::uint64_t size = dtype_size(t.dtype), count = count_of(t.shape);
        if (size != 0 && (count == std::numeric_limits<std::uint64_t>::max() || count > (en - b) / size ||
                          count * size != en - b))
            throw InvalidArgument("table_size_mismatch",
                                  "tensor '" + name + "' has shape " + shape_text(t.shape) + " of " + t.dtype + ", which is " +
                                      (count == std::numeric_limits<std::uint64_t>::max() || count > std::numeric_limits<std::uint64_t>::max() / size
                                           ? std::string("more than 2^64")
                                           : str(count * size)) +
                                      " bytes, but its data_offsets [" + str(b) + ", " + str(en) + ") hold " + str(en - b) +
                                      " bytes: the header and the data do not match",
                                  {{"tensor", name}, {"shape", shape_text(t.shape)}, {"dtype", t.dtype},
                                   {"needed", count == std::numeric_limits<std::uint64_t>::max() || count > std::numeric_limits<std::uint64_t>::max() / size ? std::string("2^64") : str(count * size)},
                                   {"size", str(en - b)}});
        t.begin = data_start + b;
        t.end = data_start + en;
        out.push_back(std::move(t));
    }
    return out;
}

namespace {

// The .npy header as the format defines it: a Python literal dict whose keys
// are exactly 'descr' (a string), 'fortran_order' (True or False) and 'shape'
// (a tuple of whole numbers), written by numpy as
//   {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }
// padded with spaces and ended by a newline. numpy reads it with
// ast.literal_eval; this reads the same subset of Python: whitespace anywhere
// between tokens, '…' or "…" strings without escapes, True/False, (a, b, …)
// tuples with an optional trailing comma (and (a,) for one), and refuses
// everything else — a duplicate key, an unknown key, a missing one, another
// type — naming what is wrong. Nothing is looked up inside another value.
struct NpyHeader {
    std::string descr;
    bool fortran_order = false;
    std::vector<std::uint64_t> shape;
};

class NpyHeaderParser {
public:
    explicit NpyHeaderParser(const std::string& text) : h_(text) {}

    NpyHeader parse() {
        NpyHeader out;
        bool seen_descr = false, seen_fortran = false, seen_shape = false;
        skip();
        expect('{', "the header does not start with '{' (it must be a Python dict)");
        skip();
        while (!at('}')) {
            const std::string key = string_value("a key");
            skip();
            expect(':', "no ':' after the key '" + key + "'");
            skip();
            if (key == "descr") {
                if (seen_descr) duplicate(key);
                seen_descr = true;
                if (!at('\'') && !at('"'))
                    fail("the value of 'descr' is not a string (the lab reads simple dtypes such as '<f4', not structured ones)",
                         "descr");
                out.descr = string_value("the value of 'descr'");
            } else if (key == "fortran_order") {
                if (seen_fortran) duplicate(key);
                seen_fortran = true;
                if (word("True")) out.fortran_order = true;
                else if (word("False")) out.fortran_order = false;
                else fail("the value of 'fortran_order' is not True or False", "fortran_order");
            } else if (key == "shape") {
                if (seen_shape) duplicate(key);
                seen_shape = true;
                out.shape = tuple();
            } else {
                fail("the key '" + key + "' is not one of 'descr', 'fortran_order', 'shape'", "key");
            }
            skip();
            if (at(',')) {
                ++i_;
                skip();
            } else if (!at('}')) {
                fail("expected ',' or '}' after the value of '" + key + "'", key);
            }
        }
        ++i_;
        skip();
        if (i_ != h_.size()) fail("there is text after the closing '}'", "end");
        if (!seen_descr) fail("the key 'descr' is missing", "descr");
        if (!seen_fortran) fail("the key 'fortran_order' is missing", "fortran_order");
        if (!seen_shape) fail("the key 'shape' is missing", "shape");
        return out;
    }

private:
    const std::string& h_;
    std::size_t i_ = 0;

    [[noreturn]] void fail(const std::string& what, const std::string& detail) {
        throw InvalidArgument("table_npy_bad",
                              "the .npy header is not the Python dict numpy writes: " + what + " (at byte " +
                                  std::to_string(i_) + " of the header)",
                              {{"detail", detail}});
    }
    [[noreturn]] void duplicate(const std::string& key) {
        throw InvalidArgument("table_npy_bad",
                              "the .npy header gives '" + key + "' twice; a header must give each key once",
                              {{"detail", "duplicate " + key}});
    }
    bool at(char c) const { return i_ < h_.size() && h_[i_] == c; }
    // Python's whitespace between tokens (space, tab, newline, CR, form feed).
    void skip() {
        while (i_ < h_.size() && (h_[i_] == ' ' || h_[i_] == '\t' || h_[i_] == '\n' || h_[i_] == '\r' || h_[i_] == '\f'))
            ++i_;
    }
    void expect(char c, const std::string& what) {
        if (!at(c)) fail(what, "syntax");
        ++i_;
    }
    // A keyword, not the start of a longer name (Truex).
    bool word(const char* w) {
        const std::size_t n = std::strlen(w);
        if (h_.compare(i_, n, w) != 0) return false;
        const std::size_t j = i_ + n;
        if (j < h_.size() && (std::isalnum(static_cast<unsigned char>(h_[j])) || h_[j] == '_')) return false;
        i_ = j;
        return true;
    }
    std::string string_value(const std::string& what) {
        if (!at('\'') && !at('"')) fail(what + " is not a quoted string", "syntax");
        const char q = h_[i_++];
        std::string s;
        while (i_ < h_.size() && h_[i_] != q) {
            const unsigned char c = static_cast<unsigned char>(h_[i_]);
            if (c == '\\' || c == '\n' || c < 0x20 || c >= 0x7f)
                fail(what + " holds a character the format never needs (an escape, a control or non-ASCII byte)", "syntax");
            s += h_[i_++];
        }
        if (i_ >= h_.size()) fail(what + " has no closing quote", "syntax");
        ++i_;
        return s;
    }
    // (), (n,), (a, b), (a, b,) — whole numbers, no sign; Python 2's 'L' suffix accepted.
    std::vector<std::uint64_t> tuple() {
        std::vector<std::uint64_t> out;
        if (!at('(')) fail("the value of 'shape' is not a tuple such as (1024, 768)", "shape");
        ++i_;
        skip();
        bool comma = false;
        while (!at(')')) {
            if (i_ >= h_.size() || !std::isdigit(static_cast<unsigned char>(h_[i_])))
                fail("the value of 'shape' is not a tuple of whole numbers", "shape");
            std::uint64_t v = 0;
            std::size_t digits = 0;
            const std::size_t first = i_;
            while (i_ < h_.size() && std::isdigit(static_cast<unsigned char>(h_[i_]))) {
                if (++digits > 15) fail("a size in 'shape' is too large", "shape");
                v = v * 10 + std::uint64_t(h_[i_++] - '0');
            }
            if (digits > 1 && h_[first] == '0' && v != 0) fail("a size in 'shape' has a leading zero", "shape");
            if (at('L')) ++i_;
            if (out.size() >= 16) fail("'shape' has more than 16 sizes", "shape");
            out.push_back(v);
            skip();
            comma = false;
            if (at(',')) {
                ++i_;
                comma = true;
                skip();
            } else if (!at(')')) {
                fail("expected ',' or ')' in 'shape'", "shape");
            }
        }
        // (n) is the number n in Python, not a tuple.
        if (out.size() == 1 && !comma) fail("the value of 'shape' is (n) without a comma: a number, not a tuple", "shape");
        ++i_;
        return out;
    }
};

NpyHeader parse_npy_header(const std::string& h) { return NpyHeaderParser(h).parse(); }

}  // namespace

TensorEntry npy_tensor(const std::uint8_t* p, std::size_t n, std::uint64_t file_size) {
    if (n < 10 || file_size < 10)
        throw InvalidArgument("table_truncated",
                              "the file is " + str(file_size) + " bytes: too short for an .npy file",
                              {{"size", str(file_size)}, {"needed", "10"}});
    if (table_format(p, n) != "npy")
        throw InvalidArgument("table_npy_bad", "the file does not start with \\x93NUMPY: not an .npy file",
                              {{"detail", "magic"}});
    const int major = p[6];
    if (p[7] != 0)
        throw InvalidArgument("table_npy_bad", "the .npy format version is " + std::to_string(major) + "." + std::to_string(p[7]) +
                                                   "; the lab reads versions 1.0, 2.0 and 3.0",
                              {{"detail", "version"}, {"version", std::to_string(major) + "." + std::to_string(p[7])}});
    std::uint64_t hlen = 0, hstart = 0;
    if (major == 1) {
        hlen = read_le(p + 8, 2);
        hstart = 10;
    } else if (major == 2 || major == 3) {
        if (n < 12) throw InvalidArgument("table_truncated", "the .npy file ends inside its header", {{"size", str(file_size)}, {"needed", "12"}});
        hlen = read_le(p + 8, 4);
        hstart = 12;
    } else {
        throw InvalidArgument("table_npy_bad", "the .npy format version is " + std::to_string(major) +
                                                   "; the lab reads versions 1, 2 and 3",
                              {{"detail", "version"}, {"version", std::to_string(major)}});
    }
    if (hlen > kMaxNpyHeader)
        throw InvalidArgument("table_header_too_large",
                              "the .npy header is " + str(hlen) + " bytes; the lab reads headers up to " + str(kMaxNpyHeader) + " bytes",
                              {{"length", str(hlen)}, {"max", str(kMaxNpyHeader)}});
    if (hstart + hlen > file_size)
        throw InvalidArgument("table_header_past_end",
                              "the .npy header length is " + str(hlen) + " bytes but the file has only " +
                                  str(file_size - hstart) + " bytes after it",
                              {{"length", str(hlen)}, {"available", str(file_size - hstart)}});
    if (hstart + hlen > n)
        throw InvalidArgument("table_truncated", "the .npy header was not read whole (give the first " +
                                                     str(hstart + hlen) + " bytes)",
                              {{"size", str(n)}, {"needed", str(hstart + hlen)}});
    const std::string h(reinterpret_cast<const char*>(p + hstart), hlen);
    const NpyHeader hd = parse_npy_header(h);
    TensorEntry t;
    t.shape = hd.shape;
    t.fortran_order = hd.fortran_order && hd.shape.size() > 1;
    const std::string& descr = hd.descr;
    // numpy writes '<' (little-endian), '>' (big-endian) or '|' (no order:
    // one-byte types); '=' is the writer's native order, read as numpy on a
    // little-endian machine reads it.
    const char order = descr.empty() ? '\0' : descr[0];
    const std::string kind = (order == '<' || order == '>' || order == '=' || order == '|') ? descr.substr(1) : descr;
    if (kind == "f4") t.dtype = "F32";
    else if (kind == "f2") t.dtype = "F16";
    else if (kind == "f8") t.dtype = "F64";
    else if (kind == "i8") t.dtype = "I64";
    else if (kind == "i4") t.dtype = "I32";
    else if (kind == "i2") t.dtype = "I16";
    else if (kind == "i1" || kind == "b1" || kind == "u1") t.dtype = kind == "i1" ? "I8" : kind == "b1" ? "BOOL" : "U8";
    else t.dtype = "'" + descr + "'";  // refused by pick_table, which names it
    t.big_endian = order == '>';
    t.begin = hstart + hlen;
    const std::uint64_t size = dtype_size(t.dtype), count = count_of(t.shape);
    if (size != 0) {
        const std::uint64_t have = file_size - t.begin;
        const bool overflow = count == std::numeric_limits<std::uint64_t>::max() || count > std::numeric_limits<std::uint64_t>::max() / size;
        if (overflow || count * size > have)
            throw InvalidArgument("table_data_short",
                                  "the .npy header says shape " + shape_text(t.shape) + " of '" + descr + "' (" +
                                      (overflow ? std::string("more than 2^64") : str(count * size)) +
                                      " bytes) but the file has only " + str(have) +
                                      " bytes after the header: the file is cut off",
                                  {{"shape", shape_text(t.shape)}, {"dtype", descr},
                                   {"needed", overflow ? std::string("2^64") : str(count * size)}, {"size", str(have)}});
        if (count * size != have)
            throw InvalidArgument("table_size_mismatch",
                                  "the .npy header says shape " + shape_text(t.shape) + " of '" + descr + "', which is " +
                                      str(count * size) + " bytes, but the file has " + str(have) +
                                      " bytes after the header: the header and the data do not match",
                                  {{"shape", shape_text(t.shape)}, {"dtype", descr}, {"needed", str(count * size)},
                                   {"size", str(have)}});
        t.end = t.begin + count * size;
    } else {
        t.end = file_size;
    }
    return t;
}

const std::vector<std::string>& suggested_table_names() {
    static const std::vector<std::string> names = {
        "wpe.weight", "transformer.wpe.weight", "embeddings.position_embeddings.weight",
        "bert.embeddings.position_embeddings.weight", "roberta.embeddings.position_embeddings.weight",
        "model.decoder.embed_positions.weight", "decoder.embed_positions.weight", "gpt_neox.embed_positions.weight",
        "pos_embed", "position_embeddings.weight"};
    return names;
}

const TensorEntry& pick_table(const std::vector<TensorEntry>& tensors, const std::string& name) {
    const TensorEntry* found = nullptr;
    if (!name.empty()) {
        for (const auto& t : tensors)
            if (t.name == name) found = &t;
    } else if (tensors.size() == 1 && tensors[0].name.empty()) {
        found = &tensors[0];
    } else {
        for (const auto& s : suggested_table_names()) {
            for (const auto& t : tensors)
                if (t.name == s) found = &t;
            if (found) break;
        }
        if (!found) {
            const TensorEntry* only = nullptr;
            std::size_t two_d = 0;
            for (const auto& t : tensors)
                if (t.shape.size() == 2) ++two_d, only = &t;
            if (two_d == 1) found = only;
        }
    }
    if (!found) {
        std::string list;
        std::size_t shown = 0;
        for (const auto& t : tensors)
            if (t.shape.size() == 2 && shown++ < 20) list += (list.empty() ? "" : ", ") + t.name + " " + shape_text(t.shape);
        throw InvalidArgument("table_no_tensor",
                              (name.empty() ? std::string("no position table found under the usual names")
                                            : "the file has no tensor named '" + name + "'") +
                                  "; its 2-D tensors: " + (list.empty() ? std::string("none") : list),
                              name.empty() ? ErrorParams{{"tensors", list.empty() ? "-" : list}}
                                           : ErrorParams{{"name", name}, {"tensors", list.empty() ? "-" : list}});
    }
    const TensorEntry& t = *found;
    const std::string nm = label_of(t);
    if (t.shape.size() != 2)
        throw InvalidArgument("table_not_2d",
                              "'" + nm + "' has shape " + shape_text(t.shape) + " (" + std::to_string(t.shape.size()) +
                                  " dimensions); a position table has 2: [positions, width]",
                              {{"tensor", nm}, {"shape", shape_text(t.shape)}, {"dims", std::to_string(t.shape.size())}});
    if (!supported(t.dtype))
        throw InvalidArgument("table_unsupported_dtype",
                              "'" + nm + "' is " + t.dtype + "; the lab reads F32, F16 and BF16 (in .npy: float32 '<f4' / '>f4' and float16 '<f2' / '>f2')",
                              {{"dtype", t.dtype}, {"tensor", nm}});
    const std::uint64_t rows = t.shape[0], cols = t.shape[1];
    if (rows == 0 || cols == 0)
        throw InvalidArgument("table_empty", "'" + nm + "' has shape " + shape_text(t.shape) + ": no values",
                              {{"tensor", nm}, {"shape", shape_text(t.shape)}});
    if (rows > kMaxTableRows || cols > kMaxTableCols || rows * cols > kMaxTableValues)
        throw InvalidArgument("table_too_large",
                              "'" + nm + "' has shape " + shape_text(t.shape) + "; the lab reads tables of up to " +
                                  str(kMaxTableRows) + " rows, " + str(kMaxTableCols) + " columns and " +
                                  str(kMaxTableValues) + " values (a position table, not a token table)",
                              {{"tensor", nm}, {"shape", shape_text(t.shape)}, {"maxRows", str(kMaxTableRows)},
                               {"maxCols", str(kMaxTableCols)}, {"maxValues", str(kMaxTableValues)}});
    return t;
}

float half_to_float(std::uint16_t h) {
    const std::uint32_t sign = (h >> 15) & 1u, exp = (h >> 10) & 0x1fu, man = h & 0x3ffu;
    float v;
    if (exp == 0) v = std::ldexp(float(man), -24);
    else if (exp == 31) v = man ? std::numeric_limits<float>::quiet_NaN() : std::numeric_limits<float>::infinity();
    else v = std::ldexp(float(man | 0x400u), int(exp) - 25);
    return sign ? -v : v;
}

float bf16_to_float(std::uint16_t b) {
    const std::uint32_t bits = std::uint32_t(b) << 16;
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
}

xt::xtensor<float, 2> decode_table(const TensorEntry& t, const std::uint8_t* bytes, std::size_t n) {
    const std::size_t rows = t.shape.at(0), cols = t.shape.at(1);
    const std::size_t size = dtype_size(t.dtype);
    const std::string nm = label_of(t);
    const std::uint64_t needed = std::uint64_t(rows) * cols * size;
    if (n < needed)
        throw InvalidArgument("table_truncated",
                              "read " + str(n) + " bytes of '" + nm + "', expected " + str(needed) +
                                  ": the file is shorter than its header says",
                              {{"size", str(n)}, {"needed", str(needed)}});
    if (n != needed)
        throw InvalidArgument("table_size_mismatch",
                              "got " + str(n) + " bytes for '" + nm + "', which has shape " + shape_text(t.shape) + " of " +
                                  t.dtype + " (" + str(needed) + " bytes): the bytes and the header do not match",
                              {{"tensor", nm}, {"shape", shape_text(t.shape)}, {"dtype", t.dtype}, {"needed", str(needed)},
                               {"size", str(n)}});
    xt::xtensor<float, 2> out = xt::empty<float>({rows, cols});
    float* o = out.data();
    const std::size_t count = rows * cols;
    // Element i of the bytes (in file order) goes to row-major index at(i):
    // itself, or for fortran order (column by column) row i % rows, column i / rows.
    const bool fortran = t.fortran_order;
    auto at = [&](std::size_t i) { return fortran ? (i % rows) * cols + i / rows : i; };
    // One element's bits, in either byte order.
    auto bits_of = [&](std::size_t i, std::size_t w) {
        const std::uint8_t* q = bytes + w * i;
        std::uint64_t v = 0;
        for (std::size_t k = 0; k < w; ++k) v |= std::uint64_t(q[t.big_endian ? w - 1 - k : k]) << (8 * k);
        return v;
    };
    if (t.dtype == "F32") {
        for (std::size_t i = 0; i < count; ++i) {
            const std::uint32_t bits = std::uint32_t(bits_of(i, 4));
            std::memcpy(o + at(i), &bits, 4);
        }
    } else if (t.dtype == "F16") {
        for (std::size_t i = 0; i < count; ++i) o[at(i)] = half_to_float(std::uint16_t(bits_of(i, 2)));
    } else if (t.dtype == "BF16") {
        for (std::size_t i = 0; i < count; ++i) o[at(i)] = bf16_to_float(std::uint16_t(bits_of(i, 2)));
    } else {
        throw InvalidArgument("table_unsupported_dtype", "'" + nm + "' is " + t.dtype + "; the lab reads F32, F16 and BF16",
                              {{"dtype", t.dtype}, {"tensor", nm}});
    }
    for (std::size_t i = 0; i < count; ++i)
        if (!std::isfinite(o[i]))
            throw InvalidArgument("table_not_finite",
                                  "'" + nm + "' has " + (std::isnan(o[i]) ? "NaN" : "an infinite value") + " at row " +
                                      str(i / cols) + ", column " + str(i % cols) + " (counting from 0); a position table must be finite",
                                  {{"tensor", nm}, {"row", str(i / cols)}, {"col", str(i % cols)},
                                   {"value", std::isnan(o[i]) ? "NaN" : (o[i] > 0 ? "Infinity" : "-Infinity")}});
    return out;
}

std::vector<std::size_t> sample_rows(std::size_t rows, std::size_t count) {
    std::vector<std::size_t> out;
    if (rows == 0 || count == 0) return out;
    if (count >= rows || count == 1) {
        const std::size_t k = count >= rows ? rows : 1;
        for (std::size_t i = 0; i < k; ++i) out.push_back(i);
        return out;
    }
    for (std::size_t i = 0; i < count; ++i)
        out.push_back(std::size_t(std::llround(double(i) * double(rows - 1) / double(count - 1))));
    return out;
}

namespace {

// Cyclic Jacobi on a small symmetric p×p matrix: eigenvalues (descending) and
// eigenvectors (columns of v, row-major p×p).
void jacobi(std::vector<double> a, std::size_t p, std::vector<double>& values, std::vector<double>& v) {
    v.assign(p * p, 0.0);
    for (std::size_t i = 0; i < p; ++i) v[i * p + i] = 1.0;
    for (int sweep = 0; sweep < 100; ++sweep) {
        double off = 0, diag = 0;
        for (std::size_t i = 0; i < p; ++i)
            for (std::size_t j = 0; j < p; ++j) (i == j ? diag : off) += a[i * p + j] * a[i * p + j];
        if (off <= 1e-30 * (diag + 1e-300)) break;
        for (std::size_t r = 0; r < p; ++r)
            for (std::size_t c = r + 1; c < p; ++c) {
                const double arc = a[r * p + c];
                if (std::abs(arc) < 1e-300) continue;
                const double theta = (a[c * p + c] - a[r * p + r]) / (2 * arc);
                const double tt = (theta >= 0 ? 1.0 : -1.0) / (std::abs(theta) + std::sqrt(theta * theta + 1));
                const double cs = 1 / std::sqrt(tt * tt + 1), sn = tt * cs;
                for (std::size_t k = 0; k < p; ++k) {  // columns r, c
                    const double akr = a[k * p + r], akc = a[k * p + c];
                    a[k * p + r] = cs * akr - sn * akc;
                    a[k * p + c] = sn * akr + cs * akc;
                }
                for (std::size_t k = 0; k < p; ++k) {  // rows r, c
                    const double ark = a[r * p + k], ack = a[c * p + k];
                    a[r * p + k] = cs * ark - sn * ack;
                    a[c * p + k] = sn * ark + cs * ack;
                }
                for (std::size_t k = 0; k < p; ++k) {
                    const double vkr = v[k * p + r], vkc = v[k * p + c];
                    v[k * p + r] = cs * vkr - sn * vkc;
                    v[k * p + c] = sn * vkr + cs * vkc;
                }
            }
    }
    // Sort descending.
    std::vector<std::size_t> order(p);
    for (std::size_t i = 0; i < p; ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return a[x * p + x] > a[y * p + y]; });
    std::vector<double> sv(p * p);
    values.assign(p, 0);
    for (std::size_t j = 0; j < p; ++j) {
        values[j] = a[order[j] * p + order[j]];
        for (std::size_t k = 0; k < p; ++k) sv[k * p + j] = v[k * p + order[j]];
    }
    v = sv;
}

// A fixed start vector entry (no RNG: the same on every platform).
double start_entry(std::size_t i, std::size_t j) {
    std::uint32_t x = std::uint32_t(i * 2654435761u) ^ std::uint32_t((j + 1) * 40503u);
    x ^= x >> 13;
    x *= 0x5bd1e995u;
    x ^= x >> 15;
    return double(x % 20011u) / 20011.0 - 0.5;
}

// Modified Gram–Schmidt on the p columns of q (m×p, column-major vectors).
void orthonormalize(std::vector<std::vector<double>>& q, std::size_t m, std::size_t salt) {
    for (std::size_t j = 0; j < q.size(); ++j) {
        for (int attempt = 0; attempt < 3; ++attempt) {
            const double before = std::sqrt(std::inner_product(q[j].begin(), q[j].end(), q[j].begin(), 0.0));
            for (std::size_t i = 0; i < j; ++i) {
                const double d = std::inner_product(q[i].begin(), q[i].end(), q[j].begin(), 0.0);
                for (std::size_t k = 0; k < m; ++k) q[j][k] -= d * q[i][k];
            }
            const double norm = std::sqrt(std::inner_product(q[j].begin(), q[j].end(), q[j].begin(), 0.0));
            if (norm > 1e-10 * before && norm > 1e-300) {
                for (double& x : q[j]) x /= norm;
                break;
            }
            // The vector vanished (the matrix has lower rank): a fresh fixed one.
            for (std::size_t k = 0; k < m; ++k) q[j][k] = start_entry(k, j + 97 * (salt + attempt + 1));
            if (attempt == 2) std::fill(q[j].begin(), q[j].end(), 0.0);
        }
    }
}

}  // namespace

std::size_t pca_row_count(std::size_t rows, std::size_t cols, std::size_t max_pca_rows) {
    std::size_t m = std::min(rows, std::max<std::size_t>(2, std::min<std::size_t>(max_pca_rows, 4096)));
    // The matrix the PCA diagonalises costs m · min(m, cols) · cols multiply-adds
    // (covariance cols × cols when cols ≤ m, Gram m × m otherwise): fewer rows
    // until that is at most kPcaWork. Only a wide table is cut: 4096 columns
    // keep 512 rows; GPT-2's 1024 × 768 keeps all its rows.
    auto work = [&](std::size_t r) { return double(r) * double(std::min(r, cols)) * double(cols); };
    if (work(m) <= kPcaWork) return m;
    // work grows with r: the largest r in [2, m) with work(r) ≤ kPcaWork.
    std::size_t lo = 2, hi = m - 1;
    while (lo < hi) {
        const std::size_t mid = lo + (hi - lo + 1) / 2;
        if (work(mid) <= kPcaWork) lo = mid;
        else hi = mid - 1;
    }
    m = lo;
    return m;
}

std::size_t eigen_iterations(std::size_t m, std::size_t k) {
    const std::size_t p = std::min(m, k + 4);
    const double per_step = double(p) * double(m) * double(m);
    const double steps = std::floor(double(kEigenWork) / std::max(per_step, 1.0));
    return std::size_t(std::min(500.0, std::max(30.0, steps)));
}

EigenResult top_eigen(const std::vector<double>& a, std::size_t m, std::size_t k, std::size_t max_iter) {
    EigenResult r;
    k = std::min(k, m);
    if (k == 0) return r;
    const std::size_t p = std::min(m, k + 4);
    std::vector<std::vector<double>> q(p, std::vector<double>(m)), z(p, std::vector<double>(m));
    for (std::size_t j = 0; j < p; ++j)
        for (std::size_t i = 0; i < m; ++i) q[j][i] = start_entry(i, j);
    orthonormalize(q, m, 0);
    double scale = 0;
    for (std::size_t i = 0; i < m; ++i) scale = std::max(scale, std::abs(a[i * m + i]));
    std::vector<double> b(p * p), values, w;
    max_iter = std::max<std::size_t>(1, max_iter);
    for (std::size_t it = 1; it <= max_iter; ++it) {
        // Z = A Q, one pass over A (each row used for all p vectors while in cache).
        for (std::size_t i = 0; i < m; ++i) {
            const double* row = &a[i * m];
            for (std::size_t j = 0; j < p; ++j) {
                const double* qj = q[j].data();
                double s = 0;
                for (std::size_t c = 0; c < m; ++c) s += row[c] * qj[c];
                z[j][i] = s;
            }
        }
        for (std::size_t x = 0; x < p; ++x)
            for (std::size_t y = 0; y < p; ++y) b[x * p + y] = std::inner_product(q[x].begin(), q[x].end(), z[y].begin(), 0.0);
        for (std::size_t x = 0; x < p; ++x)
            for (std::size_t y = x + 1; y < p; ++y) b[x * p + y] = b[y * p + x] = 0.5 * (b[x * p + y] + b[y * p + x]);
        jacobi(b, p, values, w);
        // Ritz vectors Y = Q W and M Y = Z W; residual of the top k.
        std::vector<std::vector<double>> y(p, std::vector<double>(m, 0.0)), my(p, std::vector<double>(m, 0.0));
        for (std::size_t j = 0; j < p; ++j)
            for (std::size_t l = 0; l < p; ++l) {
                const double c = w[l * p + j];
                if (c == 0) continue;
                for (std::size_t i = 0; i < m; ++i) {
                    y[j][i] += c * q[l][i];
                    my[j][i] += c * z[l][i];
                }
            }
        double worst = 0;
        for (std::size_t j = 0; j < k; ++j) {
            double s = 0;
            for (std::size_t i = 0; i < m; ++i) {
                const double d = my[j][i] - values[j] * y[j][i];
                s += d * d;
            }
            worst = std::max(worst, std::sqrt(s));
        }
        r.iterations = it;
        if (worst <= 1e-9 * std::max(scale, 1e-300) || scale == 0) {
            r.converged = true;
            q = y;
            break;
        }
        q = my;
        orthonormalize(q, m, it);
        if (it == max_iter) q = y;
    }
    for (std::size_t j = 0; j < k; ++j) {
        r.values.push_back(std::max(0.0, values[j]));
        std::vector<double> v = q[j];
        std::size_t big = 0;
        for (std::size_t i = 1; i < m; ++i)
            if (std::abs(v[i]) > std::abs(v[big]) + 1e-12) big = i;
        if (v[big] < 0)
            for (double& x : v) x = -x;
        r.vectors.push_back(std::move(v));
    }
    return r;
}

TablePlan table_plan(std::size_t n, std::size_t d, const TableAnalysisOptions& o) {
    TablePlan plan;
    if (n == 0 || d == 0) return plan;
    plan.heatmap_rows = std::min(n, std::max<std::size_t>(1, std::min<std::size_t>(o.max_heatmap_rows, 1024)));
    // Each distance costs rows × cols multiply-adds: at most kNeighbourWork in all
    // (GPT-2's 1024 × 768 keeps 341 distances; a 65536-row table gets 16 at 256 columns).
    std::size_t max_d = std::min<std::size_t>(std::min<std::size_t>(o.max_distance, 4096), n - 1);
    max_d = std::min(max_d, std::max<std::size_t>(1, kNeighbourWork / (n * d)));
    plan.distances = std::min(max_d, n - 1);
    plan.pca_rows = pca_row_count(n, d, o.max_pca_rows);
    plan.eigen_steps = eigen_iterations(std::min(plan.pca_rows, d), std::min(o.components, std::min(plan.pca_rows, d)));
    return plan;
}

TableSummary analyze_table(const xt::xtensor<float, 2>& table, const TableAnalysisOptions& o) {
    TableSummary s;
    const std::size_t n = table.shape(0), d = table.shape(1);
    s.rows = n;
    s.cols = d;
    if (n == 0 || d == 0) throw InvalidArgument("table_empty", "the table has no values", {{"tensor", ""}, {"shape", "[" + str(n) + ", " + str(d) + "]"}});
    if (o.components < 1 || o.components > 8)
        throw InvalidArgument("bad_option_type", "components must be 1 to 8", {{"option", "components"}});
    const float* x = table.data();
    // Norms and unit rows (a zero row stays zero: its cosine with anything is 0).
    s.norms.resize(n);
    for (std::size_t p = 0; p < n; ++p) {
        double ss = 0;
        for (std::size_t c = 0; c < d; ++c) ss += double(x[p * d + c]) * x[p * d + c];
        s.norms[p] = std::sqrt(ss);
    }
    // cos(a, b) = a·b / (‖a‖‖b‖) in double (no copy of the table as unit rows:
    // 128 MB at the size cap); a zero row's cosine with anything is 0.
    auto cosine = [&](std::size_t a, std::size_t b) {
        const double den = s.norms[a] * s.norms[b];
        if (den == 0) return 0.0;
        const float* u = &x[a * d];
        const float* v = &x[b * d];
        double t = 0;
        for (std::size_t c = 0; c < d; ++c) t += double(u[c]) * v[c];
        return t / den;
    };
    const TablePlan plan = table_plan(n, d, o);
    // Heatmap on evenly sampled rows.
    s.heatmap_rows = sample_rows(n, plan.heatmap_rows);
    const std::size_t k = s.heatmap_rows.size();
    s.similarity = xt::zeros<float>({k, k});
    for (std::size_t i = 0; i < k; ++i)
        for (std::size_t j = i; j < k; ++j) {
            const float v = float(cosine(s.heatmap_rows[i], s.heatmap_rows[j]));
            s.similarity(i, j) = v;
            s.similarity(j, i) = v;
        }
    // Mean neighbour similarity for distance 1…max (every pair at that distance).
    const std::size_t max_d = plan.distances;
    s.neighbour.assign(max_d, 0.0);
    for (std::size_t dist = 1; dist <= max_d; ++dist) {
        double t = 0;
        for (std::size_t p = 0; p + dist < n; ++p) t += cosine(p, p + dist);
        s.neighbour[dist - 1] = t / double(n - dist);
    }
    // PCA on evenly sampled rows (all rows when n ≤ max_pca_rows).
    s.pca_rows = sample_rows(n, plan.pca_rows);
    const std::size_t m = s.pca_rows.size();
    std::vector<double> mean(d, 0.0);
    for (std::size_t r : s.pca_rows)
        for (std::size_t c = 0; c < d; ++c) mean[c] += x[r * d + c];
    for (double& v : mean) v /= double(m);
    std::vector<double> xc(m * d);
    for (std::size_t i = 0; i < m; ++i)
        for (std::size_t c = 0; c < d; ++c) xc[i * d + c] = x[s.pca_rows[i] * d + c] - mean[c];
    s.total_variance = 0;
    for (double v : xc) s.total_variance += v * v;
    s.total_variance /= double(m);
    const std::size_t comps = std::min(o.components, std::min(m, d));
    std::vector<std::vector<double>> loadings;  // comps vectors of length d
    if (d <= m) {
        // Covariance d×d.
        std::vector<double> cov(d * d, 0.0);
        for (std::size_t i = 0; i < m; ++i) {
            const double* row = &xc[i * d];
            for (std::size_t a = 0; a < d; ++a) {
                const double ra = row[a];
                if (ra == 0) continue;
                double* out = &cov[a * d];
                for (std::size_t b = a; b < d; ++b) out[b] += ra * row[b];
            }
        }
        for (std::size_t a = 0; a < d; ++a)
            for (std::size_t b = a; b < d; ++b) cov[b * d + a] = cov[a * d + b] = cov[a * d + b] / double(m);
        EigenResult e = top_eigen(cov, d, comps, plan.eigen_steps);
        s.variance = e.values;
        s.iterations = e.iterations;
        s.converged = e.converged;
        loadings = e.vectors;
    } else {
        // Gram m×m (fewer rows than columns): v = Xcᵀu / ‖Xcᵀu‖.
        std::vector<double> g(m * m, 0.0);
        for (std::size_t i = 0; i < m; ++i)
            for (std::size_t j = i; j < m; ++j) {
                double t = 0;
                for (std::size_t c = 0; c < d; ++c) t += xc[i * d + c] * xc[j * d + c];
                g[i * m + j] = g[j * m + i] = t / double(m);
            }
        EigenResult e = top_eigen(g, m, comps, plan.eigen_steps);
        s.variance = e.values;
        s.iterations = e.iterations;
        s.converged = e.converged;
        for (std::size_t j = 0; j < e.vectors.size(); ++j) {
            const auto& u = e.vectors[j];
            std::vector<double> v(d, 0.0);
            for (std::size_t i = 0; i < m; ++i)
                for (std::size_t c = 0; c < d; ++c) v[c] += u[i] * xc[i * d + c];
            double norm = 0;
            for (double t : v) norm += t * t;
            norm = std::sqrt(norm);
            // ‖Xcᵀu‖² = m·λ: for a zero-variance component (fewer independent rows
            // than components) Xcᵀu is rounding noise inside the rows' span, and
            // normalising it would make up a direction the rows have. No
            // direction then: every row projects to 0, as it has no variance there.
            if (norm > 0 && e.values[j] > 1e-12 * e.values[0])
                for (double& t : v) t /= norm;
            else
                std::fill(v.begin(), v.end(), 0.0);
            std::size_t big = 0;
            for (std::size_t c = 1; c < d; ++c)
                if (std::abs(v[c]) > std::abs(v[big]) + 1e-12) big = c;
            if (v[big] < 0)
                for (double& t : v) t = -t;
            loadings.push_back(std::move(v));
        }
    }
    for (double v : s.variance) s.explained.push_back(s.total_variance > 0 ? v / s.total_variance : 0.0);
    s.projection = xt::zeros<double>({n, comps});
    for (std::size_t p = 0; p < n; ++p)
        for (std::size_t j = 0; j < comps; ++j) {
            double t = 0;
            for (std::size_t c = 0; c < d; ++c) t += (x[p * d + c] - mean[c]) * loadings[j][c];
            s.projection(p, j) = t;
        }
    return s;
}

}  // namespace poslab
