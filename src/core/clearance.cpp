// The clearance lower bound (clearance.hpp).
#include "clearance.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "trig.hpp"

namespace kc {
namespace {

// p − thing's origin, in the thing's frame (its pose's top rows P).
inline void local(const double* P, const double* p, double* out) {
    const double d[3] = {p[0] - P[3], p[1] - P[7], p[2] - P[11]};
    for (int j = 0; j < 3; ++j) out[j] = P[j] * d[0] + P[4 + j] * d[1] + P[8 + j] * d[2];
}

// The distance from the point p (world) to a thing (≤ 0 inside: minus the depth).
double to_thing(int kind, const double* P, const double* s, const double* p) {
    if (kind == SPHERE) return std::sqrt((p[0] - P[3]) * (p[0] - P[3]) + (p[1] - P[7]) * (p[1] - P[7]) +
                                         (p[2] - P[11]) * (p[2] - P[11])) - s[0];
    double x[3];
    local(P, p, x);
    if (kind == BOX) {
        double out = 0.0, in = -INFINITY;
        for (int j = 0; j < 3; ++j) {
            const double e = std::fabs(x[j]) - s[j];
            out += e > 0 ? e * e : 0.0;
            in = std::max(in, e);
        }
        return std::sqrt(out) + std::min(in, 0.0);
    }
    if (kind == CAPSULE) {
        const double z = x[2] - std::min(std::max(x[2], -s[1]), s[1]);
        return std::sqrt(x[0] * x[0] + x[1] * x[1] + z * z) - s[0];
    }
    const double dr = std::sqrt(x[0] * x[0] + x[1] * x[1]) - s[0], dz = std::fabs(x[2]) - s[1];  // CYLINDER
    const double a = std::max(dr, 0.0), b = std::max(dz, 0.0);
    return std::sqrt(a * a + b * b) + std::min(std::max(dr, dz), 0.0);
}

}  // namespace

std::size_t clearance_scratch(const Clearance& m) {
    return static_cast<std::size_t>(m.chain.n + 2) * 16 + 3 * (m.sphere.size() / 4) + 3 * m.chain.n;
}

bool clearance(const Clearance& m, const double* q, double* scratch, double* out) {
    const int n = m.chain.n;
    double *F = scratch, *W = F + 16 * (n + 2), *theta = W + 3 * (m.sphere.size() / 4);
    double *s = theta + n, *c = s + n;
    bool ok = true;
    for (int i = 0; i < n; ++i) ok &= std::isfinite(q[i]);
    if (!ok) return false;
    for (int i = 0; i < n; ++i) theta[i] = q[i] + m.chain.offset[i];
    sincos_many(theta, n, s, c);
    frames(m.chain, q, s, c, F);
    for (int b = 0; b < m.bodies; ++b) {  // the spheres' centres in the world
        const double* T = F + 16 * b;
        for (int k = m.first[b]; k < m.first[b + 1]; ++k) {
            const double* x = &m.sphere[4 * k];
            double y[3];
            for (int r = 0; r < 3; ++r)
                y[r] = T[4 * r] * x[0] + T[4 * r + 1] * x[1] + T[4 * r + 2] * x[2] + m.scale * T[4 * r + 3];
            for (int r = 0; r < 3; ++r)
                W[3 * k + r] = m.base[4 * r] * y[0] + m.base[4 * r + 1] * y[1] + m.base[4 * r + 2] * y[2] + m.base[4 * r + 3];
        }
    }
    double best = INFINITY;
    for (std::size_t p = 0; p + 1 < m.self_pairs.size(); p += 2) {
        const int a = m.self_pairs[p], b = m.self_pairs[p + 1];
        for (int i = m.first[a]; i < m.first[a + 1]; ++i)
            for (int j = m.first[b]; j < m.first[b + 1]; ++j) {
                const double dx = W[3 * i] - W[3 * j], dy = W[3 * i + 1] - W[3 * j + 1], dz = W[3 * i + 2] - W[3 * j + 2];
                best = std::min(best, std::sqrt(dx * dx + dy * dy + dz * dz) - m.sphere[4 * i + 3] - m.sphere[4 * j + 3]);
            }
    }
    for (std::size_t p = 0; p + 1 < m.thing_pairs.size(); p += 2) {
        const int a = m.thing_pairs[p], t = m.thing_pairs[p + 1];
        for (int i = m.first[a]; i < m.first[a + 1]; ++i)
            best = std::min(best, to_thing(m.kind[t], &m.pose[12 * t], &m.size[3 * t], &W[3 * i]) - m.sphere[4 * i + 3]);
    }
    *out = best;
    return true;
}

}  // namespace kc
