// Every figure analyze_table computes, against an independent implementation
// written here with plain loops: row norms, the heatmap's sampled rows and
// their cosine similarity, the mean neighbour similarity curve (and where its
// work cap stops it), the PCA's sampled rows, mean, total variance, top
// eigenvalues (classical Jacobi on the covariance, a different algorithm from
// the core's subspace iteration), explained variance and the projection of
// every row. At sizes on both sides of every sampling boundary (heatmap 256,
// PCA 1024 and the work cap, neighbour work cap), with an all-zero row, and
// the size limits for rows, columns and values exactly at and one past each.
// Also the .npy header parser (numpy's own files: tests/cli/table_numpy.py).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "poslab/errors.hpp"
#include "poslab/tables.hpp"
#include "support.hpp"

namespace {

using support::code_of;

using poslab::TableAnalysisOptions;
using poslab::TableSummary;

// A deterministic table: a few planted directions of distinct variance, plus
// a hash-based wiggle so no two rows are alike.
xt::xtensor<float, 2> make_table(std::size_t n, std::size_t d, std::uint32_t seed = 1) {
    xt::xtensor<float, 2> t = xt::empty<float>({n, d});
    std::uint32_t h = seed * 2654435761u + 12345u;
    for (std::size_t p = 0; p < n; ++p)
        for (std::size_t c = 0; c < d; ++c) {
            h = h * 1664525u + 1013904223u;
            double v = 0.1 + 0.05 * (double(h >> 9) / double(1u << 23) - 0.5);
            const double ang = 6.283185307179586 * double(p) / double(n);
            if (c == 0) v += 3 * std::cos(ang);
            if (c == 1 % d) v += 2 * std::sin(ang);
            if (c == 2 % d) v += 1 * std::cos(2 * ang);
            t(p, c) = float(v);
        }
    return t;
}

// The documented sampling rule, re-derived: round(i·(n−1)/(m−1)), halves up.
std::vector<std::size_t> ref_sample(std::size_t n, std::size_t m) {
    std::vector<std::size_t> out;
    if (m >= n) {
        for (std::size_t i = 0; i < n; ++i) out.push_back(i);
        return out;
    }
    if (m == 1) return {0};
    for (std::size_t i = 0; i < m; ++i) out.push_back(std::size_t(std::floor(double(i) * double(n - 1) / double(m - 1) + 0.5)));
    return out;
}

// The PCA row count, re-derived by counting down (no bisection).
std::size_t ref_pca_rows(std::size_t n, std::size_t d, std::size_t cap = 1024) {
    std::size_t m = std::min(n, std::max<std::size_t>(2, std::min<std::size_t>(cap, 4096)));
    while (m > 2 && double(m) * double(std::min(m, d)) * double(d) > double(1ull << 30)) --m;
    return m;
}

double ref_norm(const xt::xtensor<float, 2>& t, std::size_t p) {
    double s = 0;
    for (std::size_t c = 0; c < t.shape(1); ++c) s += double(t(p, c)) * double(t(p, c));
    return std::sqrt(s);
}

double ref_cos(const xt::xtensor<float, 2>& t, std::size_t a, std::size_t b) {
    double ab = 0, aa = 0, bb = 0;
    for (std::size_t c = 0; c < t.shape(1); ++c) {
        ab += double(t(a, c)) * t(b, c);
        aa += double(t(a, c)) * t(a, c);
        bb += double(t(b, c)) * t(b, c);
    }
    return aa == 0 || bb == 0 ? 0.0 : ab / std::sqrt(aa * bb);
}

// Classical Jacobi (largest off-diagonal first) on a small symmetric matrix:
// all eigenvalues and eigenvectors (columns of v), unsorted.
void ref_jacobi(std::vector<double> a, std::size_t n, std::vector<double>& values, std::vector<std::vector<double>>& vectors) {
    std::vector<double> v(n * n, 0.0);
    for (std::size_t i = 0; i < n; ++i) v[i * n + i] = 1;
    for (int it = 0; it < 200000; ++it) {
        std::size_t p = 0, q = 1;
        double big = 0, scale = 0;
        for (std::size_t i = 0; i < n; ++i) {
            scale = std::max(scale, std::abs(a[i * n + i]));
            for (std::size_t j = i + 1; j < n; ++j)
                if (std::abs(a[i * n + j]) > big) big = std::abs(a[i * n + j]), p = i, q = j;
        }
        if (big <= 1e-15 * std::max(scale, 1e-300)) break;
        const double phi = 0.5 * std::atan2(2 * a[p * n + q], a[q * n + q] - a[p * n + p]);
        const double c = std::cos(phi), s = std::sin(phi);
        for (std::size_t k = 0; k < n; ++k) {
            const double akp = a[k * n + p], akq = a[k * n + q];
            a[k * n + p] = c * akp - s * akq;
            a[k * n + q] = s * akp + c * akq;
        }
        for (std::size_t k = 0; k < n; ++k) {
            const double apk = a[p * n + k], aqk = a[q * n + k];
            a[p * n + k] = c * apk - s * aqk;
            a[q * n + k] = s * apk + c * aqk;
        }
        for (std::size_t k = 0; k < n; ++k) {
            const double vkp = v[k * n + p], vkq = v[k * n + q];
            v[k * n + p] = c * vkp - s * vkq;
            v[k * n + q] = s * vkp + c * vkq;
        }
    }
    values.assign(n, 0);
    vectors.assign(n, std::vector<double>(n));
    for (std::size_t j = 0; j < n; ++j) {
        values[j] = a[j * n + j];
        for (std::size_t k = 0; k < n; ++k) vectors[j][k] = v[k * n + j];
    }
}

struct RefPca {
    std::vector<std::size_t> rows;
    std::vector<double> mean, variance, explained;
    std::vector<std::vector<double>> components;  // unit vectors of length d, largest entry positive
    double total = 0;
};

// PCA by the definition: mean and covariance (1/m) of the sampled rows, its
// eigenpairs by ref_jacobi (covariance d × d; d must be small here).
RefPca ref_pca(const xt::xtensor<float, 2>& t, std::size_t k, std::size_t cap = 1024) {
    const std::size_t n = t.shape(0), d = t.shape(1);
    RefPca r;
    r.rows = ref_sample(n, ref_pca_rows(n, d, cap));
    const std::size_t m = r.rows.size();
    r.mean.assign(d, 0);
    for (std::size_t i : r.rows)
        for (std::size_t c = 0; c < d; ++c) r.mean[c] += t(i, c);
    for (double& v : r.mean) v /= double(m);
    std::vector<double> cov(d * d, 0);
    for (std::size_t i : r.rows)
        for (std::size_t a = 0; a < d; ++a)
            for (std::size_t b = 0; b < d; ++b) cov[a * d + b] += (t(i, a) - r.mean[a]) * (t(i, b) - r.mean[b]) / double(m);
    for (std::size_t a = 0; a < d; ++a) r.total += cov[a * d + a];
    std::vector<double> values;
    std::vector<std::vector<double>> vectors;
    ref_jacobi(cov, d, values, vectors);
    std::vector<std::size_t> order(d);
    for (std::size_t i = 0; i < d; ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return values[x] > values[y]; });
    for (std::size_t j = 0; j < std::min({k, m, d}); ++j) {
        r.variance.push_back(values[order[j]]);
        r.explained.push_back(values[order[j]] / r.total);
        std::vector<double> v = vectors[order[j]];
        std::size_t big = 0;
        for (std::size_t c = 1; c < d; ++c)
            if (std::abs(v[c]) > std::abs(v[big])) big = c;
        if (v[big] < 0)
            for (double& x : v) x = -x;
        r.components.push_back(v);
    }
    return r;
}

