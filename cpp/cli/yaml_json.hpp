#pragma once
// Reads an exercise file (YAML, or JSON, which is YAML too) into JSON values
// the way js-yaml does in the page, so content hashes agree.
#include <string>

#include <nlohmann/json.hpp>

namespace poslab::cli {

// Throws std::invalid_argument naming the file and line on a syntax error.
nlohmann::json load_yaml_file(const std::string& path);
nlohmann::json parse_yaml(const std::string& text, const std::string& name);

}  // namespace poslab::cli
