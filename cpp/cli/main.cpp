// poslab: the native command-line tool. JSON on stdout; on bad input a
// one-line message on stderr and exit status 2.
#include <iostream>
#include <string>

#include "cli_common.hpp"
#include "poslab/errors.hpp"
#include "poslab/experiments.hpp"
#include "poslab/model.hpp"
#include "poslab/options.hpp"
#include "poslab/tokenizer.hpp"

int poslab_cli_extrapolate(int argc, char** argv);  // extrapolate.cpp
int poslab_cli_extend(int argc, char** argv);       // extrapolate.cpp
int poslab_cli_grade(int argc, char** argv);        // grade.cpp
int poslab_cli_table(int argc, char** argv);        // table.cpp

namespace poslab::cli {
namespace {

const char* kUsage = R"(poslab — Position Lab's core on the command line (JSON out)

  poslab forward (--text TEXT | --tokens A,B,… | --vectors JSON) [--pe none|sinusoidal|learned|rope|alibi]
                 [--causal] [--d-model N] [--heads H] [--weights identity|random]
                 [--seed N] [--max-positions N] [--base B] [--combine add|concat]
                 [--position-offset P] [--no-attention]
  poslab encoding --scheme sinusoidal|learned --length S --d-model D [--base B] [--seed N]
                  [--max-positions N] [--position-offset P]
  poslab tokenize --text TEXT
  poslab permutation-check (--text TEXT | --vectors JSON) --permutation 1,0,… [forward options]
  poslab attention-steps (--text TEXT | --vectors JSON) [--scale sqrt_dk|none|dk] [forward options]
  poslab rope-check --m M --n N --shift K [--d-head D] [--seed N] [--base B]
  poslab shift-matrix --shift K --d-model D [--base B]
  poslab similarity --scheme S --length L [--d-model D] [--base B] [--seed N] [--max-positions N] [--heads H]
  poslab extrapolate …   (train short, test long; poslab extrapolate --help)
  poslab extend …        (RoPE context extension: PI, NTK-aware, YaRN; poslab extend --help)
  poslab table --file PATH [--tensor NAME]   (a real position table from .safetensors/.npy; poslab table --help)
  poslab grade --exercises DIR SUBMISSION.json… [--format csv|json]   (re-grade; poslab grade --help)
  poslab exercise-info FILE…  ·  poslab variant --exercise FILE --learner ID
  poslab code-attempts --exercises DIR [--] SUBMISSION.json…   (the code attempts a re-run must run)

Bad input: a one-line message on stderr, exit status 2.
)";

const std::set<std::string> kForwardFlags = {"--text", "--tokens", "--vectors", "--pe", "--d-model", "--heads", "--weights",
                                             "--seed", "--max-positions", "--base", "--combine",
                                             "--position-offset"};
const std::set<std::string> kForwardSwitches = {"--causal", "--no-attention"};

ForwardOptions forward_options(const Args& a) {
    if (!a.has("--text") && !a.has("--vectors") && !a.has("--tokens"))
        throw InvalidArgument("cli", "give the input with --text TEXT, --tokens A,B,… or --vectors JSON");
    return read_forward_options(FlagReader(a));
}

nlohmann::json forward_json(const ForwardResult& r) {
    nlohmann::json j;
    j["tokens"] = r.tokens;
    j["input"] = tensor_json(r.input);
    j["positional"] = tensor_json(r.positional);
    j["hidden"] = tensor_json(r.hidden);
    if (r.attention.size() > 0) j["attention"] = tensor_json(r.attention);
    else j["attention"] = nullptr;
    j["output"] = tensor_json(r.output);
    j["outputMean"] = tensor_json(r.output_mean);
    return j;
}

int cmd_forward(int argc, char** argv) {
    Args a(argc, argv, kForwardFlags, kForwardSwitches);
    return print_json(forward_json(forward(forward_options(a))));
}

int cmd_encoding(int argc, char** argv) {
    Args a(argc, argv, {"--scheme", "--length", "--d-model", "--base", "--seed", "--max-positions", "--position-offset"},
           {});
    if (!a.has("--length") || !a.has("--d-model"))
        throw InvalidArgument("cli", "encoding needs --length S and --d-model D");
    const EncodingOptions o = read_encoding_options(FlagReader(a));
    nlohmann::json out = {{"encoding", tensor_json(encoding(o))}};
    if (o.scheme == PositionScheme::sinusoidal) out["wavelengths"] = tensor_json(sinusoidal_wavelengths(o.d_model, o.base));
    return print_json(out);
}

int cmd_tokenize(int argc, char** argv) {
    Args a(argc, argv, {"--text"}, {});
    if (!a.has("--text")) throw InvalidArgument("cli", "tokenize needs --text TEXT");
    return print_json({{"tokens", tokenize(a.get("--text", ""))}});
}

int cmd_permutation_check(int argc, char** argv) {
    std::set<std::string> flags = kForwardFlags;
    flags.insert("--permutation");
    Args a(argc, argv, flags, kForwardSwitches);
    if (!a.has("--permutation")) throw InvalidArgument("cli", "permutation-check needs --permutation 1,0,…");
    PermutationCheck c = permutation_check(forward_options(a), a.get_size_list("--permutation"));
    return print_json({{"permutation", c.permutation},
                       {"maxAbsDiff", c.max_abs_diff},
                       {"original", forward_json(c.original)},
                       {"permuted", forward_json(c.permuted)}});
}

int cmd_attention_steps(int argc, char** argv) {
    std::set<std::string> flags = kForwardFlags;
    flags.insert("--scale");
    Args a(argc, argv, flags, kForwardSwitches);
    const ForwardOptions o = forward_options(a);
    AttentionSteps st = attention_steps(o, parse_score_scale(a.get("--scale", "sqrt_dk")));
    nlohmann::json j = forward_json(st.forward);
    j["dots"] = tensor_json(st.dots);
    j["scores"] = tensor_json(st.scores);
    // A masked score (causal, above the diagonal) is -inf by design: null in
    // JSON. Any other non-finite value is an overflow, refused by print_json.
    if (o.causal)
        for (auto& head : j["scores"])  // [heads][S][S]
            for (std::size_t i = 0; i < head.size(); ++i)
                for (std::size_t c = i + 1; c < head[i].size(); ++c)
                    if (head[i][c].is_number() && std::isinf(head[i][c].get<double>()) && head[i][c].get<double>() < 0)
                        head[i][c] = nullptr;
    j["weights"] = tensor_json(st.weights);
    j["stepOutput"] = tensor_json(st.output);
    return print_json(j);
}

int cmd_rope_check(int argc, char** argv) {
    Args a(argc, argv, {"--m", "--n", "--shift", "--d-head", "--seed", "--base"}, {});
    if (!a.has("--m") || !a.has("--n") || !a.has("--shift"))
        throw InvalidArgument("cli", "rope-check needs --m M --n N --shift K");
    RopeCheck r = rope_relative_check(a.get_size("--d-head", 8), a.get_size("--m", 0), a.get_size("--n", 0),
                                      a.get_size("--shift", 0), a.get_u32("--seed", 0),
                                      a.get_double("--base", kDefaultBase));
    nlohmann::json q = nlohmann::json::array(), k = nlohmann::json::array();
    for (float v : r.q) q.push_back(float_json(v));
    for (float v : r.k) k.push_back(float_json(v));
    return print_json({{"score", r.score}, {"shiftedScore", r.shifted_score}, {"diff", r.diff}, {"q", q}, {"k", k}});
}

int cmd_shift_matrix(int argc, char** argv) {
    Args a(argc, argv, {"--shift", "--d-model", "--base"}, {});
    if (!a.has("--shift") || !a.has("--d-model"))
        throw InvalidArgument("cli", "shift-matrix needs --shift K --d-model D");
    return print_json({{"matrix", tensor_json(sinusoidal_shift_matrix(a.get_size("--shift", 0),
                                                                       a.get_size("--d-model", 0),
                                                                       a.get_double("--base", kDefaultBase)))}});
}

int cmd_similarity(int argc, char** argv) {
    Args a(argc, argv, {"--scheme", "--length", "--d-model", "--base", "--seed", "--max-positions", "--heads"}, {});
    if (!a.has("--scheme") || !a.has("--length"))
        throw InvalidArgument("cli", "similarity needs --scheme S --length L");
    return print_json({{"similarity",
                        tensor_json(position_similarity(
                            parse_position_scheme(a.get("--scheme", "")), a.get_size("--length", 0),
                            a.get_size("--d-model", 8), a.get_double("--base", kDefaultBase), a.get_u32("--seed", 0),
                            a.get_size("--max-positions", kDefaultMaxPositions), a.get_size("--heads", 1)))}});
}

int run(int argc, char** argv) {
    if (argc < 2) {
        std::cerr << kUsage;
        return 2;
    }
    const std::string cmd = argv[1];
    if (cmd == "--help" || cmd == "-h" || cmd == "help") {
        std::cout << kUsage;
        return 0;
    }
    if (cmd == "--version") {
        std::cout << POSLAB_VERSION << '\n';
        return 0;
    }
    // Subcommands see their own name as argv[0].
    int sub_argc = argc - 1;
    char** sub_argv = argv + 1;
    const bool delegated = cmd == "extrapolate" || cmd == "extend" || cmd == "table" || cmd == "grade" || cmd == "exercise-info" || cmd == "variant" || cmd == "code-attempts";
    for (int i = 1; i < sub_argc && !delegated; ++i)
        if (std::string(sub_argv[i]) == "--help") {
            std::cout << kUsage;
            return 0;
        }
    try {
        if (cmd == "forward") return cmd_forward(sub_argc, sub_argv);
        if (cmd == "encoding") return cmd_encoding(sub_argc, sub_argv);
        if (cmd == "tokenize") return cmd_tokenize(sub_argc, sub_argv);
        if (cmd == "permutation-check") return cmd_permutation_check(sub_argc, sub_argv);
        if (cmd == "attention-steps") return cmd_attention_steps(sub_argc, sub_argv);
        if (cmd == "rope-check") return cmd_rope_check(sub_argc, sub_argv);
        if (cmd == "shift-matrix") return cmd_shift_matrix(sub_argc, sub_argv);
        if (cmd == "similarity") return cmd_similarity(sub_argc, sub_argv);
        if (cmd == "extrapolate") return poslab_cli_extrapolate(sub_argc, sub_argv);
        if (cmd == "extend") return poslab_cli_extend(sub_argc, sub_argv);
        if (cmd == "table") return poslab_cli_table(sub_argc, sub_argv);
        if ((cmd == "grade" || cmd == "exercise-info" || cmd == "variant" || cmd == "code-attempts"))
            return poslab_cli_grade(sub_argc, sub_argv);
    } catch (const std::exception& e) {
        return fail(e.what());
    }
    return fail("unknown command '" + cmd +
                "'; commands: forward, encoding, tokenize, permutation-check, attention-steps, rope-check, shift-matrix, "
                "similarity, extrapolate, extend, table, grade, exercise-info, variant, code-attempts (poslab --help)");
}

}  // namespace
}  // namespace poslab::cli

int main(int argc, char** argv) { return poslab::cli::run(argc, argv); }