// Every figure of analyze_table(t, o) against the plain-loop implementation.
void expect_all_figures(const xt::xtensor<float, 2>& t, const TableAnalysisOptions& o, const std::string& what) {
    SCOPED_TRACE(what);
    const std::size_t n = t.shape(0), d = t.shape(1);
    const TableSummary s = poslab::analyze_table(t, o);
    ASSERT_EQ(s.rows, n);
    ASSERT_EQ(s.cols, d);
    ASSERT_EQ(s.norms.size(), n);
    for (std::size_t p = 0; p < n; ++p) ASSERT_NEAR(s.norms[p], ref_norm(t, p), 1e-9 * (1 + ref_norm(t, p))) << "norm of row " << p;
    // Heatmap rows and similarity.
    const auto hm = ref_sample(n, std::max<std::size_t>(1, std::min<std::size_t>(o.max_heatmap_rows, 1024)));
    ASSERT_EQ(s.heatmap_rows, hm);
    ASSERT_EQ(s.similarity.shape(0), hm.size());
    ASSERT_EQ(s.similarity.shape(1), hm.size());
    for (std::size_t i = 0; i < hm.size(); ++i)
        for (std::size_t j = 0; j < hm.size(); ++j)
            ASSERT_NEAR(s.similarity(i, j), ref_cos(t, hm[i], hm[j]), 2e-7) << "similarity " << i << ", " << j;
    // Neighbour curve: distances 1 … min(max_distance (≤ 4096), n − 1, max(1, 2^28 / (n·d))).
    std::size_t dmax = std::min<std::size_t>(std::min<std::size_t>(o.max_distance, 4096), n - 1);
    dmax = std::min(dmax, std::max<std::size_t>(1, (std::size_t(1) << 28) / (n * d)));
    ASSERT_EQ(s.neighbour.size(), dmax);
    for (std::size_t dist = 1; dist <= dmax; ++dist) {
        if (dmax > 12 && dist > 4 && dist + 4 < dmax && dist % 16) continue;  // a few in the middle, all at the ends
        double m = 0;
        for (std::size_t p = 0; p + dist < n; ++p) m += ref_cos(t, p, p + dist);
        ASSERT_NEAR(s.neighbour[dist - 1], m / double(n - dist), 1e-9) << "distance " << dist;
    }
    // PCA.
    const RefPca r = ref_pca(t, o.components, o.max_pca_rows);
    ASSERT_EQ(s.pca_rows, r.rows);
    ASSERT_NEAR(s.total_variance, r.total, 1e-9 * (1 + r.total));
    ASSERT_EQ(s.variance.size(), r.variance.size());
    ASSERT_EQ(s.explained.size(), r.variance.size());
    EXPECT_TRUE(s.converged);
    for (std::size_t j = 0; j < r.variance.size(); ++j) {
        EXPECT_NEAR(s.variance[j], r.variance[j], 1e-7 * (1 + r.variance[0])) << "variance " << j;
        EXPECT_NEAR(s.explained[j], r.explained[j], 1e-7) << "explained " << j;
    }
    ASSERT_EQ(s.projection.shape(0), n);
    ASSERT_EQ(s.projection.shape(1), r.variance.size());
    for (std::size_t j = 0; j < r.variance.size(); ++j)
        for (std::size_t p = 0; p < n; ++p) {
            double want = 0;
            for (std::size_t c = 0; c < d; ++c) want += (t(p, c) - r.mean[c]) * r.components[j][c];
            ASSERT_NEAR(s.projection(p, j), want, 1e-5 * (1 + std::abs(want))) << "projection of row " << p << " on " << j;
        }
}

