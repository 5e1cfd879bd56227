// Position-table files on any bytes: the page's and the CLI's steps (format,
// header, listing, pick, decode, analysis) end in a coded InvalidArgument or
// figures, never a crash; every figure is finite (the corpus has .npy headers
// in numpy's spellings: fortran order, big-endian, duplicated keys).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "poslab/errors.hpp"
#include "poslab/tables.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace poslab;
    try {
        std::vector<TensorEntry> tensors;
        if (table_format(data, size) == "npy") {
            tensors.push_back(npy_tensor(data, size, size));
        } else {
            const std::uint64_t n = safetensors_header_length(data, size, size);
            tensors = safetensors_tensors(std::string(reinterpret_cast<const char*>(data) + 8, n), size);
        }
        const TensorEntry& t = pick_table(tensors, "");
        if (t.begin > t.end || t.end > size) std::abort();  // offsets were checked against the file
        const auto table = decode_table(t, data + t.begin, t.end - t.begin);
        TableAnalysisOptions o;
        o.max_distance = 16;
        o.max_heatmap_rows = 16;
        o.max_pca_rows = 64;
        const TableSummary s = analyze_table(table, o);
        for (double v : s.norms)
            if (!std::isfinite(v)) std::abort();
        // Values near ±3.4e38 stay finite in every figure (the projection is double).
        for (double v : s.projection)
            if (!std::isfinite(v)) std::abort();
        for (float v : s.similarity)
            if (!std::isfinite(v)) std::abort();
        for (double v : s.neighbour)
            if (!std::isfinite(v)) std::abort();
        for (double v : s.explained)
            if (!(v >= -1e-9 && v <= 1 + 1e-6) && s.total_variance > 0 && std::isfinite(s.total_variance)) std::abort();
    } catch (const InvalidArgument& e) {
        if (e.code().empty()) std::abort();
    }
    return 0;
}
