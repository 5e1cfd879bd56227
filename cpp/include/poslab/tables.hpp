#pragma once
// Real position tables: a model's learned W_p read out of a .safetensors or
// .npy file, and the figures the lab draws from it (row norms, cosine row
// similarity, mean neighbour similarity by distance, principal components).
//
// Nothing here reads a file: the front ends (CLI: seek + read; page: File.slice
// in a Worker) hand over the bytes asked for, so a 4 GB file is never read
// whole. The steps:
//   safetensors: first 8 bytes → safetensors_header_length; that many bytes of
//                JSON → safetensors_tensors (every tensor, offsets in the file);
//   npy:         the first bytes (up to kNpyPrefixBytes) → npy_tensor;
//   then pick_table (the chosen 2-D tensor, checked), read [begin, end) of the
//   file, decode_table → float32 [rows, cols], analyze_table.
// Every bad input is an InvalidArgument/OutOfRange with a code (table_*) and
// params, never a crash.
#include <cstdint>
#include <string>
#include <vector>

#include <xtensor/xtensor.hpp>

namespace poslab {

// A JSON header longer than this is refused (GPT-2's is ~15 KB; the format
// allows 100 MB, which no position table needs).
constexpr std::uint64_t kMaxSafetensorsHeader = 16ull << 20;
// An .npy header longer than this is refused (numpy writes ~128 bytes).
constexpr std::uint64_t kMaxNpyHeader = 64ull << 10;
// How many leading bytes npy_tensor / table_format want (fewer if the file is shorter).
constexpr std::uint64_t kNpyPrefixBytes = 12 + kMaxNpyHeader;
// The largest table the lab reads: rows ≤ 65536, columns ≤ 4096 and at most
// 2^24 values (64 MB as float32; GPT-2's W_p is 786,432; its token table,
// 38.6 M, is refused).
constexpr std::uint64_t kMaxTableRows = 1ull << 16;
constexpr std::uint64_t kMaxTableCols = 4096;
constexpr std::uint64_t kMaxTableValues = 1ull << 24;
// The neighbour-similarity curve stops at the distance where its work would
// pass this many multiply-adds (rows × cols per distance).
constexpr std::size_t kNeighbourWork = std::size_t(1) << 28;
// PCA work caps (multiply-adds): the matrix it diagonalises (pca_row_count
// samples fewer rows of a wide table), and the eigen solver's steps
// (eigen_iterations). A 4096 × 4096 table: PCA on 512 rows, ≤ 292 steps.
constexpr double kPcaWork = double(1ull << 30);
constexpr double kEigenWork = double(1ull << 29);
// Nesting deeper than this in a header is refused before parsing.
constexpr std::size_t kMaxHeaderDepth = 64;

struct TensorEntry {
    std::string name;                  // "" for an .npy file
    std::string dtype;                 // safetensors spelling: F32, F16, BF16, I64, …
    std::vector<std::uint64_t> shape;
    std::uint64_t begin = 0, end = 0;  // byte range in the file
    bool fortran_order = false;        // .npy only: stored column by column (2-D: element (r, c) at c·rows + r)
    bool big_endian = false;           // .npy only: '>f4' / '>f2'
};

// "safetensors" or "npy" from the first bytes (an .npy starts with \x93NUMPY).
std::string table_format(const std::uint8_t* first, std::size_t n);

// The header length from the first 8 bytes (little-endian u64), checked
// against the file size and kMaxSafetensorsHeader.
std::uint64_t safetensors_header_length(const std::uint8_t* first, std::size_t n, std::uint64_t file_size);

// Every tensor of the JSON header (header order is not kept: by name), offsets
// made absolute and checked: begin ≤ end ≤ data size, and end − begin =
// product(shape) × the dtype's size for every dtype whose size is known.
std::vector<TensorEntry> safetensors_tensors(const std::string& header, std::uint64_t file_size);

// The one array of an .npy file (format 1.0, 2.0, 3.0) from its first bytes.
// The header is parsed as the Python literal dict the format defines (keys
// exactly descr, fortran_order, shape, each once; see NpyHeaderParser):
// '<f4' / '>f4' → F32, '<f2' / '>f2' → F16 (numpy has no bfloat16), either
// fortran_order, and a data size exactly matching the file's (shorter:
// table_data_short; longer: table_size_mismatch).
TensorEntry npy_tensor(const std::uint8_t* prefix, std::size_t n, std::uint64_t file_size);

// The names suggested first, in order (GPT-2, BERT, OPT, …).
const std::vector<std::string>& suggested_table_names();

// The tensor to read: `name` if given, otherwise the first suggested name
// present, otherwise the only 2-D tensor. Checked: 2-D, a supported dtype
// (F32, F16, BF16), within the size caps.
const TensorEntry& pick_table(const std::vector<TensorEntry>& tensors, const std::string& name);

// The tensor's bytes ([begin, end) of the file) as float32 [rows, cols].
// NaN or ±Inf is refused naming its row and column.
xt::xtensor<float, 2> decode_table(const TensorEntry& t, const std::uint8_t* bytes, std::size_t n);

// IEEE half and bfloat16 to float (exact).
float half_to_float(std::uint16_t h);
float bf16_to_float(std::uint16_t b);

struct TableAnalysisOptions {
    std::size_t max_heatmap_rows = 256;  // the similarity heatmap samples at most this many rows
    std::size_t max_distance = 256;      // neighbour similarity for distances 1…min(this, rows−1, kNeighbourWork/(rows·cols))
    std::size_t components = 3;          // principal components reported (1…8)
    std::size_t max_pca_rows = 1024;     // PCA fitted on at most this many rows (evenly sampled; fewer for wide tables: pca_row_count)
};

struct TableSummary {
    std::size_t rows = 0, cols = 0;
    std::vector<double> norms;                    // ‖row p‖ for every p
    std::vector<std::size_t> heatmap_rows;        // the rows sampled: round(i·(rows−1)/(K−1))
    xt::xtensor<float, 2> similarity;             // [K, K] cosine of the sampled rows
    std::vector<double> neighbour;                // [d−1]: mean over p of cos(row p, row p+d)
    std::vector<std::size_t> pca_rows;            // rows the PCA was fitted on
    std::vector<double> variance;                 // eigenvalues of the covariance (1/n), largest first
    std::vector<double> explained;                // variance / total variance
    double total_variance = 0;
    // [rows, components]: (row − mean) · component, in double: with values near
    // ±3.4e38 it passes float's range (a float32 here plotted at NaN).
    xt::xtensor<double, 2> projection;
    std::size_t iterations = 0;
    bool converged = false;
};

// How many rows the PCA is fitted on (evenly spaced, sample_rows): all rows up
// to max_pca_rows (at most 4096, at least 2), fewer when
// m · min(m, cols) · cols > kPcaWork — the largest m within it.
std::size_t pca_row_count(std::size_t rows, std::size_t cols, std::size_t max_pca_rows = 1024);

// The eigen solver's step cap for an m × m matrix and k components:
// floor(kEigenWork / ((k+4)·m²)), clamped to 30 … 500.
std::size_t eigen_iterations(std::size_t m, std::size_t k);

// Evenly spaced sample of `count` of `rows` rows: round(i·(rows−1)/(count−1)).
std::vector<std::size_t> sample_rows(std::size_t rows, std::size_t count);

// What analyze_table will do for a rows × cols table, known before it starts
// (the page says it while the figures are computed): the heatmap's sampled
// rows, the neighbour curve's last distance, the PCA's sampled rows and step cap.
struct TablePlan {
    std::size_t heatmap_rows = 0;   // min(rows, max_heatmap_rows (1 … 1024))
    std::size_t distances = 0;      // min(max_distance (≤ 4096), rows − 1, max(1, kNeighbourWork / (rows·cols)))
    std::size_t pca_rows = 0;       // pca_row_count(rows, cols, max_pca_rows)
    std::size_t eigen_steps = 0;    // eigen_iterations(min(pca_rows, cols), components)
};
TablePlan table_plan(std::size_t rows, std::size_t cols, const TableAnalysisOptions& options = {});

TableSummary analyze_table(const xt::xtensor<float, 2>& table, const TableAnalysisOptions& options = {});

// The top `k` eigenpairs of a symmetric positive semi-definite m×m matrix
// (row-major, double): subspace iteration with k+4 vectors from a fixed start
// (at most max_iterations steps; converged says whether the residual fell below 1e-9·scale),
// Rayleigh–Ritz by cyclic Jacobi each step; eigenvectors signed so that their
// largest-magnitude entry is positive. Deterministic.
struct EigenResult {
    std::vector<double> values;               // k, descending
    std::vector<std::vector<double>> vectors; // k vectors of length m
    std::size_t iterations = 0;
    bool converged = false;
};
EigenResult top_eigen(const std::vector<double>& matrix, std::size_t m, std::size_t k, std::size_t max_iterations = 500);

}  // namespace poslab