TEST(TablesFigures, EveryFigureAgainstPlainLoopsAcrossTheHeatmapBoundary) {
    TableAnalysisOptions o;  // defaults: heatmap 256, PCA 1024, distance 256, 3 components
    for (std::size_t n : {2, 3, 255, 256, 257, 300}) expect_all_figures(make_table(n, 7, std::uint32_t(n)), o, "rows " + std::to_string(n));
}

TEST(TablesFigures, PcaOnASampleOfATableWithMoreRowsThanTheSample) {
    TableAnalysisOptions o;
    for (std::size_t n : {1023, 1024, 1025, 1500}) expect_all_figures(make_table(n, 6, std::uint32_t(n)), o, "rows " + std::to_string(n));
    // A smaller sample cap, both sides, and 1, 2 and 8 components.
    o.max_pca_rows = 40;
    o.max_heatmap_rows = 9;
    o.max_distance = 30;
    for (std::size_t comps : {1, 2, 8}) {
        o.components = comps;
        for (std::size_t n : {39, 40, 41, 97}) expect_all_figures(make_table(n, 9, std::uint32_t(n + comps)), o, "rows " + std::to_string(n) + ", components " + std::to_string(comps));
    }
}

TEST(TablesFigures, MoreColumnsThanSampledRowsTakesTheGramRouteWithTheSameFigures) {
    TableAnalysisOptions o;
    o.max_pca_rows = 5;
    o.max_heatmap_rows = 4;
    for (std::size_t n : {5, 6, 12}) expect_all_figures(make_table(n, 8, std::uint32_t(3 * n)), o, "rows " + std::to_string(n) + " × 8");
}

