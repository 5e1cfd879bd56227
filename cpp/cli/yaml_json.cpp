#include "yaml_json.hpp"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <fstream>

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/yaml.h>

#include "poslab/errors.hpp"
#include "poslab/grading.hpp"

namespace poslab::cli {
namespace {

using json = nlohmann::json;

InvalidArgument bad_yaml(const std::string& file, const std::string& path, const std::string& what) {
    // A path 64 levels deep is shortened to its first 60 bytes (not inside a UTF-8 character).
    std::size_t cut = 60;
    while (path.size() > 64 && cut > 0 && (static_cast<unsigned char>(path[cut]) & 0xC0) == 0x80) --cut;
    const std::string at = path.size() <= 64 ? path : path.substr(0, cut) + "…";
    return InvalidArgument("bad_yaml", file + ": " + (at.empty() ? std::string() : at + ": ") + what);
}

// A scalar as shown in a message: at most 40 characters.
std::string shown(const std::string& s) { return s.size() <= 40 ? s : s.substr(0, 37) + "…"; }

bool is_digit(char c, int base) {
    if (base == 8) return c >= '0' && c <= '7';
    if (base == 16) return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
    return c >= '0' && c <= '9';
}
// Count of base-`base` digits from s[i] on.
std::size_t digits(const std::string& s, std::size_t i, int base = 10) {
    std::size_t n = 0;
    while (i + n < s.size() && is_digit(s[i + n], base)) ++n;
    return n;
}

// [-+]?[0-9]+
bool is_int(const std::string& s) {
    const std::size_t i = !s.empty() && (s[0] == '-' || s[0] == '+');
    return i < s.size() && digits(s, i) == s.size() - i;
}
// 0x[0-9a-fA-F]+ / 0o[0-7]+
bool is_radix(const std::string& s, char mark, int base) {
    return s.size() > 2 && s[0] == '0' && s[1] == mark && digits(s, 2, base) == s.size() - 2;
}
// [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?
bool is_float(const std::string& s) {
    std::size_t i = !s.empty() && (s[0] == '-' || s[0] == '+');
    if (i < s.size() && s[i] == '.') {
        const std::size_t n = digits(s, i + 1);
        if (n == 0) return false;
        i += 1 + n;
    } else {
        const std::size_t n = digits(s, i);
        if (n == 0) return false;
        i += n;
        if (i < s.size() && s[i] == '.') i += 1 + digits(s, i + 1);
    }
    if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
        ++i;
        if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
        const std::size_t n = digits(s, i);
        if (n == 0) return false;
        i += n;
    }
    return i == s.size();
}

struct Reader {
    const std::string& file;
    std::size_t nodes = 0;

    json number(const std::string& s, const std::string& path) {
        const double v = std::strtod(s.c_str(), nullptr);
        if (!std::isfinite(v))
            throw bad_yaml(file, path, "the number " + shown(s) + " (" + std::to_string(s.size()) +
                                           " characters) is out of range: a number must be finite (at most about "
                                           "1.8e308 in size)");
        return v;
    }

    json radix(const std::string& s, int base, const std::string& path) {
        long long v = 0;
        auto [p, ec] = std::from_chars(s.data() + 2, s.data() + s.size(), v, base);
        if (ec != std::errc() || p != s.data() + s.size())
            throw bad_yaml(file, path, "the integer " + shown(s) + " is out of range: " +
                                           (base == 16 ? "0x" : "0o") + " integers may be at most " +
                                           (base == 16 ? "0x7FFFFFFFFFFFFFFF" : "0o777777777777777777777") +
                                           " (2^63 − 1)");
        return v;
    }

