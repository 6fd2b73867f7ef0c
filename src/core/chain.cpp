// Forward kinematics and geometric Jacobians along the canonical chain (chain.hpp).
//
// Jacobian column i, from the axis z_i and point p_i of the frame just before Ji (its own motion
// leaves both alone) and the tool point p_e: [z_i × (p_e − p_i); z_i] (revolute), [z_i; 0]
// (prismatic), [z_i × (p_e − p_i) + h_i z_i; z_i] (helical of pitch h_i).
#include "chain.hpp"

#include "trig.hpp"

#include <cmath>
#include <cstring>

namespace kc {
namespace {

// T · Ji(θ) on the top rows of T (3 × 4), in place. Rz(θ) mixes columns 0 and 1; Tz(d) adds d·z
// to column 3. Rz and Tz about one axis commute: a helical slide reads z either side of the turn.
inline void joint(double* T, int kind, double pitch, double theta, double s, double c) {
    if (kind == PRISMATIC) {
        for (int r = 0; r < 3; ++r) T[4 * r + 3] += theta * T[4 * r + 2];
        return;
    }
    for (int r = 0; r < 3; ++r) {
        const double x = T[4 * r], y = T[4 * r + 1];
        T[4 * r] = c * x + s * y;
        T[4 * r + 1] = c * y - s * x;
    }
    if (kind == HELICAL) {
        const double slide = pitch * theta;
        for (int r = 0; r < 3; ++r) T[4 * r + 3] += slide * T[4 * r + 2];
    }
}

// out = T · A on top rows (A rigid: its bottom row is 0 0 0 1); out may be T.
inline void times_rigid(const double* T, const double* A, double* out) {
    for (int r = 0; r < 3; ++r) {
        const double t0 = T[4 * r], t1 = T[4 * r + 1], t2 = T[4 * r + 2], t3 = T[4 * r + 3];
        out[4 * r] = t0 * A[0] + t1 * A[4] + t2 * A[8];
        out[4 * r + 1] = t0 * A[1] + t1 * A[5] + t2 * A[9];
        out[4 * r + 2] = t0 * A[2] + t1 * A[6] + t2 * A[10];
        out[4 * r + 3] = t0 * A[3] + t1 * A[7] + t2 * A[11] + t3;
    }
}

inline void bottom_row(double* T) {
    T[12] = T[13] = T[14] = 0.0;
    T[15] = 1.0;
}

}  // namespace

void angles(const Chain& ch, const double* Q, std::size_t count, double* theta, double* s, double* c) {
    const std::size_t n = ch.n;
    for (std::size_t k = 0; k < count; ++k)
        for (std::size_t i = 0; i < n; ++i) theta[k * n + i] = Q[k * n + i] + ch.offset[i];
    sincos_many(theta, count * n, s, c);
}

bool pose(const Chain& ch, const double* q, const double* s, const double* c, double* T) {
    std::memcpy(T, ch.C.data(), 12 * sizeof(double));
    bool ok = true;
    for (int i = 0; i < ch.n; ++i) {
        ok &= std::isfinite(q[i]);
        joint(T, ch.kind[i], ch.pitch[i], q[i] + ch.offset[i], s[i], c[i]);
        times_rigid(T, &ch.C[12 * (i + 1)], T);
    }
    bottom_row(T);
    return ok;
}

bool pose_jacobian(const Chain& ch, const double* q, const double* s, const double* c, double* T, double* J) {
    const int n = ch.n;
    std::memcpy(T, ch.C.data(), 12 * sizeof(double));
    bool ok = true;
    for (int i = 0; i < n; ++i) {
        ok &= std::isfinite(q[i]);
        for (int r = 0; r < 3; ++r) {  // z_i, and p_i parked in the linear rows until p_e is known
            J[(3 + r) * n + i] = T[4 * r + 2];
            J[r * n + i] = T[4 * r + 3];
        }
        joint(T, ch.kind[i], ch.pitch[i], q[i] + ch.offset[i], s[i], c[i]);
        times_rigid(T, &ch.C[12 * (i + 1)], T);
    }
    bottom_row(T);
    for (int i = 0; i < n; ++i) {
        const double zx = J[3 * n + i], zy = J[4 * n + i], zz = J[5 * n + i];
        if (ch.kind[i] == PRISMATIC) {
            J[i] = zx, J[n + i] = zy, J[2 * n + i] = zz;
            J[3 * n + i] = J[4 * n + i] = J[5 * n + i] = 0.0;
            continue;
        }
        const double dx = T[3] - J[i], dy = T[7] - J[n + i], dz = T[11] - J[2 * n + i];
        J[i] = zy * dz - zz * dy;
        J[n + i] = zz * dx - zx * dz;
        J[2 * n + i] = zx * dy - zy * dx;
        if (ch.kind[i] == HELICAL) {
            const double h = ch.pitch[i];
            J[i] += h * zx, J[n + i] += h * zy, J[2 * n + i] += h * zz;
        }
    }
    return ok;
}

void reframe(int n, const double* T, double* J, int frame, double* scratch) {
    if (frame == BASE) return;
    std::memcpy(scratch, J, 6 * n * sizeof(double));
    const double* v = scratch;        // rows v (0..2)
    const double* w = scratch + 3 * n;  // rows ω (3..5)
    // tool and body: blockdiag(Rᵀ, Rᵀ) J; body then lists ω before v
    const int first = frame == BODY ? 3 : 0, second = frame == BODY ? 0 : 3;
    for (int i = 0; i < n; ++i) {
        const double vx = v[i], vy = v[n + i], vz = v[2 * n + i];
        const double wx = w[i], wy = w[n + i], wz = w[2 * n + i];
        if (frame == SPACE) {  // (ω; v + p × ω): the body point passing the base origin
            const double px = T[3], py = T[7], pz = T[11];
            J[i] = wx, J[n + i] = wy, J[2 * n + i] = wz;
            J[3 * n + i] = vx + (py * wz - pz * wy);
            J[4 * n + i] = vy + (pz * wx - px * wz);
            J[5 * n + i] = vz + (px * wy - py * wx);
            continue;
        }
        for (int r = 0; r < 3; ++r) {  // row r of Rᵀ is column r of R
            const double a = T[r], b = T[4 + r], c = T[8 + r];
            J[(first + r) * n + i] = a * vx + b * vy + c * vz;
            J[(second + r) * n + i] = a * wx + b * wy + c * wz;
        }
    }
}

bool frames(const Chain& ch, const double* q, const double* s, const double* c, double* F) {
    std::memcpy(F, ch.base, 12 * sizeof(double));
    bottom_row(F);
    bool ok = true;
    double S[12];
    for (int i = 0; i < ch.n; ++i) {
        ok &= std::isfinite(q[i]);
        times_rigid(F + 16 * i, &ch.before[12 * i], S);  // the state before joint i + 1
        joint(S, ch.kind[i], ch.pitch[i], q[i] + ch.offset[i], s[i], c[i]);
        times_rigid(S, &ch.after[12 * i], F + 16 * (i + 1));
        bottom_row(F + 16 * (i + 1));
    }
    times_rigid(F + 16 * ch.n, ch.tool, F + 16 * (ch.n + 1));
    bottom_row(F + 16 * (ch.n + 1));
    return ok;
}

}  // namespace kc
