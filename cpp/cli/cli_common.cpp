#include "cli_common.hpp"

#include <iostream>

#include "poslab/errors.hpp"

namespace poslab::cli {

Args::Args(int argc, char** argv, std::set<std::string> value_flags, std::set<std::string> switches) {
    auto allowed = [&] {
        std::string s;
        for (const auto& f : value_flags) s += (s.empty() ? "" : ", ") + f;
        for (const auto& f : switches) s += (s.empty() ? "" : ", ") + f;
        return s;
    };
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        // "--": everything after it is a positional argument (a file named --help is a file).
        if (a == "--") {
            for (++i; i < argc; ++i) positional_.push_back(argv[i]);
            break;
        }
        if (a.rfind("--", 0) != 0) {
            positional_.push_back(a);
            continue;
        }
        std::string value;
        bool inline_value = false;
        if (auto eq = a.find('='); eq != std::string::npos) {
            value = a.substr(eq + 1);
            a = a.substr(0, eq);
            inline_value = true;
        }
        if (switches.count(a)) {
            if (inline_value) throw InvalidArgument("cli", a + " takes no value");
            values_[a] = "1";
        } else if (value_flags.count(a)) {
            if (!inline_value) {
                if (i + 1 >= argc) throw InvalidArgument("cli", a + " needs a value");
                value = argv[++i];
            }
            if (values_.count(a)) throw InvalidArgument("cli", a + " is given twice");
            values_[a] = value;
        } else {
            throw InvalidArgument("cli", "unknown option " + a + "; allowed: " + allowed());
        }
    }
}

std::string Args::get(const std::string& flag, const std::string& fallback) const {
    auto it = values_.find(flag);
    return it == values_.end() ? fallback : it->second;
}

std::size_t parse_size(const std::string& text, const std::string& what, std::size_t max) {
    std::size_t v = 0;
    const char* end = text.data() + text.size();
    auto [p, ec] = std::from_chars(text.data(), end, v);
    if (text.empty() || ec != std::errc() || p != end || v > max)
        throw InvalidArgument("cli", what + " must be a whole number" +
                                         (max == SIZE_MAX ? std::string() : " from 0 to " + std::to_string(max)) +
                                         ", got '" + text + "'");
    return v;
}

std::size_t Args::get_size(const std::string& flag, std::size_t fallback, std::size_t max) const {
    return has(flag) ? parse_size(get(flag, ""), flag, max) : fallback;
}

std::uint32_t Args::get_u32(const std::string& flag, std::uint32_t fallback) const {
    return has(flag) ? static_cast<std::uint32_t>(parse_size(get(flag, ""), flag, 4294967295u)) : fallback;
}

double Args::get_double(const std::string& flag, double fallback) const {
    if (!has(flag)) return fallback;
    const std::string text = get(flag, "");
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(v))
        throw InvalidArgument("cli", flag + " must be a finite number, got '" + text + "'");
    return v;
}

std::vector<std::size_t> Args::get_size_list(const std::string& flag) const {
    std::vector<std::size_t> out;
    for (const std::string& entry : split_commas(get(flag, ""))) out.push_back(parse_size(entry, flag + " entry"));
    return out;
}

std::string FlagReader::flag(const std::string& key) {
    std::string f = "--";
    for (char c : key) {
        if (c >= 'A' && c <= 'Z') f += std::string("-") + char(c - 'A' + 'a');
        else f += c;
    }
    return f;
}

bool FlagReader::has(const char* key) const {
    if (std::string(key) == "returnAttention") return a_.has("--no-attention");
    return a_.has(flag(key));
}

bool FlagReader::boolean(const char* key, bool fallback) const {
    if (std::string(key) == "returnAttention") return !a_.has("--no-attention");
    return a_.has(flag(key)) ? true : fallback;
}

std::vector<std::string> split_commas(const std::string& text) {
    std::vector<std::string> out;
    std::size_t start = 0;
    while (start <= text.size()) {
        const std::size_t comma = std::min(text.find(',', start), text.size());
        out.push_back(text.substr(start, comma - start));
        start = comma + 1;
    }
    return out;
}

