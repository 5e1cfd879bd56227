#pragma once
// Errors the core raises. Each is a std::invalid_argument or std::out_of_range
// (so plain catch sites work) that also carries a stable code and the values
// involved, so the page can say the same thing in Japanese or English.
#include <map>
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

// The code and params of any exception (empty code for foreign ones).
inline std::string error_code(const std::exception& e) {
    if (auto* a = dynamic_cast<const InvalidArgument*>(&e)) return a->code();
    if (auto* r = dynamic_cast<const OutOfRange*>(&e)) return r->code();
    return {};
}
inline ErrorParams error_params(const std::exception& e) {
    if (auto* a = dynamic_cast<const InvalidArgument*>(&e)) return a->params();
    if (auto* r = dynamic_cast<const OutOfRange*>(&e)) return r->params();
    return {};
}

}  // namespace poslab
