#pragma once
// The core's functions by name over JSON, in the shapes of the JS API
// (camelCase options; matrices as {"shape": [...], "data": [...]}). The
// grader evaluates an exercise's declared core calls through this, natively
// and in wasm alike, so an expected value is the same number in the page and
// in the instructor's re-grade.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace poslab {

// Names call_json accepts.
const std::vector<std::string>& json_api_functions();

// Throws std::invalid_argument for an unknown function, unknown or mistyped
// options, and whatever the function itself rejects.
nlohmann::json call_json(const std::string& function, const nlohmann::json& args);

// Follows a dotted path ("attention.data.0", "maxAbsDiff") into a value.
// Throws std::invalid_argument naming the first part that is not there.
const nlohmann::json& json_at_path(const nlohmann::json& value, const std::string& path);

}  // namespace poslab