TEST(TablesFigures, AnAllZeroRow) {
    for (std::size_t zero : {std::size_t(0), std::size_t(5), std::size_t(19)}) {
        auto t = make_table(20, 6, 7);
        for (std::size_t c = 0; c < 6; ++c) t(zero, c) = 0.0f;
        TableAnalysisOptions o;
        expect_all_figures(t, o, "zero row " + std::to_string(zero));
        const TableSummary s = poslab::analyze_table(t, o);
        EXPECT_EQ(s.norms[zero], 0.0);
        // Its cosine with anything, itself included, is 0 (not NaN).
        for (std::size_t j = 0; j < 20; ++j) {
            EXPECT_EQ(s.similarity(zero, j), 0.0f);
            EXPECT_EQ(s.similarity(j, zero), 0.0f);
        }
        for (double v : s.neighbour) EXPECT_TRUE(std::isfinite(v));
    }
    // A table of zeros only: every figure finite, no variance to explain.
    xt::xtensor<float, 2> z = xt::zeros<float>({6, 4});
    const TableSummary s = poslab::analyze_table(z);
    EXPECT_EQ(s.total_variance, 0.0);
    for (double e : s.explained) EXPECT_EQ(e, 0.0);
    for (double v : s.neighbour) EXPECT_EQ(v, 0.0);
    for (float p : s.projection) EXPECT_EQ(p, 0.0f);
}

TEST(TablesFigures, TheNeighbourWorkCapOnBothSides) {
    // 2^28 / (n·d): 4096 × 1024 keeps 64 distances, 4096 × 1025 keeps 63.
    TableAnalysisOptions o;
    o.max_distance = 4096;
    o.max_heatmap_rows = 2;
    o.max_pca_rows = 2;
    o.components = 1;
    for (std::size_t d : {1024, 1025}) {
        const auto t = make_table(4096, d, std::uint32_t(d));
        const TableSummary s = poslab::analyze_table(t, o);
        const std::size_t want = (std::size_t(1) << 28) / (4096 * d);
        ASSERT_EQ(s.neighbour.size(), want) << d << " columns";
        for (std::size_t dist : {std::size_t(1), want}) {
            double m = 0;
            for (std::size_t p = 0; p + dist < 4096; ++p) m += ref_cos(t, p, p + dist);
            EXPECT_NEAR(s.neighbour[dist - 1], m / double(4096 - dist), 1e-9) << "distance " << dist;
        }
    }
    // max_distance and n − 1 bound it too.
    o.max_distance = 5;
    EXPECT_EQ(poslab::analyze_table(make_table(50, 3), o).neighbour.size(), 5u);
    o.max_distance = 4096;
    EXPECT_EQ(poslab::analyze_table(make_table(50, 3), o).neighbour.size(), 49u);
    o.max_distance = 100000;  // capped at 4096
    EXPECT_EQ(poslab::analyze_table(make_table(5000, 1), o).neighbour.size(), 4096u);
}

TEST(TablesFigures, PcaRowCountAtTheWorkCap) {
    // The rule against counting down from min(rows, cap), on both sides of each boundary.
    for (std::size_t cols : {1, 16, 768, 1024, 1448, 2048, 3000, 4096})
        for (std::size_t rows : {2, 3, 500, 511, 512, 513, 723, 724, 725, 1023, 1024, 1025, 4096, 65536})
            EXPECT_EQ(poslab::pca_row_count(rows, cols), ref_pca_rows(rows, cols)) << rows << " × " << cols;
    EXPECT_EQ(poslab::pca_row_count(4096, 4096), 512u);   // 512² · 4096 = 2^30 exactly
    EXPECT_EQ(poslab::pca_row_count(900, 2048), 724u);    // 724² · 2048 ≤ 2^30 < 725² · 2048
    EXPECT_EQ(poslab::pca_row_count(1024, 768), 1024u);   // GPT-2: every row
    EXPECT_EQ(poslab::pca_row_count(65536, 256), 1024u);
    EXPECT_EQ(poslab::pca_row_count(5000, 4000, 4096), ref_pca_rows(5000, 4000, 4096));
    EXPECT_EQ(poslab::pca_row_count(5000, 20, 4096), 4096u);
    EXPECT_EQ(poslab::pca_row_count(5000, 20, 9999), 4096u);  // the cap's own cap
    EXPECT_EQ(poslab::pca_row_count(5000, 20, 0), 2u);        // at least 2
    EXPECT_EQ(poslab::pca_row_count(1, 20, 0), 1u);
    // And analyze_table uses it: a 600 × 2048 table keeps all 600 rows, 900 × 2048 keeps 724.
    TableAnalysisOptions o;
    o.max_heatmap_rows = 2;
    o.max_distance = 1;
    o.components = 1;
    EXPECT_EQ(poslab::analyze_table(make_table(900, 2048), o).pca_rows, ref_sample(900, 724));
}

