#pragma once
// Shared by the CLI's subcommands: strict flag parsing (an unknown flag or a
// malformed number is an error that names it) and JSON for tensors.
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <xtensor/xtensor.hpp>

namespace poslab::cli {

class Args {
public:
    // value_flags take a value (--seed 3 or --seed=3); switches take none (--causal).
    Args(int argc, char** argv, std::set<std::string> value_flags, std::set<std::string> switches);
    bool has(const std::string& flag) const { return values_.count(flag) != 0; }
    std::string get(const std::string& flag, const std::string& fallback) const;
    std::size_t get_size(const std::string& flag, std::size_t fallback, std::size_t max = SIZE_MAX) const;
    std::uint32_t get_u32(const std::string& flag, std::uint32_t fallback) const;
    double get_double(const std::string& flag, double fallback) const;
    // A comma-separated list of whole numbers (e.g. --permutation 1,0,2).
    std::vector<std::size_t> get_size_list(const std::string& flag) const;
    const std::vector<std::string>& positional() const { return positional_; }

private:
    std::map<std::string, std::string> values_;
    std::vector<std::string> positional_;
};

// Reads camelCase option names from flags (dModel → --d-model) for the
// core's read_*_options; returnAttention is the switch --no-attention.
class FlagReader {
public:
    explicit FlagReader(const Args& args) : a_(args) {}
    static std::string flag(const std::string& key);
    bool has(const char* key) const;
    std::string string(const char* key, const std::string& fallback) const { return a_.get(flag(key), fallback); }
    bool boolean(const char* key, bool fallback) const;
    double number(const char* key, double fallback) const { return a_.get_double(flag(key), fallback); }
    std::size_t whole(const char* key, std::size_t fallback, double max = 9007199254740991.0) const {
        return a_.get_size(flag(key), fallback, static_cast<std::size_t>(max));
    }
    std::uint32_t seed(const char* key, std::uint32_t fallback) const { return a_.get_u32(flag(key), fallback); }
    std::vector<std::string> strings(const char* key) const;
    // A JSON list of rows: --vectors '[[1,0],[0,1]]'.
    std::vector<std::vector<double>> rows(const char* key) const;

private:
    const Args& a_;
};

// "a,b,,c" → {"a", "b", "", "c"} (empty entries kept, so callers can name them).
std::vector<std::string> split_commas(const std::string& text);

// Whole number from text, strictly (no sign, no trailing junk).
std::size_t parse_size(const std::string& text, const std::string& what, std::size_t max = SIZE_MAX);

// Shortest text that reads back as the same float, as a JSON number.
nlohmann::json float_json(float v);
nlohmann::json tensor_json(const xt::xtensor<float, 1>& t);
nlohmann::json tensor_json(const xt::xtensor<float, 2>& t);
nlohmann::json tensor_json(const xt::xtensor<float, 3>& t);

// Writes the JSON to stdout, or the message to stderr; returns the exit status.
int print_json(const nlohmann::json& j);
int fail(const std::string& message);

}  // namespace poslab::cli
