#pragma once
// Reads an exercise file (YAML, or JSON, which is YAML too) into JSON values
// the way js-yaml does in the page, so content hashes agree.
//
// Exercise files are input too: every limit below is checked, and every error
// is a std::invalid_argument whose message starts with the file's name and the
// field's path ("exercises/x.yaml: variants.n.max: …").
#include <cstddef>
#include <string>

#include <nlohmann/json.hpp>

namespace poslab::cli {

constexpr std::size_t kMaxExerciseFileBytes = 1 << 20;  // 1 MiB (the largest exercise is ~13 KB)
constexpr std::size_t kMaxYamlDepth = 64;               // nesting of mappings and lists
constexpr std::size_t kMaxYamlNodes = 100000;           // values, aliases expanded

// Throws std::invalid_argument naming the file and line on a syntax error, the
// file and field path for a value out of range or a limit passed.
nlohmann::json load_yaml_file(const std::string& path);
nlohmann::json parse_yaml(const std::string& text, const std::string& name);

// An exercise file: load_yaml_file, then it must be a mapping with a text id,
// and its variants must be drawable (grading::make_variant's checks).
nlohmann::json load_exercise_file(const std::string& path);

}  // namespace poslab::cli