    // Plain (unquoted) scalars resolved by the YAML 1.2 core schema, as js-yaml
    // does. No std::regex: it recurses per character and overflows the stack
    // on long scalars.
    json resolve_plain(const std::string& s, const std::string& path) {
        if (s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL") return nullptr;
        if (s == "true" || s == "True" || s == "TRUE") return true;
        if (s == "false" || s == "False" || s == "FALSE") return false;
        if (is_int(s)) {
            long long v = 0;
            const char* begin = s.data() + (s[0] == '+');
            auto [p, ec] = std::from_chars(begin, s.data() + s.size(), v);
            if (ec == std::errc() && p == s.data() + s.size()) return v;
            return number(s, path);  // beyond 64 bits: a double, as in JavaScript
        }
        if (is_radix(s, 'x', 16)) return radix(s, 16, path);
        if (is_radix(s, 'o', 8)) return radix(s, 8, path);
        if (is_float(s)) return number(s, path);
        return s;
    }

    json to_json(const YAML::Node& node, const std::string& path, std::size_t depth) {
        if (++nodes > kMaxYamlNodes)
            throw bad_yaml(file, path, "more than " + std::to_string(kMaxYamlNodes) +
                                           " values with aliases expanded (an exercise has a few thousand at most; "
                                           "is an anchor repeated inside itself, a \"billion laughs\"?)");
        if (depth > kMaxYamlDepth)
            throw bad_yaml(file, path, "nested more than " + std::to_string(kMaxYamlDepth) +
                                           " levels deep (is an alias inside its own anchor, as in a: &a [*a]?)");
        switch (node.Type()) {
            case YAML::NodeType::Scalar:
                // "?" is the tag of a plain scalar; quoted ones get "!" and stay strings.
                return node.Tag() == "?" ? resolve_plain(node.Scalar(), path) : json(node.Scalar());
            case YAML::NodeType::Sequence: {
                json a = json::array();
                std::size_t i = 0;
                for (const auto& item : node) a.push_back(to_json(item, path + "[" + std::to_string(i++) + "]", depth + 1));
                return a;
            }
            case YAML::NodeType::Map: {
                json o = json::object();
                for (const auto& kv : node) {
                    if (!kv.first.IsScalar())
                        throw bad_yaml(file, path, "a key must be plain text, not a list, a mapping or empty");
                    const std::string key = kv.first.Scalar();
                    const std::string at = path.empty() ? key : path + "." + key;
                    if (o.contains(key)) throw bad_yaml(file, at, "the key is given twice");
                    o[key] = to_json(kv.second, at, depth + 1);
                }
                return o;
            }
            default: return nullptr;
        }
    }
};

}  // namespace

nlohmann::json parse_yaml(const std::string& text, const std::string& name) {
    if (text.size() > kMaxExerciseFileBytes)
        throw bad_yaml(name, "", "the file is " + std::to_string(text.size()) + " bytes; an exercise file may be at most " +
                                     std::to_string(kMaxExerciseFileBytes) + " bytes (1 MiB)");
    YAML::Node root;
    try {
        root = YAML::Load(text);
    } catch (const YAML::DeepRecursion& e) {  // yaml-cpp's own message is "bad file"
        throw InvalidArgument("bad_yaml", name + ": line " + std::to_string(e.mark.line + 1) +
                                              ": nested more than " + std::to_string(kMaxYamlDepth) +
                                              " levels deep (the parser stopped at " + std::to_string(e.depth()) + ")");
    } catch (const YAML::Exception& e) {
        throw InvalidArgument("bad_yaml", name + ": line " + std::to_string(e.mark.line + 1) + ": " + e.msg);
    }
    Reader reader{name};
    return reader.to_json(root, "", 0);
}

nlohmann::json load_yaml_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InvalidArgument("cannot_read", path + ": cannot read the file");
    // At most one byte past the limit is read: /dev/zero or a huge file cannot fill memory.
    std::string text(kMaxExerciseFileBytes + 1, '\0');
    in.read(text.data(), static_cast<std::streamsize>(text.size()));
    if (in.bad()) throw InvalidArgument("cannot_read", path + ": cannot read the file (is it a folder?)");
    text.resize(static_cast<std::size_t>(in.gcount()));
    if (text.size() > kMaxExerciseFileBytes)
        throw bad_yaml(path, "", "the file is larger than " + std::to_string(kMaxExerciseFileBytes) +
                                     " bytes (1 MiB), the most an exercise file may be");
    return parse_yaml(text, path);
}

nlohmann::json load_exercise_file(const std::string& path) {
    const json ex = load_yaml_file(path);
    const char* shape = "an exercise is a YAML mapping with id, title, blocks…";
    if (ex.is_null()) throw InvalidArgument("bad_exercise", path + ": the file is empty; " + shape);
    if (!ex.is_object())
        throw InvalidArgument("bad_exercise", path + ": the file holds " +
                                                  (ex.is_array() ? std::string("a list") : "a single value " + shown(ex.dump())) +
                                                  "; " + shape);
    if (!ex.contains("id") || !ex["id"].is_string() || ex["id"].get<std::string>().empty())
        throw InvalidArgument("bad_exercise", path + ": id: an exercise needs an id (text), e.g. id: 01-reorder");
    try {
        grading::make_variant(ex, 0);  // every variant's fields and ranges checked here, once
    } catch (const std::exception& e) {
        throw InvalidArgument("bad_exercise", path + ": " + e.what());
    }
    return ex;
}

}  // namespace poslab::cli
