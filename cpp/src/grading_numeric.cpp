// Numeric answers: a number as a learner types it (parse_number), the rtol/atol
// rule (is_close), and a numeric question's check with its named mistakes.
#include "poslab/grading.hpp"

#include <cmath>
#include <string>
#include <vector>

#include "poslab/grading_internal.hpp"

namespace poslab::grading {
using namespace internal;
namespace internal {

// Decodes one UTF-8 code point at s[i] (the text is known to be UTF-8 when it
// comes from JSON); returns it and advances i.
char32_t next_code_point(const std::string& s, std::size_t& i) {
    const unsigned char b = static_cast<unsigned char>(s[i]);
    int len = b < 0x80 ? 1 : (b & 0xE0) == 0xC0 ? 2 : (b & 0xF0) == 0xE0 ? 3 : (b & 0xF8) == 0xF0 ? 4 : 1;
    if (i + len > s.size()) len = 1;
    char32_t cp = len == 1 ? b : len == 2 ? (b & 0x1F) : len == 3 ? (b & 0x0F) : (b & 0x07);
    for (int k = 1; k < len; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
    i += len;
    return cp;
}

}  // namespace internal

namespace {

std::pair<double, double> tolerance_of(const json& question) {
    double rtol = kDefaultRtol, atol = kDefaultAtol;
    if (question.contains("tolerance")) {
        const json& t = question["tolerance"];
        if (t.contains("rtol")) rtol = t["rtol"].get<double>();
        if (t.contains("atol")) atol = t["atol"].get<double>();
        // Giving only atol means "absolute only", as the exercise files read.
        if (t.contains("atol") && !t.contains("rtol")) rtol = 0.0;
    }
    return {rtol, atol};
}

void set_status(AttemptResult& r, std::size_t right, std::size_t total) {
    r.status = right == total ? "correct" : right == 0 ? "incorrect" : "partial";
}

}  // namespace

bool is_close(double answer, double expected, double rtol, double atol) {
    if (!std::isfinite(answer) || !std::isfinite(expected)) return false;
    return std::fabs(answer - expected) <= atol + rtol * std::fabs(expected);
}

std::optional<double> parse_number(const std::string& text) {
    // Bounded before anything else: no answer field is a hundred characters long.
    if (text.size() > 4 * kMaxNumberChars) return std::nullopt;
    std::string ascii;
    for (std::size_t i = 0; i < text.size();) {
        const char32_t c = next_code_point(text, i);
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == 0x3000 || c == 0x00A0) continue;
        if (c >= 0xFF10 && c <= 0xFF19) ascii += char('0' + (c - 0xFF10));
        else if (c == 0xFF0E) ascii += '.';
        else if (c == 0xFF0B) ascii += '+';
        else if (c == 0xFF0D || c == 0x2212 || c == 0x2012 || c == 0x2013 || c == 0x2014 || c == 0xFE63) ascii += '-';
        else if (c == 0xFF45 || c == 0xFF25) ascii += 'e';
        else if (c < 0x80) ascii += static_cast<char>(c);
        else return std::nullopt;
    }
    if (ascii.size() > kMaxNumberChars) return std::nullopt;
    // [+-]? (digits [.] digits? | . digits) ([eE] [+-]? digits)?, scanned once
    // left to right (std::regex recursed per character and overflowed the stack).
    const std::size_t n = ascii.size();
    std::size_t i = 0;
    auto digits = [&] {
        std::size_t count = 0;
        while (i < n && ascii[i] >= '0' && ascii[i] <= '9') ++i, ++count;
        return count;
    };
    if (i < n && (ascii[i] == '+' || ascii[i] == '-')) ++i;
    std::size_t mantissa = digits();
    if (i < n && ascii[i] == '.') {
        ++i;
        mantissa += digits();
    }
    if (mantissa == 0) return std::nullopt;
    if (i < n && (ascii[i] == 'e' || ascii[i] == 'E')) {
        ++i;
        if (i < n && (ascii[i] == '+' || ascii[i] == '-')) ++i;
        if (digits() == 0) return std::nullopt;
    }
    if (i != n) return std::nullopt;
    const double v = std::strtod(ascii.c_str(), nullptr);
    if (!std::isfinite(v)) return std::nullopt;
    return v;
}

namespace internal {

AttemptResult check_numeric(const json& q, const json& answer, const json& variant, const json& lab,
                            const std::string& lang) {
    const json& fields = q.at("fields");
    if (!answer.is_array() || answer.size() != fields.size())
        return malformed("this question takes " + std::to_string(fields.size()) + " number" +
                         (fields.size() == 1 ? "" : "s"));
    // Every field is read first, so a malformed answer says which fields
    // (parts: true where the field is a number) and costs no attempt.
    std::vector<double> typed;
    std::vector<bool> readable;
    std::string first_problem;
    for (std::size_t i = 0; i < answer.size(); ++i) {
        std::optional<double> v;
        if (answer[i].is_string()) v = parse_number(answer[i].get<std::string>());
        else if (answer[i].is_number()) v = answer[i].get<double>();
        const bool ok = v && std::isfinite(*v);
        readable.push_back(ok);
        typed.push_back(ok ? *v : 0.0);
        if (!ok && first_problem.empty()) {
            const std::string shown = answer[i].is_string() ? answer[i].get<std::string>() : answer[i].dump();
            first_problem = shown.empty() ? "field " + std::to_string(i + 1) + " is empty"
                                          : "field " + std::to_string(i + 1) + ": '" + shown + "' is not a number";
        }
    }
    if (!first_problem.empty()) {
        AttemptResult bad = malformed(first_problem);
        bad.parts = readable;
        return bad;
    }
    const auto [rtol, atol] = tolerance_of(q);
    AttemptResult r;
    std::size_t right = 0;
    for (std::size_t i = 0; i < fields.size(); ++i) {
        const double want = expected_number(fields[i].at("expect"), variant, lab, lang);
        r.expected.push_back(want);
        r.parts.push_back(is_close(typed[i], want, rtol, atol));
        right += r.parts.back();
    }
    r.score = double(right) / double(fields.size());
    set_status(r, right, fields.size());
    if (r.status != "correct" && q.contains("mistakes")) {
        std::size_t index = 0;
        for (const json& m : q["mistakes"]) {
            ++index;
            const json& pins = m.at("expect");
            bool any = false, all = true;
            for (std::size_t i = 0; i < pins.size() && i < typed.size(); ++i) {
                if (pins[i].is_null()) continue;
                any = true;
                if (!is_close(typed[i], expected_number(pins[i], variant, lab, lang), rtol, atol)) all = false;
            }
            if (any && all) {
                r.feedback = m.at("feedback");
                // Which named mistake: its `id` if the file gives one, else its place in the list.
                const std::string id = m.contains("id") && m["id"].is_string() ? m["id"].get<std::string>()
                                                                              : "mistake-" + std::to_string(index);
                r.mistake = json{{"id", id}, {"index", index}, {"feedback", m.at("feedback")}};
                break;
            }
        }
    }
    return r;
}

}  // namespace internal
}  // namespace poslab::grading