std::vector<std::string> FlagReader::strings(const char* key) const { return split_commas(a_.get(flag(key), "")); }

std::vector<std::vector<double>> FlagReader::rows(const char* key) const {
    const std::string name = flag(key);
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(a_.get(name, ""));
    } catch (const nlohmann::json::parse_error& e) {
        throw InvalidArgument("cli", name + " is not valid JSON: " + e.what());
    }
    if (!j.is_array()) throw InvalidArgument("cli", name + " must be a JSON list of rows, e.g. [[1,0],[0,1]]");
    std::vector<std::vector<double>> rows;
    for (std::size_t r = 0; r < j.size(); ++r) {
        if (!j[r].is_array()) throw InvalidArgument("cli", name + " row " + std::to_string(r) + " is not a list of numbers");
        std::vector<double> row;
        for (std::size_t c = 0; c < j[r].size(); ++c) {
            if (!j[r][c].is_number())
                throw InvalidArgument("cli", name + "[" + std::to_string(r) + "][" + std::to_string(c) + "] is not a number");
            row.push_back(j[r][c].get<double>());
        }
        rows.push_back(std::move(row));
    }
    return rows;
}

nlohmann::json float_json(float v) {
    char buf[32];
    auto [p, ec] = std::to_chars(buf, buf + sizeof buf, v);
    (void)ec;
    *p = '\0';
    return std::strtod(buf, nullptr);
}

nlohmann::json tensor_json(const xt::xtensor<float, 1>& t) {
    nlohmann::json a = nlohmann::json::array();
    for (float v : t) a.push_back(float_json(v));
    return a;
}

nlohmann::json tensor_json(const xt::xtensor<float, 2>& t) {
    nlohmann::json a = nlohmann::json::array();
    for (std::size_t i = 0; i < t.shape(0); ++i) {
        nlohmann::json row = nlohmann::json::array();
        for (std::size_t j = 0; j < t.shape(1); ++j) row.push_back(float_json(t(i, j)));
        a.push_back(std::move(row));
    }
    return a;
}

nlohmann::json tensor_json(const xt::xtensor<float, 3>& t) {
    nlohmann::json a = nlohmann::json::array();
    for (std::size_t h = 0; h < t.shape(0); ++h) {
        nlohmann::json m = nlohmann::json::array();
        for (std::size_t i = 0; i < t.shape(1); ++i) {
            nlohmann::json row = nlohmann::json::array();
            for (std::size_t j = 0; j < t.shape(2); ++j) row.push_back(float_json(t(h, i, j)));
            m.push_back(std::move(row));
        }
        a.push_back(std::move(m));
    }
    return a;
}

int print_json(const nlohmann::json& j) {
    // JSON has no Inf or NaN (nlohmann writes null, which reads like a masked
    // score): a non-finite result is an overflow, and an error that says so.
    std::vector<std::pair<const nlohmann::json*, std::string>> stack{{&j, ""}};
    while (!stack.empty()) {
        const auto [v, where] = stack.back();
        stack.pop_back();
        if (v->is_number_float() && !std::isfinite(v->get<double>()))
            throw InvalidArgument("non_finite", "the result is not a finite number at " + (where.empty() ? "the top" : where) +
                                                    " (an overflow past float range); use smaller inputs (values, base, d-model)");
        if (v->is_object())
            for (auto it = v->begin(); it != v->end(); ++it) stack.push_back({&it.value(), where.empty() && it.key().size() ? it.key() : where});
        else if (v->is_array())
            for (const auto& e : *v) stack.push_back({&e, where});
    }
    std::cout << j.dump() << '\n';
    return 0;
}

int fail(const std::string& message) {
    std::string one_line = message;
    for (char& c : one_line)
        if (c == '\n') c = ' ';
    std::cerr << "poslab: " << one_line << '\n';
    return 2;
}

}  // namespace poslab::cli
