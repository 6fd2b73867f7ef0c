// The chain's equations (chain.hpp) written once, over W configurations side by side ("lanes").
//
// A quantity x of lane l sits at x[e * W + l] (element e): transforms 12 × W (top rows),
// angles and their sines and cosines n × W, Jacobians (6 · n) × W. The single-state functions
// of chain.cpp are these at W = 1, where that layout is the plain one; a batch runs them at
// W = LANES, where each line's loop over the lanes compiles to vector instructions. Every lane
// sees the same operations in the same order (no fused multiply-adds: CMakeLists.txt), so a
// state's result is the same bits at any W.
#pragma once

#include "chain.hpp"

namespace kc {

constexpr int LANES = 8;  // lanes of a batch block: two AVX2 vectors, four SSE2 ones

// T · Ji(θ) on T (12 × W), in place. Rz(θ) mixes columns 0 and 1; Tz(d) adds d·z to column 3.
// Rz and Tz about one axis commute: a helical slide reads z either side of the turn.
template <int W>
inline void joint_lanes(double* __restrict T, int kind, double pitch, const double* __restrict theta,
                        const double* __restrict s, const double* __restrict c) {
    if (kind == PRISMATIC) {
        for (int r = 0; r < 3; ++r)
            for (int l = 0; l < W; ++l) T[(4 * r + 3) * W + l] += theta[l] * T[(4 * r + 2) * W + l];
        return;
    }
    for (int r = 0; r < 3; ++r)
        for (int l = 0; l < W; ++l) {
            const double x = T[4 * r * W + l], y = T[(4 * r + 1) * W + l];
            T[4 * r * W + l] = c[l] * x + s[l] * y;
            T[(4 * r + 1) * W + l] = c[l] * y - s[l] * x;
        }
    if (kind == HELICAL)
        for (int r = 0; r < 3; ++r)
            for (int l = 0; l < W; ++l) T[(4 * r + 3) * W + l] += (pitch * theta[l]) * T[(4 * r + 2) * W + l];
}

// T ← T · A on T (12 × W), A one rigid top-rows transform (12) for every lane.
template <int W>
inline void times_rigid_lanes(double* __restrict T, const double* __restrict A_in) {
    double A[12];  // local: no store to T can change it, so the lane loop vectorises
    for (int e = 0; e < 12; ++e) A[e] = A_in[e];
    for (int r = 0; r < 3; ++r) {
        double *__restrict r0 = T + 4 * r * W, *__restrict r1 = r0 + W, *__restrict r2 = r1 + W,
                           *__restrict r3 = r2 + W;
        for (int l = 0; l < W; ++l) {
            const double t0 = r0[l], t1 = r1[l], t2 = r2[l], t3 = r3[l];
            r0[l] = t0 * A[0] + t1 * A[4] + t2 * A[8];
            r1[l] = t0 * A[1] + t1 * A[5] + t2 * A[9];
            r2[l] = t0 * A[2] + t1 * A[6] + t2 * A[10];
            r3[l] = t0 * A[3] + t1 * A[7] + t2 * A[11] + t3;
        }
    }
}

// The end pose's top rows into T (12 × W) from the angles θ and their sines and cosines (n × W).
template <int W>
inline void pose_lanes(const Chain& ch, const double* __restrict theta, const double* __restrict s,
                       const double* __restrict c, double* __restrict T) {
    for (int e = 0; e < 12; ++e)
        for (int l = 0; l < W; ++l) T[e * W + l] = ch.C[e];
    for (int i = 0; i < ch.n; ++i) {
        joint_lanes<W>(T, ch.kind[i], ch.pitch[i], theta + i * W, s + i * W, c + i * W);
        times_rigid_lanes<W>(T, &ch.C[12 * (i + 1)]);
    }
}

// The end pose (12 × W) and the base-frame geometric Jacobian (rows v; ω) into J ((6 · n) × W):
// column i from the axis z_i and point p_i of the frame just before Ji and the tool point p_e,
// [z_i × (p_e − p_i); z_i] (revolute), [z_i; 0] (prismatic), [z_i × (p_e − p_i) + h_i z_i; z_i]
// (helical of pitch h_i).
template <int W>
inline void pose_jacobian_lanes(const Chain& ch, const double* __restrict theta, const double* __restrict s,
                                const double* __restrict c, double* __restrict T, double* __restrict J) {
    const int n = ch.n;
    for (int e = 0; e < 12; ++e)
        for (int l = 0; l < W; ++l) T[e * W + l] = ch.C[e];
    for (int i = 0; i < n; ++i) {
        for (int r = 0; r < 3; ++r)  // z_i, and p_i parked in the linear rows until p_e is known
            for (int l = 0; l < W; ++l) {
                J[((3 + r) * n + i) * W + l] = T[(4 * r + 2) * W + l];
                J[(r * n + i) * W + l] = T[(4 * r + 3) * W + l];
            }
        joint_lanes<W>(T, ch.kind[i], ch.pitch[i], theta + i * W, s + i * W, c + i * W);
        times_rigid_lanes<W>(T, &ch.C[12 * (i + 1)]);
    }
    for (int i = 0; i < n; ++i) {
        double *vx = J + i * W, *vy = J + (n + i) * W, *vz = J + (2 * n + i) * W;
        double *zx = J + (3 * n + i) * W, *zy = J + (4 * n + i) * W, *zz = J + (5 * n + i) * W;
        if (ch.kind[i] == PRISMATIC) {
            for (int l = 0; l < W; ++l) {
                vx[l] = zx[l], vy[l] = zy[l], vz[l] = zz[l];
                zx[l] = zy[l] = zz[l] = 0.0;
            }
            continue;
        }
        for (int l = 0; l < W; ++l) {
            const double dx = T[3 * W + l] - vx[l], dy = T[7 * W + l] - vy[l], dz = T[11 * W + l] - vz[l];
            vx[l] = zy[l] * dz - zz[l] * dy;
            vy[l] = zz[l] * dx - zx[l] * dz;
            vz[l] = zx[l] * dy - zy[l] * dx;
        }
        if (ch.kind[i] == HELICAL) {
            const double h = ch.pitch[i];
            for (int l = 0; l < W; ++l) vx[l] += h * zx[l], vy[l] += h * zy[l], vz[l] += h * zz[l];
        }
    }
}

// J ((6 · n) × W) re-expressed in `frame` (TOOL, SPACE, BODY) from the base-frame J and the pose
// T (12 × W); scratch holds (6 · n) × W doubles.
template <int W>
inline void reframe_lanes(int n, const double* __restrict T, double* __restrict J, int frame,
                          double* __restrict scratch) {
    if (frame == BASE) return;
    for (int e = 0; e < 6 * n * W; ++e) scratch[e] = J[e];
    // tool and body: blockdiag(Rᵀ, Rᵀ) J; body then lists ω before v
    const int first = frame == BODY ? 3 : 0, second = frame == BODY ? 0 : 3;
    for (int i = 0; i < n; ++i) {
        const double *vx = scratch + i * W, *vy = scratch + (n + i) * W, *vz = scratch + (2 * n + i) * W;
        const double *wx = scratch + (3 * n + i) * W, *wy = scratch + (4 * n + i) * W,
                     *wz = scratch + (5 * n + i) * W;
        if (frame == SPACE) {  // (ω; v + p × ω): the body point passing the base origin
            const double *px = T + 3 * W, *py = T + 7 * W, *pz = T + 11 * W;
            for (int l = 0; l < W; ++l) {
                J[i * W + l] = wx[l], J[(n + i) * W + l] = wy[l], J[(2 * n + i) * W + l] = wz[l];
                J[(3 * n + i) * W + l] = vx[l] + (py[l] * wz[l] - pz[l] * wy[l]);
                J[(4 * n + i) * W + l] = vy[l] + (pz[l] * wx[l] - px[l] * wz[l]);
                J[(5 * n + i) * W + l] = vz[l] + (px[l] * wy[l] - py[l] * wx[l]);
            }
            continue;
        }
        for (int r = 0; r < 3; ++r)  // row r of Rᵀ is column r of R
            for (int l = 0; l < W; ++l) {
                const double a = T[r * W + l], b = T[(4 + r) * W + l], c = T[(8 + r) * W + l];
                J[((first + r) * n + i) * W + l] = a * vx[l] + b * vy[l] + c * vz[l];
                J[((second + r) * n + i) * W + l] = a * wx[l] + b * wy[l] + c * wz[l];
            }
    }
}

}  // namespace kc
