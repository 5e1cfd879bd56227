// Real position tables: .safetensors / .npy files built here, byte by byte,
// with a planted helix whose figures are known in closed form.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "poslab/errors.hpp"
#include "poslab/tables.hpp"
#include "support.hpp"

namespace {

using support::code_of;

using Bytes = std::vector<std::uint8_t>;
const double kPi = 3.14159265358979323846;

// The planted helix: N rows, D columns; every entry 0.25, plus
// col 3 = A cos(2πp/N), col 7 = A sin(2πp/N), col 11 = C cos(4πp/N).
// Over whole periods these three are uncorrelated with mean 0, so the
// covariance's eigenvalues are A²/2, A²/2, C²/2 and the points projected on
// the first two components lie on a circle of radius A.
constexpr double A = 2.0, C = 1.0;
std::vector<double> helix(std::size_t n, std::size_t d) {
    if (d < 12) throw std::logic_error("the helix needs at least 12 columns");
    std::vector<double> t(n * d, 0.25);
    for (std::size_t p = 0; p < n; ++p) {
        t[p * d + 3] += A * std::cos(2 * kPi * p / n);
        t[p * d + 7] += A * std::sin(2 * kPi * p / n);
        t[p * d + 11] += C * std::cos(4 * kPi * p / n);
    }
    return t;
}

void put_le(Bytes& b, std::uint64_t v, int bytes) {
    for (int i = 0; i < bytes; ++i) b.push_back(std::uint8_t(v >> (8 * i)));
}
std::uint32_t f32_bits(float f) {
    std::uint32_t u;
    std::memcpy(&u, &f, 4);
    return u;
}
// float → IEEE half, round to nearest even (normal range only: enough here).
std::uint16_t to_half(float f) {
    const std::uint32_t u = f32_bits(f);
    const std::uint32_t sign = (u >> 16) & 0x8000u;
    int exp = int((u >> 23) & 0xff) - 127 + 15;
    std::uint32_t man = u & 0x7fffffu;
    if (((u >> 23) & 0xff) == 0) return std::uint16_t(sign);
    if (exp <= 0) return std::uint16_t(sign);  // tiny → 0 (not used by the tests' values)
    std::uint32_t h = sign | (std::uint32_t(exp) << 10) | (man >> 13);
    const std::uint32_t rest = man & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) ++h;
    return std::uint16_t(h);
}
std::uint16_t to_bf16(float f) {  // round to nearest even
    const std::uint32_t u = f32_bits(f);
    return std::uint16_t((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

Bytes encode(const std::vector<double>& v, const std::string& dtype) {
    Bytes b;
    for (double x : v) {
        if (dtype == "F32") put_le(b, f32_bits(float(x)), 4);
        else if (dtype == "F16") put_le(b, to_half(float(x)), 2);
        else put_le(b, to_bf16(float(x)), 2);
    }
    return b;
}

Bytes safetensors(const std::string& header, const Bytes& data) {
    Bytes b;
    put_le(b, header.size(), 8);
    b.insert(b.end(), header.begin(), header.end());
    b.insert(b.end(), data.begin(), data.end());
    return b;
}

// {"__metadata__":…, "h.0.attn.bias": [2] F32 first, then the table named `name`}.
Bytes helix_file(std::size_t n, std::size_t d, const std::string& dtype, const std::string& name = "wpe.weight") {
    Bytes other = encode({1.0, 2.0}, "F32");
    Bytes table = encode(helix(n, d), dtype);
    std::string header = "{\"__metadata__\":{\"format\":\"pt\"},\"h.0.attn.bias\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},\"" +
                         name + "\":{\"dtype\":\"" + dtype + "\",\"shape\":[" + std::to_string(n) + "," +
                         std::to_string(d) + "],\"data_offsets\":[8," + std::to_string(8 + table.size()) + "]}}";
    other.insert(other.end(), table.begin(), table.end());
    return safetensors(header, other);
}

struct Opened {
    std::vector<poslab::TensorEntry> tensors;
    poslab::TensorEntry picked;
    xt::xtensor<float, 2> table;
};

// The front ends' steps, on bytes in memory.
Opened open_bytes(const Bytes& f, const std::string& name = "") {
    Opened o;
    if (poslab::table_format(f.data(), f.size()) == "npy") {
        o.tensors.push_back(poslab::npy_tensor(f.data(), f.size(), f.size()));
    } else {
        const std::uint64_t len = poslab::safetensors_header_length(f.data(), f.size(), f.size());
        o.tensors = poslab::safetensors_tensors(std::string(f.begin() + 8, f.begin() + 8 + len), f.size());
    }
    o.picked = poslab::pick_table(o.tensors, name);
    o.table = poslab::decode_table(o.picked, f.data() + o.picked.begin, o.picked.end - o.picked.begin);
    return o;
}

Bytes npy(const std::string& descr, const std::string& shape, const Bytes& data, int version = 1, bool fortran = false) {
    std::string h = "{'descr': '" + descr + "', 'fortran_order': " + (fortran ? "True" : "False") + ", 'shape': " + shape + ", }";
    const std::size_t pre = version == 1 ? 10 : 12;
    while ((pre + h.size() + 1) % 64) h += ' ';
    h += '\n';
    Bytes b = {0x93, 'N', 'U', 'M', 'P', 'Y', std::uint8_t(version), 0};
    put_le(b, h.size(), version == 1 ? 2 : 4);
    b.insert(b.end(), h.begin(), h.end());
    b.insert(b.end(), data.begin(), data.end());
    return b;
}

void expect_helix_figures(const xt::xtensor<float, 2>& t, double tol) {
    const std::size_t n = t.shape(0), d = t.shape(1);
    const auto ref = helix(n, d);
    poslab::TableAnalysisOptions opt;
    opt.max_heatmap_rows = 16;
    opt.max_distance = 10;
    const poslab::TableSummary s = poslab::analyze_table(t, opt);
    ASSERT_EQ(s.rows, n);
    ASSERT_EQ(s.cols, d);
    // Norms: √(Σ x²) of the planted rows.
    for (std::size_t p = 0; p < n; ++p) {
        double ss = 0;
        for (std::size_t c = 0; c < d; ++c) ss += ref[p * d + c] * ref[p * d + c];
        EXPECT_NEAR(s.norms[p], std::sqrt(ss), tol * 4) << "row " << p;
    }
    auto cos_ref = [&](std::size_t a, std::size_t b) {
        double ab = 0, aa = 0, bb = 0;
        for (std::size_t c = 0; c < d; ++c) {
            ab += ref[a * d + c] * ref[b * d + c];
            aa += ref[a * d + c] * ref[a * d + c];
            bb += ref[b * d + c] * ref[b * d + c];
        }
        return ab / std::sqrt(aa * bb);
    };
    // Heatmap rows: round(i·(n−1)/15).
    ASSERT_EQ(s.heatmap_rows.size(), 16u);
    for (std::size_t i = 0; i < 16; ++i) EXPECT_EQ(s.heatmap_rows[i], std::size_t(std::llround(i * (n - 1) / 15.0)));
    for (std::size_t i = 0; i < 16; ++i)
        for (std::size_t j = 0; j < 16; ++j)
            EXPECT_NEAR(s.similarity(i, j), cos_ref(s.heatmap_rows[i], s.heatmap_rows[j]), tol * 4);
    ASSERT_EQ(s.neighbour.size(), 10u);
    for (std::size_t dist = 1; dist <= 10; ++dist) {
        double m = 0;
        for (std::size_t p = 0; p + dist < n; ++p) m += cos_ref(p, p + dist);
        EXPECT_NEAR(s.neighbour[dist - 1], m / double(n - dist), tol * 4) << "distance " << dist;
    }
    // PCA: eigenvalues A²/2, A²/2, C²/2 of a total A² + C²/2.
    ASSERT_EQ(s.variance.size(), 3u);
    EXPECT_TRUE(s.converged);
    EXPECT_NEAR(s.variance[0], A * A / 2, tol * 20);
    EXPECT_NEAR(s.variance[1], A * A / 2, tol * 20);
    EXPECT_NEAR(s.variance[2], C * C / 2, tol * 20);
    EXPECT_NEAR(s.total_variance, A * A + C * C / 2, tol * 20);
    EXPECT_NEAR(s.explained[0] + s.explained[1], (A * A) / (A * A + C * C / 2), tol * 10);
    EXPECT_NEAR(s.explained[2], (C * C / 2) / (A * A + C * C / 2), tol * 10);
    // The first two components trace the planted circle of radius A, turning
    // by 2π/n per position; the third is ±C cos(4πp/n).
    const double sign3 = s.projection(0, 2) >= 0 ? 1 : -1;
    for (std::size_t p = 0; p < n; ++p) {
        EXPECT_NEAR(std::hypot(s.projection(p, 0), s.projection(p, 1)), A, tol * 20) << "row " << p;
        EXPECT_NEAR(s.projection(p, 2), sign3 * C * std::cos(4 * kPi * p / n), tol * 20) << "row " << p;
        const std::size_t q = (p + 1) % n;
        const double turn = std::atan2(s.projection(p, 0) * s.projection(q, 1) - s.projection(p, 1) * s.projection(q, 0),
                                       s.projection(p, 0) * s.projection(q, 0) + s.projection(p, 1) * s.projection(q, 1));
        EXPECT_NEAR(std::abs(turn), 2 * kPi / n, tol * 20) << "row " << p;
    }
}

TEST(Tables, HalfAndBfloat16DecodeKnownBitPatterns) {
    EXPECT_EQ(poslab::half_to_float(0x3C00), 1.0f);
    EXPECT_EQ(poslab::half_to_float(0xC000), -2.0f);
    EXPECT_EQ(poslab::half_to_float(0x3555), 0.333251953125f);
    EXPECT_EQ(poslab::half_to_float(0x0001), std::ldexp(1.0f, -24));  // smallest subnormal
    EXPECT_EQ(poslab::half_to_float(0x7BFF), 65504.0f);
    EXPECT_TRUE(std::isinf(poslab::half_to_float(0x7C00)));
    EXPECT_EQ(poslab::bf16_to_float(0x3F80), 1.0f);
    EXPECT_EQ(poslab::bf16_to_float(0xC040), -3.0f);
    EXPECT_EQ(poslab::bf16_to_float(0x3EAB), 0.333984375f);
}

TEST(Tables, SafetensorsF32HelixFigures) {
    const Bytes f = helix_file(64, 16, "F32");
    const Opened o = open_bytes(f);
    EXPECT_EQ(o.picked.name, "wpe.weight");  // a suggested name, not the other tensor
    EXPECT_EQ(o.tensors.size(), 2u);
    EXPECT_EQ(o.picked.begin, 8 + (f.size() - 8 - 8 - 64 * 16 * 4) + 8);  // after the 2-float bias
    expect_helix_figures(o.table, 1e-6);
}

TEST(Tables, SafetensorsF16AndBf16HelixFigures) {
    const Opened h = open_bytes(helix_file(64, 16, "F16", "transformer.wpe.weight"));
    EXPECT_EQ(h.picked.dtype, "F16");
    expect_helix_figures(h.table, 1e-3);  // half: 11 bits of mantissa
    const Opened b = open_bytes(helix_file(64, 16, "BF16", "embeddings.position_embeddings.weight"));
    EXPECT_EQ(b.picked.dtype, "BF16");
    expect_helix_figures(b.table, 8e-3);  // bfloat16: 8 bits
}

TEST(Tables, NpyV1V2V3HelixFigures) {
    for (int v : {1, 2, 3}) {
        const Opened o = open_bytes(npy("<f4", "(64, 16)", encode(helix(64, 16), "F32"), v));
        EXPECT_EQ(o.picked.dtype, "F32");
        expect_helix_figures(o.table, 1e-6);
    }
    const Opened h = open_bytes(npy("<f2", "(64, 16)", encode(helix(64, 16), "F16")));
    expect_helix_figures(h.table, 1e-3);
}

TEST(Tables, MoreColumnsThanRowsUsesTheGramRouteWithTheSameFigures) {
    // 64 rows × 96 columns: the PCA goes through the 64×64 Gram matrix.
    expect_helix_figures(open_bytes(helix_file(64, 96, "F32")).table, 1e-6);
}

TEST(Tables, TopEigenOfAKnownMatrix) {
    // diag(5, 3, 3, 1) rotated by a fixed Givens rotation: eigenvalues 5, 3, 3.
    const double c = std::cos(0.3), s = std::sin(0.3);
    std::vector<double> m = {5, 0, 0, 0, 0, 3, 0, 0, 0, 0, 3, 0, 0, 0, 0, 1};
    // R M Rᵀ with R rotating axes 0 and 3.
    std::vector<double> r = {c, 0, 0, -s, 0, 1, 0, 0, 0, 0, 1, 0, s, 0, 0, c}, t(16, 0), out(16, 0);
    for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j)
            for (int k = 0; k < 4; ++k) t[i * 4 + j] += r[i * 4 + k] * m[k * 4 + j];
    for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j)
            for (int k = 0; k < 4; ++k) out[i * 4 + j] += t[i * 4 + k] * r[j * 4 + k];
    const auto e = poslab::top_eigen(out, 4, 3);
    ASSERT_EQ(e.values.size(), 3u);
    EXPECT_NEAR(e.values[0], 5, 1e-9);
    EXPECT_NEAR(e.values[1], 3, 1e-9);
    EXPECT_NEAR(e.values[2], 3, 1e-9);
    // Its eigenvector is (c, 0, 0, s), signed so its largest entry is positive.
    EXPECT_NEAR(e.vectors[0][0], c, 1e-9);
    EXPECT_NEAR(e.vectors[0][3], s, 1e-9);
    const auto again = poslab::top_eigen(out, 4, 3);
    EXPECT_EQ(again.vectors, e.vectors);  // deterministic
}

TEST(Tables, OffsetsPastFourGigabytesStayExact) {
    // A 4 GB+ file: only its header is parsed; offsets are 64-bit.
    const std::uint64_t gap = 1ull << 32, bytes = 1024ull * 768 * 4;
    const std::string h = "{\"big\":{\"dtype\":\"F32\",\"shape\":[4,4],\"data_offsets\":[0,64]},\"wpe.weight\":{\"dtype\":\"F32\",\"shape\":[1024,768],\"data_offsets\":[" +
                          std::to_string(gap) + "," + std::to_string(gap + bytes) + "]}}";
    const std::uint64_t size = 8 + h.size() + gap + bytes;
    const auto tensors = poslab::safetensors_tensors(h, size);
    const auto& t = poslab::pick_table(tensors, "");
    EXPECT_EQ(t.name, "wpe.weight");
    EXPECT_EQ(t.begin, 8 + h.size() + gap);
    EXPECT_EQ(t.end, size);
    EXPECT_EQ(code_of([&] { poslab::safetensors_tensors(h, size - 1); }), "table_offsets_out_of_range");
}

TEST(Tables, NeighbourCurveStopsAtItsWorkCap) {
    // 8192 rows × 64 columns: each distance is 2^19 multiply-adds, so 2^28 allows 512 distances.
    xt::xtensor<float, 2> t = xt::zeros<float>({std::size_t(8192), std::size_t(64)});
    for (std::size_t p = 0; p < 8192; ++p) t(p, p % 64) = 1.0f;
    poslab::TableAnalysisOptions o;
    o.max_distance = 4096;
    const auto s = poslab::analyze_table(t, o);
    ASSERT_EQ(s.neighbour.size(), 512u);
    // Row p is the unit vector e_{p mod 64}: rows d apart coincide exactly when 64 divides d.
    EXPECT_EQ(s.neighbour[63], 1.0);
    EXPECT_EQ(s.neighbour[0], 0.0);
    EXPECT_EQ(s.pca_rows.size(), 1024u);  // the PCA is fitted on 1024 evenly spaced rows
}

TEST(Tables, EveryBadInputIsACodedError) {
    const Bytes good = helix_file(8, 16, "F32");
    // Truncated: fewer than 8 bytes; tensor bytes cut short.
    EXPECT_EQ(code_of([&] { open_bytes(Bytes(good.begin(), good.begin() + 5)); }), "table_truncated");
    EXPECT_EQ(code_of([&] { open_bytes(Bytes(good.begin(), good.end() - 4)); }), "table_offsets_out_of_range");
    // Header length larger than the file.
    Bytes past = good;
    past[0] = 0xff, past[1] = 0xff, past[2] = 0x0f;
    EXPECT_EQ(code_of([&] { open_bytes(past); }), "table_header_past_end");
    // A huge header (length within a huge file): refused by the cap, before reading it.
    Bytes len(8);
    const std::uint64_t huge = poslab::kMaxSafetensorsHeader + 1;
    for (int i = 0; i < 8; ++i) len[i] = std::uint8_t(huge >> (8 * i));
    EXPECT_EQ(code_of([&] { poslab::safetensors_header_length(len.data(), 8, 4ull << 30); }), "table_header_too_large");
    // Not JSON; JSON but not an object; nesting bombs.
    EXPECT_EQ(code_of([&] { open_bytes(safetensors("{not json", {})); }), "table_header_not_json");
    EXPECT_EQ(code_of([&] { open_bytes(safetensors("[1,2]", {})); }), "table_header_bad");
    EXPECT_EQ(code_of([&] { open_bytes(safetensors(std::string(100000, '[') + std::string(100000, ']'), {})); }), "table_header_not_json");
    EXPECT_EQ(code_of([&] { open_bytes(safetensors("{\"w\":{\"dtype\":\"F32\",\"shape\":[1,1]}}", {})); }), "table_header_bad");
    EXPECT_EQ(code_of([&] { open_bytes(safetensors("{\"w\":{\"dtype\":\"F32\",\"shape\":[-1,1],\"data_offsets\":[0,4]}}", Bytes(4))); }), "table_header_bad");
    // Offsets outside the data; reversed; shape not matching bytes; shape overflow.
    EXPECT_EQ(code_of([&] { open_bytes(safetensors("{\"w\":{\"dtype\":\"F32\",\"shape\":[1,2],\"data_offsets\":[0,80]}}", Bytes(8))); }), "table_offsets_out_of_range");
    EXPECT_EQ(code_of([&] { open_bytes(safetensors("{\"w\":{\"dtype\":\"F32\",\"shape\":[1,2],\"data_offsets\":[8,0]}}", Bytes(8))); }), "table_offsets_out_of_range");
    EXPECT_EQ(code_of([&] { open_bytes(safetensors("{\"w\":{\"dtype\":\"F32\",\"shape\":[1,3],\"data_offsets\":[0,8]}}", Bytes(8))); }), "table_size_mismatch");
    EXPECT_EQ(code_of([&] { open_bytes(safetensors("{\"w\":{\"dtype\":\"F32\",\"shape\":[4294967296,4294967296],\"data_offsets\":[0,8]}}", Bytes(8))); }), "table_size_mismatch");
    // Not 2-D; unsupported dtype; empty; too large; no such tensor.
    EXPECT_EQ(code_of([&] { open_bytes(safetensors("{\"w\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}", Bytes(8)), "w"); }), "table_not_2d");
    EXPECT_EQ(code_of([&] { open_bytes(safetensors("{\"w\":{\"dtype\":\"I32\",\"shape\":[1,2],\"data_offsets\":[0,8]}}", Bytes(8))); }), "table_unsupported_dtype");
    EXPECT_EQ(code_of([&] { open_bytes(safetensors("{\"w\":{\"dtype\":\"F32\",\"shape\":[0,2],\"data_offsets\":[0,0]}}", {})); }), "table_empty");
    EXPECT_EQ(code_of([&] { open_bytes(good, "nope"); }), "table_no_tensor");
    {
        std::vector<poslab::TensorEntry> big(1);
        big[0].name = "wte.weight", big[0].dtype = "F32", big[0].shape = {50257, 768};
        EXPECT_EQ(code_of([&] { poslab::pick_table(big, "wte.weight"); }), "table_too_large");
    }
    // NaN / Inf named by row and column.
    for (double bad : {std::nan(""), double(INFINITY)}) {
        auto v = helix(8, 16);
        v[2 * 16 + 3] = bad;
        const Bytes data = encode(v, "F32");
        try {
            open_bytes(safetensors("{\"w\":{\"dtype\":\"F32\",\"shape\":[8,16],\"data_offsets\":[0,512]}}", data));
            ADD_FAILURE() << "accepted a non-finite value";
        } catch (const poslab::InvalidArgument& e) {
            EXPECT_EQ(e.code(), "table_not_finite");
            EXPECT_EQ(e.params().at("row"), "2");
            EXPECT_EQ(e.params().at("col"), "3");
        }
    }
    // npy: bad magic version, float64, truncated data, bf16 not in npy (fortran order and
    // big-endian are read: tables_figures_test.cpp, tests/cli/table_numpy.py).
    const Bytes d8 = encode(helix(2, 16), "F32");
    EXPECT_EQ(code_of([&] { open_bytes(npy("<f4", "(2, 16)", d8, 7)); }), "table_npy_bad");
    EXPECT_EQ(code_of([&] { open_bytes(npy("<f8", "(1, 16)", d8)); }), "table_unsupported_dtype");
    EXPECT_EQ(code_of([&] { open_bytes(npy("<f4", "(3, 16)", d8)); }), "table_data_short");
    EXPECT_EQ(code_of([&] { open_bytes(npy("<f4", "(1, 16)", d8)); }), "table_size_mismatch");
    EXPECT_EQ(code_of([&] { open_bytes(npy("<f4", "(32,)", d8)); }), "table_not_2d");
    EXPECT_EQ(code_of([&] { open_bytes(npy("<f4", "(2, x)", d8)); }), "table_npy_bad");
    const Bytes whole = npy("<f4", "(2, 16)", d8);
    EXPECT_EQ(code_of([&] { open_bytes(Bytes(whole.begin(), whole.begin() + 30)); }), "table_header_past_end");
}

}  // namespace
