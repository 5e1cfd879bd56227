// RoPE context extension: the frequency rules and the angle picture (see
// rope_scaling.hpp).
#include "poslab/rope_scaling.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "poslab/errors.hpp"

namespace poslab {
namespace {

constexpr double kTwoPi = 6.283185307179586476925286766559;

std::string number(double v) {
    std::string s = std::to_string(v);
    if (s.find('.') != std::string::npos) {
        s.erase(s.find_last_not_of('0') + 1);
        if (s.back() == '.') s.pop_back();
    }
    return s;
}

// lo <= value <= hi, finite.
void check(const char* name, double value, double lo, double hi, bool lo_open = false) {
    const bool low_ok = lo_open ? value > lo : value >= lo;
    if (!std::isfinite(value) || !low_ok || !(value <= hi))
        throw InvalidArgument("out_of_range_option",
                              std::string(name) + " must be a number from " + number(lo) +
                                  (lo_open ? " (exclusive)" : "") + " to " + number(hi) + ", got " +
                                  number(value),
                              {{"field", name},
                               {"value", number(value)},
                               {"min", number(lo)},
                               {"max", number(hi)}});
}

void check_width(std::size_t d, std::size_t max_d) {
    if (d < 2 || d > max_d || d % 2 != 0)
        throw InvalidArgument("out_of_range_option",
                              "d must be an even integer from 2 to " + std::to_string(max_d) +
                                  ", got " + std::to_string(d),
                              {{"field", "d"},
                               {"value", std::to_string(d)},
                               {"min", "2"},
                               {"max", std::to_string(max_d)}});
}

}  // namespace

RopeScaling parse_rope_scaling(const std::string& name) {
    if (name == "none") return RopeScaling::none;
    if (name == "pi") return RopeScaling::pi;
    if (name == "ntk") return RopeScaling::ntk;
    if (name == "yarn") return RopeScaling::yarn;
    if (name == "base") return RopeScaling::base;
    throw InvalidArgument("unknown_rope_method",
                          "method must be one of none, pi, ntk, yarn, base, got '" + name.substr(0, 40) + "'",
                          {{"value", name.substr(0, 40)}});
}

std::string to_string(RopeScaling method) {
    switch (method) {
        case RopeScaling::none: return "none";
        case RopeScaling::pi: return "pi";
        case RopeScaling::ntk: return "ntk";
        case RopeScaling::yarn: return "yarn";
        case RopeScaling::base: return "base";
    }
    return "none";
}

double rope_theta(std::size_t d, double base, std::size_t pair) {
    return std::pow(base, -2.0 * double(pair) / double(d));
}

double pi_position(double m, double s) { return m / s; }

double ntk_base(double base, double s, std::size_t d) {
    if (d < 4)
        throw InvalidArgument("out_of_range_option",
                              "NTK-aware scaling needs d of at least 4 (base·s^(d/(d−2))), got " +
                                  std::to_string(d),
                              {{"field", "d"}, {"value", std::to_string(d)}, {"min", "4"}});
    return base * std::pow(s, double(d) / double(d - 2));
}

double yarn_sqrt_inv_temperature(double s) { return s <= 1.0 ? 1.0 : 0.1 * std::log(s) + 1.0; }

double yarn_ramp(double r, double alpha, double beta) {
    if (beta <= alpha) return r < alpha ? 0.0 : 1.0;
    if (r < alpha) return 0.0;
    if (r > beta) return 1.0;
    return (r - alpha) / (beta - alpha);
}

YarnEdgeRule parse_yarn_edge_rule(const std::string& name) {
    if (name == "paper") return YarnEdgeRule::paper;
    if (name == "lab") return YarnEdgeRule::lab;
    throw InvalidArgument("unknown_yarn_edges",
                          "yarnEdges must be paper (α = 1, β = 32) or lab (α = 1, β = L/2π), got '" +
                              name.substr(0, 40) + "'",
                          {{"field", "yarnEdges"}, {"value", name.substr(0, 40)}});
}

std::string to_string(YarnEdgeRule rule) { return rule == YarnEdgeRule::lab ? "lab" : "paper"; }

YarnEdges yarn_edges(YarnEdgeRule rule, double trained_length) {
    if (rule == YarnEdgeRule::lab) return {kYarnPaperAlpha, trained_length / kTwoPi};
    return {kYarnPaperAlpha, kYarnPaperBeta};
}

void check_yarn_edges(double alpha, double beta) {
    check("yarnAlpha", alpha, 0.0, kYarnEdgeMax);
    check("yarnBeta", beta, 0.0, kYarnEdgeMax);
    if (!(alpha < beta))
        throw InvalidArgument("yarn_edges_order",
                              "yarnAlpha must be less than yarnBeta (the ramp runs from α up to β), got α = " +
                                  number(alpha) + ", β = " + number(beta),
                              {{"field", "yarnAlpha"}, {"alpha", number(alpha)}, {"beta", number(beta)}});
}

YarnEdges resolve_yarn_edges(YarnEdgeRule rule, double trained_length, std::optional<double> alpha,
                             std::optional<double> beta) {
    YarnEdges e = yarn_edges(rule, trained_length);
    if (!alpha && !beta) return e;
    if (alpha) e.alpha = *alpha;
    if (beta) e.beta = *beta;
    check_yarn_edges(e.alpha, e.beta);
    return e;
}

bool angle_unseen(double angle, double span) {
    if (!(span < kTwoPi)) return false;
    double a = std::fmod(angle, kTwoPi);
    if (a < 0) a += kTwoPi;
    const double tol = 1e-9 * std::max(1.0, span);
    return a > span + tol && a < kTwoPi - tol;
}

ScaledRope scale_rope(std::size_t d, double base, RopeScaling method, const RopeScalingParams& p) {
    check_width(d, 1024);
    check("base", base, 1.0, 1e12, true);
    check("s", p.s, 1.0, 64.0);
    check("L", p.trained_length, 1.0, 4096.0);
    ScaledRope out;
    const std::size_t half = d / 2;
    out.base_used = base;
    if (method == RopeScaling::ntk) out.base_used = ntk_base(base, p.s, d);
    if (method == RopeScaling::base) {
        check("newBase", p.new_base, 1.0, 1e12, true);
        out.base_used = p.new_base;
    }
    if (method == RopeScaling::yarn) {
        const YarnEdges edges = resolve_yarn_edges(p.yarn_edges, p.trained_length, p.yarn_alpha, p.yarn_beta);
        out.alpha = edges.alpha;
        out.beta = edges.beta;
        const double k = yarn_sqrt_inv_temperature(p.s);
        out.logit_scale = k * k;
    }
    for (std::size_t i = 0; i < half; ++i) {
        const double theta = rope_theta(d, base, i);
        out.original.push_back(theta);
        double scaled = theta;
        switch (method) {
            case RopeScaling::none: break;
            case RopeScaling::pi: scaled = theta / p.s; break;
            case RopeScaling::ntk:
            case RopeScaling::base: scaled = rope_theta(d, out.base_used, i); break;
            case RopeScaling::yarn: {
                const double r = p.trained_length * theta / kTwoPi;
                const double gamma = yarn_ramp(r, out.alpha, out.beta);
                out.ramp.push_back(gamma);
                scaled = (1.0 - gamma) * theta / p.s + gamma * theta;
                break;
            }
        }
        out.theta.push_back(scaled);
    }
    return out;
}

RopeAngleMap rope_angle_map(std::size_t d, double base, std::size_t trained_length, double s,
                            RopeScaling method, const RopeAngleOptions& options) {
    check_width(d, 256);
    check("L", double(trained_length), 1.0, 1024.0);
    check("s", s, 1.0, 64.0);
    const double n_last = std::round(s * double(trained_length));
    if (n_last > 4095.0)
        throw InvalidArgument("too_many_positions",
                              "s·L must be at most 4095 positions, got " + number(n_last),
                              {{"value", number(n_last)}, {"max", "4095"}});
    RopeScalingParams p;
    p.s = s;
    p.trained_length = double(trained_length);
    p.new_base = options.new_base;
    p.yarn_edges = options.yarn_edges;
    p.yarn_alpha = options.yarn_alpha;
    p.yarn_beta = options.yarn_beta;
    RopeAngleMap map;
    map.rope = scale_rope(d, base, method, p);
    map.pairs = d / 2;
    map.positions = std::size_t(n_last) + 1;
    map.trained_length = trained_length;
    map.angles.resize(map.positions * map.pairs);
    map.unseen.assign(map.positions * map.pairs, 0);
    map.leaves.assign(map.pairs, false);
    for (std::size_t i = 0; i < map.pairs; ++i) {
        const double span = double(trained_length) * map.rope.original[i];
        map.trained_span.push_back(span);
        map.max_angle.push_back(n_last * map.rope.theta[i]);
        for (std::size_t m = 0; m < map.positions; ++m) {
            const double angle = double(m) * map.rope.theta[i];
            double wrapped = std::fmod(angle, kTwoPi);
            if (wrapped < 0) wrapped += kTwoPi;
            map.angles[m * map.pairs + i] = wrapped;
            const bool unseen = angle_unseen(angle, span);
            map.unseen[m * map.pairs + i] = unseen ? 1 : 0;
            if (unseen) map.leaves[i] = true;
        }
    }
    return map;
}

}  // namespace poslab
