// The JSON option reader (call_json, as the grader and the page's JSON API use
// it): the first byte picks the function, the rest is the options as JSON.
// Any input gives a result or a std::exception, never a crash.
//
// Inputs whose numbers are valid but large (65 … 10^7: a 4096-token, d = 4096
// run is allowed and slow) are skipped, so the fuzzer spends its time on the
// reader's checks, not on big matrix products; absurd values (negative, huge,
// fractional, NaN-like) still reach the reader.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <string>

#include <nlohmann/json.hpp>

#include "poslab/api_json.hpp"

namespace {
bool expensive(const nlohmann::json& v, int depth = 0) {
    if (depth > 64) return true;
    if (v.is_number()) {
        const double d = std::fabs(v.get<double>());
        return d > 64 && d <= 1e7;
    }
    if (v.is_string()) return v.get_ref<const std::string&>().size() > 256;
    if (v.is_array() && v.size() > 256) return true;
    if (v.is_structured())
        for (const auto& e : v)
            if (expensive(e, depth + 1)) return true;
    return false;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 1) return 0;
    const auto& functions = poslab::json_api_functions();
    const std::string& function = functions[data[0] % functions.size()];
    const nlohmann::json args = nlohmann::json::parse(data + 1, data + size, nullptr, false);
    if (args.is_discarded() || expensive(args)) return 0;
    try {
        const nlohmann::json result = poslab::call_json(function, args);
        (void)result.dump();
    } catch (const std::exception&) {
    }
    return 0;
}
