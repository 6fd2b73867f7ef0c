// Closed forms of 6R arms for one pose target: the spherical wrist (axes 4–6 meeting: Puma 560,
// KUKA KR6) and the UR type (axes 2–4 parallel, 5 ∩ 6), their 8 branches and the one nearest a
// seed. The equations of ik/analytic/spherical_wrist.py and ur.py, one target at a time, with
// the constants those solvers read from the robot packed once (ik/closed_pack.py):
//
//   wrist point   x = p + R w, then in the joint-1 frame v = R0ᵀ (x − p0); the tool's x and z
//                 axes likewise
//   yaw           θ1 = atan2(v_y, v_x) − ∠h − atan2(±√(v_x² + v_y² − d²), d)   (shoulder ±)
//   two links     r² = g_x² + g_y², S = ±√(((L1 + L2)² − r²)(r² − (L1 − L2)²)) = 2 L1 L2 sin θ,
//                 θ = atan2(S, r² − L1² − L2²), φ = atan2(g_y, g_x) − atan2(S, r² + L1² − L2²)
//   wrist         θb = ψ + atan2(±|m_xy|, m_z), θa = ∠m − ∠(v0 m_z + v1 s_b),
//                 θc = ∠(v0' m_z + v1' s_b) − ∠r   (no flip / flip)
//
// 2 shoulders × 2 elbows × 2 wrists = 8 candidates, each wrapped to (−π, π] and then by 2π into
// the joint limits where possible, marked reachable by the solver's own geometry.
#pragma once

namespace kc {

// Indices into S (ClosedForm::S), F (rotations, 3 × 3 each) and P (points), as closed_pack.py
// packs them.
namespace cf {
enum : int { SPHERICAL = 1, UR = 2 };
enum : int { KIND, H_ANGLE, D, SCALE, L0, L1, L2, BETA0, BETA1, BETA2, KAPPA0, KAPPA1, SENSE1, SENSE2, PSI,
             V0 = 15, V1 = 17, VR0 = 19, VR1 = 21, S_LEN = 23 };
enum : int { R0, R1, W, PRE, B, C };
enum : int { P0, P1 };
enum : int { OFFSET, WRAP, MID, LO, HI, JOINT_LEN };
}  // namespace cf

struct ClosedForm {
    double S[cf::S_LEN] = {};
    double F[6][9] = {};
    double P[2][3] = {};
    double joints[6][cf::JOINT_LEN] = {};
    double limit_tol = 1e-9, length_tol = 1e-9, rounding = 1e-13;
};

// The 8 branches of the pose T (16, row-major 4 × 4; a goal of residual.hpp's layout), wrapped,
// into Q (8 × 6) and the solver's reachability into reach (8); whether the wrist point lies
// outside the cylinder of radius |d| about axis 1. ref (6): the seed, giving θ1 on axis 1 and the
// wrist's θa at its singularity.
bool candidates(const ClosedForm& cf, const double* T, const double* ref, double* Q, bool* reach);

// The reachable branch inside the limits (when enforce) nearest the seed (6), each gap taken
// modulo 2π, into q; false (q = the seed) when there is none.
bool nearest(const ClosedForm& cf, const double* T, const double* seed, bool enforce, double* q);

}  // namespace kc