TEST(TablesFigures, EigenStepCap) {
    // floor(2^29 / ((k+4)·m²)) clamped to [30, 500].
    EXPECT_EQ(poslab::eigen_iterations(512, 3), std::size_t((1ull << 29) / (7ull * 512 * 512)));
    EXPECT_EQ(poslab::eigen_iterations(512, 3), 292u);
    EXPECT_EQ(poslab::eigen_iterations(10, 3), 500u);
    EXPECT_EQ(poslab::eigen_iterations(4096, 8), 30u);
    EXPECT_EQ(poslab::eigen_iterations(2, 3), 500u);  // p = min(m, k+4)
    EXPECT_EQ(poslab::eigen_iterations(768, 3), std::size_t((1ull << 29) / (7ull * 768 * 768)));
    // top_eigen stops at its cap and says it did not converge.
    std::vector<double> flat(50 * 50, 0.0);
    for (std::size_t i = 0; i < 50; ++i) flat[i * 50 + i] = 1.0 + 1e-9 * double(i % 7);
    for (std::size_t i = 0; i + 1 < 50; ++i) flat[i * 50 + i + 1] = flat[(i + 1) * 50 + i] = 1e-3;
    const auto e = poslab::top_eigen(flat, 50, 3, 4);
    EXPECT_LE(e.iterations, 4u);
}

TEST(TablesFigures, ValuesNearTheFloatLimitGiveFiniteFigures) {
    // Rows of ±3.4e38: the projection passes float's range; it is double and finite.
    xt::xtensor<float, 2> t = xt::empty<float>({6, 3});
    const float big = 3.4e38f;
    // Row p = ±big · (1, −0.8, 0.5), alternating: one component ∝ (1, −0.8, 0.5)
    // (no tie for the sign rule's largest entry), centred rows at ±1.37 · big.
    const float w[3] = {1.0f, -0.8f, 0.5f};
    for (std::size_t p = 0; p < 6; ++p)
        for (std::size_t c = 0; c < 3; ++c) t(p, c) = (p % 2 ? big : -big) * w[c];
    const TableSummary s = poslab::analyze_table(t);
    for (double v : s.norms) EXPECT_TRUE(std::isfinite(v));
    for (float v : s.similarity) EXPECT_TRUE(std::isfinite(v));
    for (double v : s.neighbour) EXPECT_TRUE(std::isfinite(v));
    for (double v : s.variance) EXPECT_TRUE(std::isfinite(v));
    for (double v : s.explained) EXPECT_TRUE(std::isfinite(v));
    bool past_float = false;
    for (double v : s.projection) {
        EXPECT_TRUE(std::isfinite(v));
        past_float = past_float || std::abs(v) > 3.4028234663852886e38;
    }
    EXPECT_TRUE(past_float) << "the case must reach past float's range to test anything";
    // The centred rows have rank 1 here: compare the one component that is defined.
    TableAnalysisOptions one;
    one.components = 1;
    expect_all_figures(t, one, "±3.4e38");
}

// --- Size limits, exactly at and one past each --------------------------------

poslab::TensorEntry entry(std::uint64_t rows, std::uint64_t cols) {
    poslab::TensorEntry t;
    t.name = "wpe.weight";
    t.dtype = "F32";
    t.shape = {rows, cols};
    t.begin = 0;
    t.end = rows * cols * 4;
    return t;
}

TEST(TablesFigures, SizeLimitsExactlyAtAndOnePast) {
    auto pick = [](std::uint64_t r, std::uint64_t c) { return code_of([&] { poslab::pick_table({entry(r, c)}, ""); }); };
    EXPECT_EQ(pick(65536, 256), "(no error)");         // rows at the limit, values 2^24
    EXPECT_EQ(pick(65537, 1), "table_too_large");      // rows one past
    EXPECT_EQ(pick(65536, 1), "(no error)");
    EXPECT_EQ(pick(1, 4096), "(no error)");            // columns at the limit
    EXPECT_EQ(pick(1, 4097), "table_too_large");       // columns one past
    EXPECT_EQ(pick(4096, 4096), "(no error)");         // values exactly 2^24
    EXPECT_EQ(pick(4097, 4096), "table_too_large");    // values one row past 2^24
    EXPECT_EQ(pick(65536, 257), "table_too_large");    // values past 2^24, rows at the limit
    EXPECT_EQ(pick(16385, 1024), "table_too_large");
    EXPECT_EQ(pick(16384, 1024), "(no error)");
    EXPECT_EQ(pick(0, 5), "table_empty");
    EXPECT_EQ(pick(5, 0), "table_empty");
    // The message names the limits.
    try {
        poslab::pick_table({entry(1, 4097)}, "");
        FAIL();
    } catch (const poslab::InvalidArgument& e) {
        EXPECT_NE(std::string(e.what()).find("up to 65536 rows, 4096 columns and 16777216 values"), std::string::npos) << e.what();
    }
}

