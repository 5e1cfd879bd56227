// poslab table --file PATH [--tensor NAME]: a real position table's figures as
// JSON. Reads the header, then seeks to the chosen tensor: a 4 GB model file
// is never read whole.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
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

// A whole number flag in [lo, hi], refused with the range (0 included) before
// anything is read.
std::size_t size_in(const Args& a, const std::string& flag, std::size_t fallback, std::size_t lo, std::size_t hi,
                    const std::string& what) {
    if (!a.has(flag)) return fallback;
    const std::string text = a.get(flag, "");
    std::size_t v = 0;
    const char* end = text.data() + text.size();
    const auto [p, ec] = std::from_chars(text.data(), end, v);
    if (text.empty() || ec != std::errc() || p != end || v < lo || v > hi)
        throw InvalidArgument("cli", flag + " must be a whole number from " + std::to_string(lo) + " to " + std::to_string(hi) +
                                         " (" + what + "), got '" + text + "'");
    return v;
}

// The file, opened without blocking and checked to be a regular file before a
// byte is read: a named pipe, a device or a directory would block forever or
// have no size (the check is on the opened descriptor, so nothing can swap
// the file in between).
class TableFile {
public:
    explicit TableFile(const std::string& path) : path_(path) {
        fd_ = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
        if (fd_ < 0) throw InvalidArgument("cli", "cannot open '" + path + "': " + std::strerror(errno));
        struct stat st {};
        if (::fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode)) {
            const std::string kind = S_ISFIFO(st.st_mode)   ? "a named pipe"
                                     : S_ISDIR(st.st_mode)  ? "a directory"
                                     : S_ISCHR(st.st_mode)  ? "a character device"
                                     : S_ISBLK(st.st_mode)  ? "a block device"
                                     : S_ISSOCK(st.st_mode) ? "a socket"
                                                            : "not a regular file";
            ::close(fd_);
            throw InvalidArgument("cli", "'" + path + "' is " + kind +
                                             "; poslab table reads a regular .safetensors or .npy file (save the stream to a file first)");
        }
        size_ = std::uint64_t(st.st_size);
    }
    ~TableFile() { ::close(fd_); }
    TableFile(const TableFile&) = delete;
    TableFile& operator=(const TableFile&) = delete;
    std::uint64_t size() const { return size_; }

    std::vector<std::uint8_t> read(std::uint64_t begin, std::uint64_t count) const {
        std::vector<std::uint8_t> buf(count);
        std::uint64_t done = 0;
        while (done < count) {
            const ssize_t got = ::pread(fd_, buf.data() + done, std::size_t(count - done), off_t(begin + done));
            if (got < 0 && errno == EINTR) continue;
            if (got <= 0) break;
            done += std::uint64_t(got);
        }
        if (done != count)
            throw InvalidArgument("table_truncated", "could not read " + std::to_string(count) + " bytes at offset " +
                                                         std::to_string(begin) + " of " + path_,
                                  {{"size", std::to_string(done)}, {"needed", std::to_string(count)}});
        return buf;
    }

private:
    std::string path_;
    int fd_ = -1;
    std::uint64_t size_ = 0;
};

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
        // Every option is checked before the file is touched.
        TableAnalysisOptions o;
        o.components = size_in(a, "--components", 3, 1, 8, "the principal components reported");
        o.max_distance = size_in(a, "--max-distance", 256, 1, 4096, "the longest distance of the neighbour curve");
        const std::string path = a.get("--file", "");
        const TableFile in(path);
        const std::uint64_t size = in.size();
        const auto first = in.read(0, std::min<std::uint64_t>(size, kNpyPrefixBytes));
        const std::string format = table_format(first.data(), first.size());
        std::vector<TensorEntry> tensors;
        if (format == "npy") {
            tensors.push_back(npy_tensor(first.data(), first.size(), size));
        } else {
            const std::uint64_t len = safetensors_header_length(first.data(), first.size(), size);
            const auto header = in.read(8, len);
            tensors = safetensors_tensors(std::string(header.begin(), header.end()), size);
        }
        const TensorEntry& t = pick_table(tensors, a.get("--tensor", ""));
        const auto bytes = in.read(t.begin, t.end - t.begin);
        const auto table = decode_table(t, bytes.data(), bytes.size());
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
                      {"rows", s.pca_rows.size()}, {"rowIndices", s.pca_rows}, {"iterations", s.iterations}, {"converged", s.converged}};
        out["tensors"] = list;
        return print_json(out);
    } catch (const std::exception& e) {
        return fail(error_message(e));
    }
}
