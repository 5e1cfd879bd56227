// Reading a learner's submission before anything is graded: how deep its JSON
// nests, how long its strings are, and whether the learner id is one we accept.
#include "poslab/grading.hpp"

#include <string>
#include <utility>
#include <vector>

#include "poslab/grading_internal.hpp"

namespace poslab::grading {
using namespace internal;

namespace {
Problem too_deep(std::size_t max_depth) {
    return problem("too_deep", {{"max", max_depth}},
                   "nested more than " + std::to_string(max_depth) + " levels deep (arrays and objects)");
}
}  // namespace

Problem json_text_detail(const std::string& text, std::size_t max_depth) {
    std::size_t depth = 0;
    bool in_string = false, escaped = false;
    for (const char ch : text) {
        if (in_string) {
            if (escaped) escaped = false;
            else if (ch == '\\') escaped = true;
            else if (ch == '"') in_string = false;
        } else if (ch == '"') {
            in_string = true;
        } else if (ch == '[' || ch == '{') {
            if (++depth > max_depth) return too_deep(max_depth);
        } else if ((ch == ']' || ch == '}') && depth > 0) {
            --depth;
        }
    }
    return {};
}
std::string json_text_problem(const std::string& text, std::size_t max_depth) { return json_text_detail(text, max_depth).text; }

Problem json_value_detail(const json& value, std::size_t max_depth) {
    std::vector<std::pair<const json*, std::size_t>> stack{{&value, 0}};
    auto long_string = [](const std::string& s) {
        return problem("long_string", {{"bytes", s.size()}, {"max", kMaxStringBytes}},
                       "a string of " + std::to_string(s.size()) + " bytes; strings may be at most " +
                           std::to_string(kMaxStringBytes));
    };
    while (!stack.empty()) {
        const auto [v, depth] = stack.back();
        stack.pop_back();
        if (v->is_string() && v->get_ref<const std::string&>().size() > kMaxStringBytes)
            return long_string(v->get_ref<const std::string&>());
        if (!v->is_structured()) continue;
        if (depth + 1 > max_depth) return too_deep(max_depth);
        if (v->is_object()) {
            for (auto it = v->begin(); it != v->end(); ++it) {
                if (it.key().size() > kMaxStringBytes) return long_string(it.key());
                stack.push_back({&it.value(), depth + 1});
            }
        } else {
            for (const json& e : *v) stack.push_back({&e, depth + 1});
        }
    }
    return {};
}
std::string json_value_problem(const json& value, std::size_t max_depth) { return json_value_detail(value, max_depth).text; }

Problem learner_id_detail(const std::string& id) {
    const Problem not_utf8 = problem("learner_not_utf8", json::object(), "the learner id is not valid UTF-8");
    if (id.empty()) return problem("learner_empty", json::object(), "the learner id is empty");
    if (id.size() > kMaxLearnerIdBytes)
        return problem("learner_too_long", {{"bytes", id.size()}, {"max", kMaxLearnerIdBytes}},
                       "the learner id has " + std::to_string(id.size()) + " bytes; at most " +
                           std::to_string(kMaxLearnerIdBytes) + " are allowed");
    for (std::size_t i = 0; i < id.size();) {
        const unsigned char b = static_cast<unsigned char>(id[i]);
        std::size_t len = b < 0x80 ? 1 : (b & 0xE0) == 0xC0 ? 2 : (b & 0xF0) == 0xE0 ? 3 : (b & 0xF8) == 0xF0 ? 4 : 0;
        if (len == 0 || i + len > id.size()) return not_utf8;
        char32_t cp = len == 1 ? b : len == 2 ? (b & 0x1F) : len == 3 ? (b & 0x0F) : (b & 0x07);
        for (std::size_t k = 1; k < len; ++k) {
            const unsigned char c = static_cast<unsigned char>(id[i + k]);
            if ((c & 0xC0) != 0x80) return not_utf8;
            cp = (cp << 6) | (c & 0x3F);
        }
        const char32_t least[] = {0, 0, 0x80, 0x800, 0x10000};
        if (cp < least[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return not_utf8;
        if (cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp < 0xA0))
            return problem("learner_control", json::object(),
                           "the learner id contains a control character (tab, newline, …); use letters, digits and punctuation");
        i += len;
    }
    return {};
}
std::string learner_id_problem(const std::string& id) { return learner_id_detail(id).text; }

}  // namespace poslab::grading