TEST(TablesFigures, TablesAtTheRowAndColumnLimitsAreAnalysed) {
    TableAnalysisOptions o;
    o.max_heatmap_rows = 3;
    o.max_distance = 3;
    {
        const auto t = make_table(65536, 2, 5);
        const TableSummary s = poslab::analyze_table(t, o);
        EXPECT_EQ(s.rows, 65536u);
        EXPECT_EQ(s.heatmap_rows, (std::vector<std::size_t>{0, 32768, 65535}));
        EXPECT_EQ(s.pca_rows, ref_sample(65536, 1024));
        EXPECT_NEAR(s.norms[65535], ref_norm(t, 65535), 1e-9);
        EXPECT_EQ(s.neighbour.size(), 3u);
    }
    {
        const auto t = make_table(3, 4096, 6);
        const TableSummary s = poslab::analyze_table(t, o);
        EXPECT_EQ(s.cols, 4096u);
        EXPECT_EQ(s.pca_rows, (std::vector<std::size_t>{0, 1, 2}));
        // Three rows: the Gram route; variance by the definition.
        const RefPca r = ref_pca(make_table(3, 4, 6), 1);  // (sanity of the helper on a small case)
        EXPECT_EQ(r.rows.size(), 3u);
        double total = 0;
        for (std::size_t c = 0; c < 4096; ++c) {
            const double mean = (double(t(0, c)) + t(1, c) + t(2, c)) / 3;
            for (std::size_t p = 0; p < 3; ++p) total += (t(p, c) - mean) * (t(p, c) - mean) / 3;
        }
        EXPECT_NEAR(s.total_variance, total, 1e-9 * total);
        EXPECT_NEAR(s.norms[2], ref_norm(t, 2), 1e-9 * ref_norm(t, 2));
    }
}

// --- The .npy header, as the format defines it ---------------------------------

using Bytes = std::vector<std::uint8_t>;
Bytes npy_file(const std::string& header, const Bytes& data, int version = 1) {
    std::string h = header;
    const std::size_t pre = version == 1 ? 10 : 12;
    while ((pre + h.size() + 1) % 64) h += ' ';
    h += '\n';
    Bytes b = {0x93, 'N', 'U', 'M', 'P', 'Y', std::uint8_t(version), 0};
    for (int i = 0; i < (version == 1 ? 2 : 4); ++i) b.push_back(std::uint8_t(h.size() >> (8 * i)));
    b.insert(b.end(), h.begin(), h.end());
    b.insert(b.end(), data.begin(), data.end());
    return b;
}
poslab::TensorEntry npy_of(const std::string& header, std::size_t data_bytes = 24, int version = 1) {
    const Bytes f = npy_file(header, Bytes(data_bytes, 0), version);
    return poslab::npy_tensor(f.data(), f.size(), f.size());
}
std::string npy_error(const std::string& header, std::size_t data_bytes = 24) {
    try {
        npy_of(header, data_bytes);
    } catch (const std::exception& e) {
        return poslab::error_code(e) + ": " + e.what();
    }
    return "(no error)";
}

TEST(TablesNpy, TheHeaderIsAPythonDictReadWhole) {
    auto t = npy_of("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }");
    EXPECT_EQ(t.dtype, "F32");
    EXPECT_EQ(t.shape, (std::vector<std::uint64_t>{2, 3}));
    EXPECT_FALSE(t.fortran_order);
    EXPECT_FALSE(t.big_endian);
    t = npy_of("{\"shape\":(3,2,),\"descr\":\">f4\",\t\"fortran_order\" : True}");
    EXPECT_EQ(t.dtype, "F32");
    EXPECT_EQ(t.shape, (std::vector<std::uint64_t>{3, 2}));
    EXPECT_TRUE(t.fortran_order);
    EXPECT_TRUE(t.big_endian);
    t = npy_of("{'descr': '>f2', 'fortran_order': False, 'shape': (4, 3)}", 24, 2);
    EXPECT_EQ(t.dtype, "F16");
    EXPECT_TRUE(t.big_endian);
    t = npy_of("{'descr': '<f4', 'fortran_order': True, 'shape': (6,)}");  // 1-D: order means nothing
    EXPECT_EQ(t.shape, (std::vector<std::uint64_t>{6}));
    EXPECT_FALSE(t.fortran_order);
    t = npy_of("{'descr': '<f4', 'fortran_order': False, 'shape': (2L, 3L)}");  // Python 2's longs
    EXPECT_EQ(t.shape, (std::vector<std::uint64_t>{2, 3}));
    t = npy_of("{'descr': '<f4', 'fortran_order': False, 'shape': ()}", 4);
    EXPECT_TRUE(t.shape.empty());
    EXPECT_EQ(t.begin, 64u);
    EXPECT_EQ(t.end, 68u);
}

