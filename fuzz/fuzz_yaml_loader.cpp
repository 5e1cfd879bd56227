// The exercise loader on any bytes, as `poslab exercise-info / variant /
// grade --exercises` read a file: YAML → JSON (limits on size, depth, node
// count, numbers), then the variant draw and the content hash. Errors are
// std::exception whose message starts with the file's name; never a crash.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <string>

#include "poslab/grading.hpp"
#include "yaml_json.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    nlohmann::json ex;
    try {
        ex = poslab::cli::parse_yaml(text, "fuzz.yaml");
    } catch (const std::exception& e) {
        if (std::string(e.what()).rfind("fuzz.yaml: ", 0) != 0) std::abort();  // every error names the file
        return 0;
    }
    try {
        (void)poslab::grading::content_hash(ex);
        (void)poslab::grading::make_variant(ex, static_cast<std::uint32_t>(size));
    } catch (const std::exception&) {
    }
    return 0;
}
