#pragma once
// Errors the core raises. Each is a std::invalid_argument or std::out_of_range
// (so plain catch sites work) that also carries a stable code and the values
// involved, so the page can say the same thing in Japanese or English.
#include <map>
#include <new>
#include <stdexcept>
#include <string>

namespace poslab {

using ErrorParams = std::map<std::string, std::string>;

class InvalidArgument : public std::invalid_argument {
public:
    InvalidArgument(std::string code, const std::string& message, ErrorParams params = {})
        : std::invalid_argument(message), code_(std::move(code)), params_(std::move(params)) {}
    const std::string& code() const { return code_; }
    const ErrorParams& params() const { return params_; }

private:
    std::string code_;
    ErrorParams params_;
};

class OutOfRange : public std::out_of_range {
public:
    OutOfRange(std::string code, const std::string& message, ErrorParams params = {})
        : std::out_of_range(message), code_(std::move(code)), params_(std::move(params)) {}
    const std::string& code() const { return code_; }
    const ErrorParams& params() const { return params_; }

private:
    std::string code_;
    ErrorParams params_;
};

// Out of memory or past a container's size (std::bad_alloc, std::length_error,
// whose what() is only "std::bad_alloc" or "vector"): a request too large.
inline bool is_too_large(const std::exception& e) {
    return dynamic_cast<const std::bad_alloc*>(&e) || dynamic_cast<const std::length_error*>(&e);
}

// The code and params of any exception (too_large for the two above, empty
// code for other foreign ones).
inline std::string error_code(const std::exception& e) {
    if (auto* a = dynamic_cast<const InvalidArgument*>(&e)) return a->code();
    if (auto* r = dynamic_cast<const OutOfRange*>(&e)) return r->code();
    if (is_too_large(e)) return "too_large";
    return {};
}
// A readable message for any exception.
inline std::string error_message(const std::exception& e) {
    if (is_too_large(e))
        return std::string("the request is too large for the lab's memory (") + e.what() +
               "); use fewer tokens, a smaller d-model or fewer heads";
    return e.what();
}
inline ErrorParams error_params(const std::exception& e) {
    if (auto* a = dynamic_cast<const InvalidArgument*>(&e)) return a->params();
    if (auto* r = dynamic_cast<const OutOfRange*>(&e)) return r->params();
    return {};
}

}  // namespace poslab