TEST(TablesNpy, WhatNumpyWouldReadDifferentlyIsRefusedNamingWhy) {
    // numpy takes the last of a duplicated key; a reader taking the first would read another shape.
    EXPECT_NE(npy_error("{'descr': '<f4', 'fortran_order': False, 'shape': (1, 6), 'shape': (2, 3)}").find("gives 'shape' twice"), std::string::npos);
    EXPECT_NE(npy_error("{'descr': '>f4', 'descr': '<f4', 'fortran_order': False, 'shape': (2, 3)}").find("gives 'descr' twice"), std::string::npos);
    EXPECT_NE(npy_error("{'descr': '<f4', 'fortran_order': True, 'fortran_order': False, 'shape': (2, 3)}").find("gives 'fortran_order' twice"), std::string::npos);
    // A key's name inside another value is not the key.
    EXPECT_NE(npy_error("{'descr': [('shape', '<f4')], 'fortran_order': False, 'shape': (6,)}").find("the value of 'descr' is not a string"), std::string::npos);
    EXPECT_NE(npy_error("{'descr': '<f4', 'x': 'shape: (1, 1)', 'fortran_order': False, 'shape': (2, 3)}").find("the key 'x' is not one of"), std::string::npos);
    for (const char* bad : {
             "{'descr': '<f4', 'fortran_order': False}",                             // missing shape
             "{'fortran_order': False, 'shape': (2, 3)}",                            // missing descr
             "{'descr': '<f4', 'shape': (2, 3)}",                                    // missing fortran_order
             "{'descr': '<f4', 'fortran_order': false, 'shape': (2, 3)}",            // not Python's False
             "{'descr': '<f4', 'fortran_order': Falsey, 'shape': (2, 3)}",
             "{'descr': '<f4', 'fortran_order': 0, 'shape': (2, 3)}",
             "{'descr': '<f4', 'fortran_order': False, 'shape': [2, 3]}",           // a list
             "{'descr': '<f4', 'fortran_order': False, 'shape': (6)}",              // a number
             "{'descr': '<f4', 'fortran_order': False, 'shape': (2, -3)}",
             "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3.0)}",
             "{'descr': '<f4', 'fortran_order': False, 'shape': (2,, 3)}",
             "{'descr': '<f4', 'fortran_order': False, 'shape': (02, 3)}",
             "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3)",            // no }
             "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3)} {}",        // text after
             "{'descr': '<f4' 'fortran_order': False, 'shape': (2, 3)}",            // no comma
             "{'descr': '<f4, 'fortran_order': False, 'shape': (2, 3)}",            // unbalanced quote
             "{'descr': '<\\x66\\x34', 'fortran_order': False, 'shape': (2, 3)}",  // escapes
             "{descr: '<f4', 'fortran_order': False, 'shape': (2, 3)}",             // bare key
             "['descr', '<f4']",
             "",
         }) {
        const std::string e = npy_error(bad);
        EXPECT_EQ(e.rfind("table_npy_bad: the .npy header", 0), 0u) << bad << " → " << e;
    }
}

