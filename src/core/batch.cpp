// Batched forward kinematics and Jacobians (batch.hpp).
//
// A block gathers LANES states' angles lane-wise (a short last block repeats its last state),
// takes their sines and cosines together, runs the lane equations and scatters each lane's
// result to its state. Each function is also built for AVX2 where the loader can choose
// (KC_CLONES, pack.hpp): the same bits either way.
#include "batch.hpp"

#include "lanes.hpp"
#include "pack.hpp"
#include "trig.hpp"

#include <algorithm>
#include <vector>

namespace kc {
namespace {

constexpr int W = LANES;

// Lane l of the block at k0 (m real states) takes state k0 + min(l, m − 1): θ (n × W), s, c.
// False if a real state's angle is NaN or infinite.
inline bool gather(const Chain& ch, const double* Q, std::size_t k0, std::size_t m, double* theta, double* s,
                   double* c) {
    const int n = ch.n;
    for (int l = 0; l < W; ++l) {
        const double* q = Q + (k0 + std::min<std::size_t>(l, m - 1)) * n;
        for (int i = 0; i < n; ++i) theta[i * W + l] = q[i] + ch.offset[i];
    }
    unsigned bad = 0;  // θ − θ is NaN for θ NaN or infinite (a padded lane is a real state)
    for (int e = 0; e < n * W; ++e) bad |= !(theta[e] - theta[e] == 0.0);
    sincos_many(theta, static_cast<std::size_t>(n) * W, s, c);
    return !bad;
}

// Lane l's top rows (12 × W) to the 4 × 4 at out.
inline void scatter_pose(const double* T, int l, double* out) {
    for (int e = 0; e < 12; ++e) out[e] = T[e * W + l];
    out[12] = out[13] = out[14] = 0.0;
    out[15] = 1.0;
}

}  // namespace

KC_CLONES bool fk_many(const Chain& ch, const double* Q, std::size_t count, double* T) {
    const std::size_t n = ch.n;
    std::vector<double> buf(3 * n * W + 12 * W);
    double *theta = buf.data(), *s = theta + n * W, *c = s + n * W, *P = c + n * W;
    bool ok = true;
    for (std::size_t k0 = 0; k0 < count; k0 += W) {
        const std::size_t m = std::min<std::size_t>(W, count - k0);
        ok &= gather(ch, Q, k0, m, theta, s, c);
        pose_lanes<W>(ch, theta, s, c, P);
        for (std::size_t l = 0; l < m; ++l) scatter_pose(P, static_cast<int>(l), T + 16 * (k0 + l));
    }
    return ok;
}

KC_CLONES bool jacobian_many(const Chain& ch, const double* Q, std::size_t count, int frame, double* T,
                             double* J) {
    const std::size_t n = ch.n, size = 6 * n;
    std::vector<double> buf(3 * n * W + 12 * W + 2 * size * W);
    double *theta = buf.data(), *s = theta + n * W, *c = s + n * W, *P = c + n * W;
    double *Jl = P + 12 * W, *scratch = Jl + size * W;
    bool ok = true;
    for (std::size_t k0 = 0; k0 < count; k0 += W) {
        const std::size_t m = std::min<std::size_t>(W, count - k0);
        ok &= gather(ch, Q, k0, m, theta, s, c);
        pose_jacobian_lanes<W>(ch, theta, s, c, P, Jl);
        reframe_lanes<W>(ch.n, P, Jl, frame, scratch);
        for (std::size_t l = 0; l < m; ++l) {
            double* out = J + size * (k0 + l);
            for (std::size_t e = 0; e < size; ++e) out[e] = Jl[e * W + l];
            if (T) scatter_pose(P, static_cast<int>(l), T + 16 * (k0 + l));
        }
    }
    return ok;
}

}  // namespace kc
