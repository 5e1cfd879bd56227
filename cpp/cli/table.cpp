// poslab table --file PATH [--tensor NAME]: a real position table's figures as
// JSON. Reads the header, then seeks to the chosen tensor: a 4 GB model file
// is never read whole.
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "cli_common.hpp"
#include "poslab/errors.hpp"
#include "poslab/tables.hpp"

namespace poslab::cli {
namespace {

const char* kTableUsage = R"(poslab table --file PATH [--tensor NAME] [--components K] [--max-distance D]

Reads a position table out of a .safetensors or .npy file (F32, F16, BF16) and
prints its shape, row norms, mean neighbour cosine similarity by distance and
the variance explained by the first principal components as JSON. Without
--tensor: the first of the usual names present (wpe.weight,
transformer.wpe.weight, embeddings.position_embeddings.weight, …), else the
only 2-D tensor. Bad input: a one-line message on stderr, exit status 2.
)";

std::vector<std::uint8_t> read_range(std::ifstream& in, std::uint64_t begin, std::uint64_t count, const std::string& path) {
    std::vector<std::uint8_t> buf(count);
    in.clear();
    in.seekg(std::streamoff(begin));
    if (count) in.read(reinterpret_cast<char*>(buf.data()), std::streamsize(count));
    if (!in || std::uint64_t(in.gcount()) != count)
        throw InvalidArgument("table_truncated", "could not read " + std::to_string(count) + " bytes at offset " +
                                                     std::to_string(begin) + " of " + path,
                              {{"size", std::to_string(in.gcount())}, {"needed", std::to_string(count)}});
    return buf;
}

}  // namespace
}  // namespace poslab::cli

int poslab_cli_table(int argc, char** argv) {
    using namespace poslab;
    using namespace poslab::cli;
    for (int i = 1; i < argc; ++i)
        if (std::string(argv[i]) == "--help") {
            std::cout << kTableUsage;
            return 0;
        }
    try {
        Args a(argc, argv, {"--file", "--tensor", "--components", "--max-distance"}, {});
        if (!a.has("--file")) throw InvalidArgument("cli", "table needs --file PATH (a .safetensors or .npy file)");
        const std::string path = a.get("--file", "");
        std::ifstream in(path, std::ios::binary);
        if (!in) throw InvalidArgument("cli", "cannot open '" + path + "'");
        in.seekg(0, std::ios::end);
        const std::uint64_t size = std::uint64_t(in.tellg());
        const auto first = read_range(in, 0, std::min<std::uint64_t>(size, kNpyPrefixBytes), path);
        const std::string format = table_format(first.data(), first.size());
        std::vector<TensorEntry> tensors;
        if (format == "npy") {
            tensors.push_back(npy_tensor(first.data(), first.size(), size));
        } else {
            const std::uint64_t len = safetensors_header_length(first.data(), first.size(), size);
            const auto header = read_range(in, 8, len, path);
            tensors = safetensors_tensors(std::string(header.begin(), header.end()), size);
        }
        const TensorEntry& t = pick_table(tensors, a.get("--tensor", ""));
        const auto bytes = read_range(in, t.begin, t.end - t.begin, path);
        const auto table = decode_table(t, bytes.data(), bytes.size());
        TableAnalysisOptions o;
        o.components = a.get_size("--components", 3, 8);
        o.max_distance = a.get_size("--max-distance", 256, 4096);
        const TableSummary s = analyze_table(table, o);
        nlohmann::json list = nlohmann::json::array();
        for (const auto& e : tensors) list.push_back({{"name", e.name}, {"dtype", e.dtype}, {"shape", e.shape}});
        nlohmann::json out;
        out["format"] = format;
        out["tensor"] = t.name;
        out["dtype"] = t.dtype;
        out["shape"] = {s.rows, s.cols};
        out["lastRow"] = s.rows - 1;
        out["norms"] = s.norms;
        nlohmann::json nb = nlohmann::json::array();
        for (std::size_t i = 0; i < s.neighbour.size(); ++i) nb.push_back({{"distance", i + 1}, {"similarity", s.neighbour[i]}});
        out["neighbour"] = nb;
        out["pca"] = {{"variance", s.variance}, {"explained", s.explained}, {"totalVariance", s.total_variance},
                      {"rows", s.pca_rows.size()}, {"iterations", s.iterations}, {"converged", s.converged}};
        out["tensors"] = list;
        return print_json(out);
    } catch (const std::exception& e) {
        return fail(error_message(e));
    }
}
