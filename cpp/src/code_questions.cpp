#include "poslab/code_questions.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "poslab/errors.hpp"
#include "poslab/grading.hpp"
#include "poslab/random.hpp"

namespace poslab::grading {
namespace {

using json = nlohmann::json;

// Sizes a case may have: every case stays small (the sandbox has a time limit,
// and a hostile exercise file must not make the grader allocate without bound).
constexpr long long kMaxSize = 256;
constexpr std::size_t kMaxElements = 65536;
constexpr std::size_t kMaxHiddenCases = 50;
constexpr double kDefaultCodeRtol = 1e-6, kDefaultCodeAtol = 1e-9;

InvalidArgument bad_args(const std::string& fn, const std::string& what) {
    return InvalidArgument("bad_code_args", fn + ": " + what);
}
InvalidArgument file_error(const std::string& what) { return InvalidArgument("bad_exercise", what); }

long long whole_arg(const std::string& fn, const json& args, std::size_t i, const char* name, long long lo, long long hi) {
    if (!args.is_array() || i >= args.size()) throw bad_args(fn, std::string("missing argument ") + name);
    const json& v = args[i];
    if (!v.is_number() || v.get<double>() != std::floor(v.get<double>()) || v.get<double>() < double(lo) ||
        v.get<double>() > double(hi))
        throw bad_args(fn, std::string(name) + " must be a whole number from " + std::to_string(lo) + " to " +
                               std::to_string(hi) + ", got " + v.dump());
    return static_cast<long long>(v.get<double>());
}

double number_arg(const std::string& fn, const json& v, const std::string& name) {
    if (!v.is_number() || !std::isfinite(v.get<double>())) throw bad_args(fn, name + " must be a number, got " + v.dump());
    return v.get<double>();
}

std::vector<double> vector_arg(const std::string& fn, const json& v, const std::string& name) {
    if (!v.is_array() || v.empty() || v.size() > kMaxElements) throw bad_args(fn, name + " must be a non-empty list of numbers");
    std::vector<double> out;
    for (const json& e : v) out.push_back(number_arg(fn, e, name + "[i]"));
    return out;
}

std::vector<std::vector<double>> matrix_arg(const std::string& fn, const json& v, const std::string& name) {
    if (!v.is_array() || v.empty() || v.size() > kMaxSize) throw bad_args(fn, name + " must be a non-empty list of lists");
    std::vector<std::vector<double>> out;
    for (const json& row : v) {
        out.push_back(vector_arg(fn, row, name + "[i]"));
        if (out.back().size() != out.front().size()) throw bad_args(fn, name + ": rows of different lengths");
    }
    return out;
}

// PE[p][2i] = sin(p / 10000^(2i/D)), PE[p][2i+1] = cos(…).
json sinusoidal(const std::string& fn, long long S, long long D, const std::string& mistake) {
    if (D % 2 != 0) throw bad_args(fn, "d_model must be even, got " + std::to_string(D));
    if (S * D > static_cast<long long>(kMaxElements)) throw bad_args(fn, "too large");
    json out = json::array();
    for (long long p = 0; p < S; ++p) {
        json row = json::array();
        for (long long i = 0; i < D / 2; ++i) {
            const double k = mistake == "i_not_2i" ? double(i) : double(2 * i);
            const double exponent = mistake == "no_divide_d_model" ? k : k / double(D);
            const double angle = double(p) / std::pow(10000.0, exponent);
            double even = std::sin(angle), odd = std::cos(angle);
            if (mistake == "sin_cos_swapped") std::swap(even, odd);
            row.push_back(even);
            row.push_back(odd);
        }
        out.push_back(row);
    }
    return out;
}

std::vector<double> softmax(const std::vector<double>& s) {
    const double m = *std::max_element(s.begin(), s.end());
    std::vector<double> w(s.size());
    double sum = 0;
    for (std::size_t j = 0; j < s.size(); ++j) sum += (w[j] = std::exp(s[j] - m));
    for (double& x : w) x /= sum;
    return w;
}

bool allowed(std::size_t i, std::size_t j, const std::string& mistake) {
    if (mistake == "no_mask") return true;
    return mistake == "mask_transposed" ? j >= i : j <= i;
}

const std::map<std::string, std::vector<std::string>>& mistakes_by_function() {
    static const std::map<std::string, std::vector<std::string>> m = {
        {"build_sinusoidal_encoding", {"sin_cos_swapped", "i_not_2i", "no_divide_d_model"}},
        {"add_positional_information", {"sin_cos_swapped", "i_not_2i", "no_divide_d_model"}},
        {"attention_row", {"no_scale", "divide_by_dk"}},
        {"causal_mask", {"mask_transposed"}},
        {"masked_softmax", {"softmax_wrong_axis", "mask_transposed", "no_mask"}},
        {"rope_rotate", {"negative_angle", "i_not_2i"}},
        {"alibi_slopes", {"naive_rule"}},
    };
    return m;
}

std::vector<double> alibi_geometric(long long n) {
    const double start = std::pow(2.0, -8.0 / double(n));
    std::vector<double> out;
    for (long long k = 1; k <= n; ++k) out.push_back(std::pow(start, double(k)));
    return out;
}

// The shape of a value as text, e.g. [3][4] (for messages).
}  // namespace

const std::vector<std::string>& code_functions() {
    static const std::vector<std::string> names = [] {
        std::vector<std::string> n;
        for (const auto& [k, v] : mistakes_by_function()) n.push_back(k);
        return n;
    }();
    return names;
}

std::vector<std::string> code_mistakes(const std::string& function) {
    const auto it = mistakes_by_function().find(function);
    return it == mistakes_by_function().end() ? std::vector<std::string>{} : it->second;
}

json code_reference(const std::string& fn, const json& args, const std::string& mistake) {
    const auto it = mistakes_by_function().find(fn);
    if (it == mistakes_by_function().end()) {
        std::string list;
        for (const auto& n : code_functions()) list += (list.empty() ? "" : ", ") + n;
        throw InvalidArgument("unknown_function", "no code reference for '" + fn + "'; known: " + list);
    }
    if (!mistake.empty() && std::find(it->second.begin(), it->second.end(), mistake) == it->second.end())
        throw InvalidArgument("unknown_mistake", "'" + mistake + "' is not a mistake the core knows for " + fn);
    if (!args.is_array()) throw bad_args(fn, "args must be a list (the positional arguments)");
    if (fn == "build_sinusoidal_encoding") {
        if (args.size() != 2) throw bad_args(fn, "takes (seq_len, d_model)");
        const long long S = whole_arg(fn, args, 0, "seq_len", 0, kMaxSize * 8);
        const long long D = whole_arg(fn, args, 1, "d_model", 1, kMaxSize * 8);
        return sinusoidal(fn, S, D, mistake);
    }
    if (fn == "add_positional_information") {
        if (args.size() != 1 || !args[0].is_array() || args[0].empty() || args[0].size() > kMaxSize)
            throw bad_args(fn, "takes (hidden_states) of shape [B][S][D]");
        json out = json::array();
        json pe;
        for (const json& batch : args[0]) {
            const auto h = matrix_arg(fn, batch, "hidden_states[b]");
            if (pe.is_null()) pe = sinusoidal(fn, long(h.size()), long(h[0].size()), mistake);
            if (h.size() != pe.size() || h[0].size() != pe[0].size()) throw bad_args(fn, "batches of different shapes");
            json rows = json::array();
            for (std::size_t s = 0; s < h.size(); ++s) {
                json row = json::array();
                for (std::size_t d = 0; d < h[s].size(); ++d) row.push_back(h[s][d] + pe[s][d].get<double>());
                rows.push_back(row);
            }
            out.push_back(rows);
        }
        return out;
    }
    if (fn == "attention_row") {
        if (args.size() != 3) throw bad_args(fn, "takes (q, keys, values)");
        const auto q = vector_arg(fn, args[0], "q");
        const auto K = matrix_arg(fn, args[1], "keys");
        const auto V = matrix_arg(fn, args[2], "values");
        if (K[0].size() != q.size()) throw bad_args(fn, "each key must have the length of q");
        if (K.size() != V.size()) throw bad_args(fn, "as many values as keys");
        const double dk = double(q.size());
        const double scale = mistake == "no_scale" ? 1.0 : mistake == "divide_by_dk" ? dk : std::sqrt(dk);
        std::vector<double> s;
        for (const auto& k : K) {
            double dot = 0;
            for (std::size_t i = 0; i < q.size(); ++i) dot += q[i] * k[i];
            s.push_back(dot / scale);
        }
        const auto w = softmax(s);
        json out = json::array();
        for (std::size_t d = 0; d < V[0].size(); ++d) {
            double acc = 0;
            for (std::size_t j = 0; j < V.size(); ++j) acc += w[j] * V[j][d];
            out.push_back(acc);
        }
        return out;
    }
    if (fn == "causal_mask") {
        if (args.size() != 1) throw bad_args(fn, "takes (seq_len)");
        const long long S = whole_arg(fn, args, 0, "seq_len", 0, kMaxSize);
        json out = json::array();
        for (long long i = 0; i < S; ++i) {
            json row = json::array();
            for (long long j = 0; j < S; ++j) row.push_back(allowed(std::size_t(i), std::size_t(j), mistake) ? 1 : 0);
            out.push_back(row);
        }
        return out;
    }
    if (fn == "masked_softmax") {
        if (args.size() != 1) throw bad_args(fn, "takes (scores) of shape [S][S]");
        const auto sc = matrix_arg(fn, args[0], "scores");
        const std::size_t S = sc.size();
        if (sc[0].size() != S) throw bad_args(fn, "scores must be square");
        std::vector<std::vector<double>> w(S, std::vector<double>(S, 0.0));
        const std::string mask = mistake == "softmax_wrong_axis" ? "" : mistake;
        for (std::size_t a = 0; a < S; ++a) {
            // Row a (over keys j), or with the wrong axis column a (over queries i).
            std::vector<double> vals;
            std::vector<std::size_t> where;
            for (std::size_t b = 0; b < S; ++b) {
                const std::size_t i = mistake == "softmax_wrong_axis" ? b : a, j = mistake == "softmax_wrong_axis" ? a : b;
                if (allowed(i, j, mask)) {
                    vals.push_back(sc[i][j]);
                    where.push_back(b);
                }
            }
            if (vals.empty()) continue;
            const auto p = softmax(vals);
            for (std::size_t k = 0; k < where.size(); ++k) {
                if (mistake == "softmax_wrong_axis") w[where[k]][a] = p[k];
                else w[a][where[k]] = p[k];
            }
        }
        return w;
    }
    if (fn == "rope_rotate") {
        if (args.size() != 3) throw bad_args(fn, "takes (x, pos, base)");
        const auto x = vector_arg(fn, args[0], "x");
        if (x.size() % 2 != 0) throw bad_args(fn, "x must have an even length, got " + std::to_string(x.size()));
        const double pos = number_arg(fn, args[1], "pos");
        const double base = number_arg(fn, args[2], "base");
        if (!(base > 1.0)) throw bad_args(fn, "base must be greater than 1");
        const double D = double(x.size());
        json out = json::array();
        for (std::size_t i = 0; i < x.size() / 2; ++i) {
            const double k = mistake == "i_not_2i" ? double(i) : double(2 * i);
            double theta = pos * std::pow(base, -k / D);
            if (mistake == "negative_angle") theta = -theta;
            const double a = x[2 * i], b = x[2 * i + 1];
            out.push_back(a * std::cos(theta) - b * std::sin(theta));
            out.push_back(a * std::sin(theta) + b * std::cos(theta));
        }
        return out;
    }
    // alibi_slopes
    if (args.size() != 1) throw bad_args(fn, "takes (n_heads)");
    const long long n = whole_arg(fn, args, 0, "n_heads", 1, kMaxSize);
    if (mistake == "naive_rule") return alibi_geometric(n);
    long long m = 1;
    while (m * 2 <= n) m *= 2;
    std::vector<double> out = alibi_geometric(m);
    const std::vector<double> extra = alibi_geometric(2 * m);
    for (long long k = 0; k < n - m; ++k) out.push_back(extra[std::size_t(2 * k)]);
    return out;
}

namespace {

// One size from its spec: [lo, hi] (whole numbers), {even: [lo, hi]}, {odd: [lo, hi]}, {choice: [...]}.
long long draw_size(const json& spec, Rng& rng, const std::string& at) {
    auto range = [&](const json& r) {
        if (!r.is_array() || r.size() != 2 || !r[0].is_number_integer() || !r[1].is_number_integer() ||
            r[0].get<long long>() < 0 || r[1].get<long long>() > kMaxSize || r[0].get<long long>() > r[1].get<long long>())
            throw file_error(at + ": a size range is [min, max], whole numbers from 0 to " + std::to_string(kMaxSize));
        return std::pair<long long, long long>{r[0].get<long long>(), r[1].get<long long>()};
    };
    auto pick = [&](long long lo, long long hi) { return lo + static_cast<long long>(rng.next_u64() % std::uint64_t(hi - lo + 1)); };
    if (spec.is_array()) {
        const auto [lo, hi] = range(spec);
        return pick(lo, hi);
    }
    if (spec.is_object() && (spec.contains("even") || spec.contains("odd"))) {
        const bool even = spec.contains("even");
        const auto [lo, hi] = range(spec[even ? "even" : "odd"]);
        std::vector<long long> ok;
        for (long long v = lo; v <= hi; ++v)
            if ((v % 2 == 0) == even) ok.push_back(v);
        if (ok.empty()) throw file_error(at + ": no " + std::string(even ? "even" : "odd") + " number in the range");
        return ok[rng.next_u64() % ok.size()];
    }
    if (spec.is_object() && spec.contains("choice") && spec["choice"].is_array() && !spec["choice"].empty()) {
        const json& c = spec["choice"][rng.next_u64() % spec["choice"].size()];
        if (!c.is_number_integer()) throw file_error(at + ": choice holds whole numbers");
        return c.get<long long>();
    }
    throw file_error(at + ": a size is [min, max], {even: [min, max]}, {odd: [min, max]} or {choice: [...]}, got " + spec.dump());
}

json draw_numbers(const std::vector<long long>& dims, std::size_t k, double lo, double hi, Rng& rng) {
    json out = json::array();
    for (long long i = 0; i < dims[k]; ++i) {
        if (k + 1 == dims.size()) out.push_back(std::round((lo + (hi - lo) * rng.uniform()) * 100.0) / 100.0);
        else out.push_back(draw_numbers(dims, k + 1, lo, hi, rng));
    }
    return out;
}

// One argument: a size's name, a literal number, {list: [dims], range: [lo, hi]}, {choice: [...]}.
json draw_arg(const json& spec, const std::map<std::string, long long>& sizes, Rng& rng, const std::string& at) {
    if (spec.is_string()) {
        const auto it = sizes.find(spec.get<std::string>());
        if (it == sizes.end()) throw file_error(at + ": '" + spec.get<std::string>() + "' is not one of the sizes");
        return it->second;
    }
    if (spec.is_number()) return spec;
    if (spec.is_object() && spec.contains("choice") && spec["choice"].is_array() && !spec["choice"].empty())
        return spec["choice"][rng.next_u64() % spec["choice"].size()];
    if (spec.is_object() && spec.contains("list") && spec["list"].is_array() && !spec["list"].empty()) {
        std::vector<long long> dims;
        std::size_t total = 1;
        for (const json& d : spec["list"]) {
            const long long v = d.is_string() ? draw_arg(d, sizes, rng, at).get<long long>()
                                : d.is_number_integer() ? d.get<long long>() : -1;
            if (v < 0 || v > kMaxSize) throw file_error(at + ": list dimensions are sizes or whole numbers 0…" + std::to_string(kMaxSize));
            dims.push_back(v);
            total *= std::size_t(std::max<long long>(v, 1));
            if (total > kMaxElements) throw file_error(at + ": the list would have more than " + std::to_string(kMaxElements) + " numbers");
        }
        const json r = spec.value("range", json::array({-1.0, 1.0}));
        if (!r.is_array() || r.size() != 2 || !r[0].is_number() || !r[1].is_number())
            throw file_error(at + ": range is [low, high]");
        if (dims.empty() || dims[0] == 0) return json::array();
        return draw_numbers(dims, 0, r[0].get<double>(), r[1].get<double>(), rng);
    }
    throw file_error(at + ": an argument is a size's name, a number, {list: [dims], range: [low, high]} or {choice: [...]}");
}

bool is_number_value(const json& v) { return v.is_number(); }

// The first difference between expected and got, or null.
json first_difference(const json& expected, const json& got, double rtol, double atol, json& at) {
    if (expected.is_array()) {
        if (!got.is_array())
            return {{"kind", "type"}, {"got", got.is_object() ? got.value("type", "object") : got.is_number() ? "number" : "other"},
                    {"want", "list"}};
        if (got.size() != expected.size())
            return {{"kind", "shape"}, {"expected_len", expected.size()}, {"got_len", got.size()}};
        for (std::size_t i = 0; i < expected.size(); ++i) {
            at.push_back(i);
            json d = first_difference(expected[i], got[i], rtol, atol, at);
            if (!d.is_null()) return d;
            at.erase(at.size() - 1);
        }
        return nullptr;
    }
    if (!is_number_value(got))
        return {{"kind", "type"}, {"got", got.is_array() ? "list" : got.is_object() ? got.value("type", "object") : "other"},
                {"want", "number"}};
    if (!is_close(got.get<double>(), expected.get<double>(), rtol, atol)) return {{"kind", "value"}, {"got", got}};
    return nullptr;
}

std::pair<double, double> tolerance_of(const json& q) {
    double rtol = kDefaultCodeRtol, atol = kDefaultCodeAtol;
    if (q.contains("tolerance") && q["tolerance"].is_object()) {
        const json& t = q["tolerance"];
        if (t.contains("rtol")) rtol = t["rtol"].get<double>();
        if (t.contains("atol")) {
            atol = t["atol"].get<double>();
            if (!t.contains("rtol")) rtol = 0.0;
        }
    }
    return {rtol, atol};
}

}  // namespace

json code_cases(const json& q, std::uint32_t seed) {
    const std::string id = q.value("id", "?");
    json out = {{"visible", json::array()}, {"hidden", json::array()}};
    for (const json& c : q.value("cases", json::array())) {
        json one = {{"args", c.at("args")}};
        if (c.contains("raises")) one["raises"] = c["raises"];
        out["visible"].push_back(one);
    }
    Rng rng(mix_seed(seed, hash_string("code\x1f" + id)));
    std::size_t n = 0;
    const json groups = q.value("hidden", json::array());
    for (std::size_t g = 0; g < groups.size(); ++g) {
        const json& group = groups[g];
        const std::string at = id + ".hidden[" + std::to_string(g) + "]";
        const json count_v = group.value("count", json(1));
        if (!count_v.is_number_integer() || count_v.get<long long>() < 1 || count_v.get<long long>() > 20)
            throw file_error(at + ".count: a whole number from 1 to 20");
        for (long long k = 0; k < count_v.get<long long>(); ++k) {
            if (++n > kMaxHiddenCases) throw file_error(id + ": at most " + std::to_string(kMaxHiddenCases) + " hidden cases");
            std::map<std::string, long long> sizes;
            const json size_specs = group.value("sizes", json::object());  // kept alive for items()
            for (const auto& [name, spec] : size_specs.items())
                sizes[name] = draw_size(spec, rng, at + ".sizes." + name);
            json args = json::array();
            const json arg_specs = group.value("args", json::array());
            for (std::size_t i = 0; i < arg_specs.size(); ++i)
                args.push_back(draw_arg(arg_specs[i], sizes, rng, at + ".args[" + std::to_string(i) + "]"));
            json one = {{"args", args}};
            if (group.contains("raises")) one["raises"] = group["raises"];
            out["hidden"].push_back(one);
        }
    }
    return out;
}

json code_compare(const json& q, const json& cases, const json& results, bool show_expected) {
    const std::string fn = q.value("function", "");
    const auto [rtol, atol] = tolerance_of(q);
    json out = {{"passed", 0}, {"total", cases.size()}, {"cases", json::array()}};
    int passed = 0;
    for (std::size_t i = 0; i < cases.size(); ++i) {
        const json& c = cases[i];
        const json& r = results[i];
        json row = {{"ok", false}};
        const bool ran = r.is_object() && r.value("ok", false);
        if (c.contains("raises")) {
            if (ran) row["kind"] = "no_raise";
            else if (r.is_object() && r.value("error", "") != c["raises"].get<std::string>()) {
                row["kind"] = "wrong_exception";
                row["error"] = r.value("error", "");
                row["want"] = c["raises"];
            } else
                row["ok"] = true;
        } else if (!ran) {
            row["kind"] = "exception";
            row["error"] = r.is_object() ? r.value("error", "Exception") : "Exception";
            row["message"] = r.is_object() ? r.value("message", "") : "";
        } else {
            const json expected = code_reference(fn, c.at("args"));
            json at = json::array();
            json d = first_difference(expected, r.contains("value") ? r["value"] : json(nullptr), rtol, atol, at);
            if (d.is_null()) row["ok"] = true;
            else {
                for (const auto& [k, v] : d.items()) row[k] = v;
                row["at"] = at;
            }
            if (show_expected) row["expected"] = expected;
        }
        if (row["ok"].get<bool>()) ++passed;
        out["cases"].push_back(row);
    }
    out["passed"] = passed;
    return out;
}

json code_run(const json& q, const json& results) {
    const json cases = code_cases(q, 0)["visible"];
    if (!results.is_array() || results.size() != cases.size())
        throw InvalidArgument("bad_attempts", "results: one per visible case (" + std::to_string(cases.size()) + ")");
    return code_compare(q, cases, results, true);
}

// Called by check_attempt (grading_verdict.cpp) for a code question.
AttemptResult check_code_attempt(const json& q, const json& answer, const json& variant) {
    AttemptResult r;
    auto malformed = [&](const std::string& m) {
        r.status = "malformed";
        r.message = m;
        return r;
    };
    if (!answer.is_object() || !answer.contains("code") || !answer["code"].is_string())
        return malformed("a code answer is {code, status, results}");
    const std::string status = answer.value("status", "");
    r.score = 0.0;
    // Not re-run (too long, past a budget, no sandbox, no result given): counted, scores 0.
    if (status == "not_rerun") {
        r.status = "incorrect";
        r.detail = json{{"kind", "not_rerun"}, {"reason", answer.value("reason", "no_result")}};
        return r;
    }
    if (code_points(answer["code"].get<std::string>()) > kMaxCodeChars)
        return malformed("the code is longer than " + std::to_string(kMaxCodeChars) + " characters");
    static const std::vector<std::string> kStatuses = {"ok", "timeout", "syntax_error", "load_error", "no_function",
                                                      "memory", "crashed", "blocked"};
    if (std::find(kStatuses.begin(), kStatuses.end(), status) == kStatuses.end())
        return malformed("status must be one of ok, timeout, syntax_error, load_error, no_function, memory, crashed, blocked");
    if (status != "ok") {
        r.status = "incorrect";
        r.detail = json{{"kind", status}, {"message", answer.value("message", "")}};
        return r;
    }
    const std::string key = "code:" + q.value("id", "");
    if (!variant.contains(key)) throw InvalidArgument("bad_variant", "the variant has no cases for '" + q.value("id", "") + "'");
    const json& cases = variant[key]["hidden"];
    const json& results = answer.contains("results") ? answer["results"] : json();
    if (!results.is_array() || results.size() != cases.size())
        return malformed("results: one per hidden case (" + std::to_string(cases.size()) + ")");
    json cmp = code_compare(q, cases, results, false);
    const int passed = cmp["passed"].get<int>(), total = cmp["total"].get<int>();
    r.score = total > 0 ? double(passed) / double(total) : 1.0;
    r.status = passed == total ? "correct" : passed > 0 ? "partial" : "incorrect";
    json detail = {{"passed", passed}, {"total", total}};
    for (std::size_t i = 0; i < cmp["cases"].size(); ++i)
        if (!cmp["cases"][i]["ok"].get<bool>()) {
            json first = cmp["cases"][i];
            first["case"] = i;
            first["args"] = cases[i]["args"];  // the arguments (not the expected values)
            detail["failed"] = first;
            break;
        }
    // A named mistake: the student's output equals the mistaken version on every case that returns.
    if (passed < total) {
        const auto [rtol, atol] = tolerance_of(q);
        for (const json& m : q.value("mistakes", json::array())) {
            const std::string name = m.value("name", "");
            bool all = true, any = false;
            for (std::size_t i = 0; i < cases.size() && all; ++i) {
                if (cases[i].contains("raises")) continue;
                const json& res = results[i];
                if (!res.is_object() || !res.value("ok", false)) {
                    all = false;
                    break;
                }
                json at = json::array();
                const json wrong = code_reference(q.value("function", ""), cases[i]["args"], name);
                all = first_difference(wrong, res.value("value", json()), rtol, atol, at).is_null();
                any = true;
            }
            if (all && any) {
                detail["mistake"] = name;
                if (m.contains("feedback")) r.feedback = m["feedback"];
                // As numeric questions record theirs: the class results page groups wrong answers by it.
                r.mistake = json{{"id", name}, {"feedback", m.contains("feedback") ? m["feedback"] : json(name)}};
                break;
            }
        }
    }
    r.detail = detail;
    return r;
}

}  // namespace poslab::grading
