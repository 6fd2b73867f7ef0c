// Forward kinematics and geometric Jacobians of one state along the canonical chain (chain.hpp):
// the lane equations (lanes.hpp) at W = 1.
#include "chain.hpp"

#include "lanes.hpp"
#include "trig.hpp"

#include <cmath>
#include <cstring>

namespace kc {
namespace {

inline void bottom_row(double* T) {
    T[12] = T[13] = T[14] = 0.0;
    T[15] = 1.0;
}

inline bool finite(const double* x, int n) {
    bool ok = true;
    for (int i = 0; i < n; ++i) ok &= std::isfinite(x[i]);
    return ok;
}

}  // namespace

void angles(const Chain& ch, const double* Q, std::size_t count, double* theta, double* s, double* c) {
    const std::size_t n = ch.n;
    for (std::size_t k = 0; k < count; ++k)
        for (std::size_t i = 0; i < n; ++i) theta[k * n + i] = Q[k * n + i] + ch.offset[i];
    sincos_many(theta, count * n, s, c);
}

bool pose(const Chain& ch, const double* theta, const double* s, const double* c, double* T) {
    pose_lanes<1>(ch, theta, s, c, T);
    bottom_row(T);
    return finite(theta, ch.n);
}

bool pose_jacobian(const Chain& ch, const double* theta, const double* s, const double* c, double* T, double* J) {
    pose_jacobian_lanes<1>(ch, theta, s, c, T, J);
    bottom_row(T);
    return finite(theta, ch.n);
}

void reframe(int n, const double* T, double* J, int frame, double* scratch) {
    reframe_lanes<1>(n, T, J, frame, scratch);
}

bool frames(const Chain& ch, const double* q, const double* s, const double* c, double* F) {
    std::memcpy(F, ch.base, 12 * sizeof(double));
    bottom_row(F);
    bool ok = true;
    for (int i = 0; i < ch.n; ++i) {
        const double theta = q[i] + ch.offset[i];
        ok &= std::isfinite(theta);
        double* S = F + 16 * (i + 1);  // the state before joint i + 1, then link frame i + 1
        std::memcpy(S, F + 16 * i, 12 * sizeof(double));
        times_rigid_lanes<1>(S, &ch.before[12 * i]);
        joint_lanes<1>(S, ch.kind[i], ch.pitch[i], &theta, s + i, c + i);
        times_rigid_lanes<1>(S, &ch.after[12 * i]);
        bottom_row(S);
    }
    double* tool = F + 16 * (ch.n + 1);
    std::memcpy(tool, F + 16 * ch.n, 12 * sizeof(double));
    times_rigid_lanes<1>(tool, ch.tool);
    bottom_row(tool);
    return ok;
}

}  // namespace kc
