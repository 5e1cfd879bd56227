#include "yaml_json.hpp"

#include <fstream>
#include <regex>
#include <sstream>

#include <yaml-cpp/yaml.h>

#include "poslab/errors.hpp"

namespace poslab::cli {
namespace {

using json = nlohmann::json;

// Plain (unquoted) scalars resolved by the YAML 1.2 core schema, as js-yaml does.
json resolve_plain(const std::string& s) {
    static const std::regex null_re("^(~|null|Null|NULL)?$");
    static const std::regex true_re("^(true|True|TRUE)$"), false_re("^(false|False|FALSE)$");
    static const std::regex int_re("^[-+]?[0-9]+$"), hex_re("^0x[0-9a-fA-F]+$"), oct_re("^0o[0-7]+$");
    static const std::regex float_re(R"(^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$)");
    if (std::regex_match(s, null_re)) return nullptr;
    if (std::regex_match(s, true_re)) return true;
    if (std::regex_match(s, false_re)) return false;
    if (std::regex_match(s, int_re)) {
        try {
            return std::stoll(s);
        } catch (const std::out_of_range&) {
            return std::stod(s);
        }
    }
    if (std::regex_match(s, hex_re)) return std::stoll(s.substr(2), nullptr, 16);
    if (std::regex_match(s, oct_re)) return std::stoll(s.substr(2), nullptr, 8);
    if (std::regex_match(s, float_re)) return std::stod(s);
    return s;
}

json to_json(const YAML::Node& node) {
    switch (node.Type()) {
        case YAML::NodeType::Null: return nullptr;
        case YAML::NodeType::Scalar:
            // "?" is the tag of a plain scalar; quoted ones get "!" and stay strings.
            return node.Tag() == "?" ? resolve_plain(node.Scalar()) : json(node.Scalar());
        case YAML::NodeType::Sequence: {
            json a = json::array();
            for (const auto& item : node) a.push_back(to_json(item));
            return a;
        }
        case YAML::NodeType::Map: {
            json o = json::object();
            for (const auto& kv : node) o[kv.first.as<std::string>()] = to_json(kv.second);
            return o;
        }
        default: return nullptr;
    }
}

}  // namespace

nlohmann::json parse_yaml(const std::string& text, const std::string& name) {
    try {
        return to_json(YAML::Load(text));
    } catch (const YAML::Exception& e) {
        throw InvalidArgument("bad_yaml", name + ": line " + std::to_string(e.mark.line + 1) + ": " + e.msg);
    }
}

nlohmann::json load_yaml_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InvalidArgument("cannot_read", path + ": cannot read the file");
    std::stringstream ss;
    ss << in.rdbuf();
    return parse_yaml(ss.str(), path);
}

}  // namespace poslab::cli