TEST(TablesNpy, ByteOrderAndFortranOrderAreDecodedAsNumpyDoes) {
    // The 2 × 3 table [[1, 2, 3], [4, 5, 6]] as float32, in four layouts.
    auto f32 = [](float v, bool big) {
        std::uint32_t u;
        std::memcpy(&u, &v, 4);
        Bytes b;
        for (int i = 0; i < 4; ++i) b.push_back(std::uint8_t(u >> (8 * (big ? 3 - i : i))));
        return b;
    };
    for (bool big : {false, true})
        for (bool fortran : {false, true}) {
            Bytes data;
            const std::vector<float> order = fortran ? std::vector<float>{1, 4, 2, 5, 3, 6} : std::vector<float>{1, 2, 3, 4, 5, 6};
            for (float v : order) {
                const Bytes b = f32(v, big);
                data.insert(data.end(), b.begin(), b.end());
            }
            const std::string h = std::string("{'descr': '") + (big ? ">" : "<") + "f4', 'fortran_order': " + (fortran ? "True" : "False") + ", 'shape': (2, 3), }";
            const Bytes file = npy_file(h, data);
            const auto t = poslab::npy_tensor(file.data(), file.size(), file.size());
            const auto x = poslab::decode_table(t, file.data() + t.begin, t.end - t.begin);
            for (std::size_t r = 0; r < 2; ++r)
                for (std::size_t c = 0; c < 3; ++c) EXPECT_EQ(x(r, c), float(1 + 3 * r + c)) << big << fortran << r << c;
        }
    // float16, big-endian, fortran: [[1, 2], [3, -2]] stored 1, 3, 2, -2.
    const Bytes half = {0x3c, 0x00, 0x42, 0x00, 0x40, 0x00, 0xc0, 0x00};
    const Bytes file = npy_file("{'descr': '>f2', 'fortran_order': True, 'shape': (2, 2), }", half);
    const auto t = poslab::npy_tensor(file.data(), file.size(), file.size());
    const auto x = poslab::decode_table(t, file.data() + t.begin, t.end - t.begin);
    EXPECT_EQ(x(0, 0), 1.0f);
    EXPECT_EQ(x(0, 1), 2.0f);
    EXPECT_EQ(x(1, 0), 3.0f);
    EXPECT_EQ(x(1, 1), -2.0f);
    // NaN in a Fortran-ordered table is named by its row and column, not its place in the file.
    Bytes nan_data(16, 0);
    nan_data[4 * 1 + 2] = 0xc0, nan_data[4 * 1 + 3] = 0x7f;  // element 1 in file order = row 1, column 0
    const Bytes nf = npy_file("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }", nan_data);
    const auto nt = poslab::npy_tensor(nf.data(), nf.size(), nf.size());
    try {
        poslab::decode_table(nt, nf.data() + nt.begin, nt.end - nt.begin);
        FAIL();
    } catch (const std::exception& e) {
        EXPECT_NE(std::string(e.what()).find("at row 1, column 0"), std::string::npos) << e.what();
    }
}

TEST(TablesNpy, SizeMismatchIsNotCalledCutOff) {
    const std::string h = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
    EXPECT_EQ(npy_error(h, 24), "(no error)");
    const std::string more = npy_error(h, 28);
    EXPECT_EQ(more.rfind("table_size_mismatch", 0), 0u) << more;
    EXPECT_NE(more.find("which is 24 bytes, but the file has 28 bytes"), std::string::npos) << more;
    EXPECT_EQ(more.find("cut off"), std::string::npos);
    const std::string less = npy_error(h, 20);
    EXPECT_EQ(less.rfind("table_data_short", 0), 0u) << less;
    EXPECT_NE(less.find("cut off"), std::string::npos);
    // safetensors: shape × dtype ≠ the offsets' span.
    const std::string header = "{\"wpe.weight\":{\"dtype\":\"F32\",\"shape\":[2,3],\"data_offsets\":[0,20]}}";
    const std::string st = code_of([&] { poslab::safetensors_tensors(header, 8 + header.size() + 20); });
    EXPECT_EQ(st, "table_size_mismatch");
    // decode_table given more bytes than the shape.
    const auto e = entry(2, 3);
    const Bytes bytes(28, 0);
    EXPECT_EQ(code_of([&] { poslab::decode_table(e, bytes.data(), 28); }), "table_size_mismatch");
    EXPECT_EQ(code_of([&] { poslab::decode_table(e, bytes.data(), 20); }), "table_truncated");
    EXPECT_EQ(code_of([&] { poslab::decode_table(e, bytes.data(), 24); }), "(no error)");
}

TEST(TablesNpy, AnNpyFileGivenAsSafetensorsSaysSo) {
    const Bytes f = npy_file("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", Bytes(24, 0));
    try {
        poslab::safetensors_header_length(f.data(), 8, f.size());
        FAIL();
    } catch (const std::exception& e) {
        EXPECT_EQ(poslab::error_code(e), "table_npy_as_safetensors");
        EXPECT_NE(std::string(e.what()).find("this is an .npy file, not a .safetensors file"), std::string::npos) << e.what();
    }
    EXPECT_EQ(code_of([&] { poslab::safetensors_tensors(std::string(f.begin(), f.end()), f.size() + 8); }), "table_npy_as_safetensors");
    // Version 1.1 or 4.0: refused naming the version.
    Bytes v = f;
    v[7] = 1;
    EXPECT_EQ(code_of([&] { poslab::npy_tensor(v.data(), v.size(), v.size()); }), "table_npy_bad");
    v[7] = 0;
    v[6] = 4;
    EXPECT_EQ(code_of([&] { poslab::npy_tensor(v.data(), v.size(), v.size()); }), "table_npy_bad");
}

}  // namespace
