// Closed forms for one target, the equations of ik/analytic/*.py with the constants those solvers
// read from the robot packed once (ik/closed_pack.py):
//   spherical wrist  6R, axes 4–6 meeting (Puma 560, KUKA KR6): 8 branches of a pose
//   UR               6R, axes 2–4 parallel, 5 ∩ 6 (UR3/5/10): 8 branches of a pose
//   geometric 5-DOF  yaw, three parallel pitches, roll (papers 002/003): 4 branches of a pose or
//                    of a position with its approach axis
//   planar           2R (x, y) or 3R (x, y, φ): 2 elbows
//
//   wrist point   x = p + R w, then in the joint-1 frame v = R0ᵀ (x − p0); the tool's x and z
//                 axes likewise
//   yaw           θ1 = atan2(v_y, v_x) − ∠h − atan2(±√(v_x² + v_y² − d²), d)   (shoulder ±)
//   two links     r² = g_x² + g_y², S = ±√(((L1 + L2)² − r²)(r² − (L1 − L2)²)) = 2 L1 L2 sin θ,
//                 θ = atan2(S, r² − L1² − L2²), φ = atan2(g_y, g_x) − atan2(S, r² + L1² − L2²)
//   wrist         θb = ψ + atan2(±|m_xy|, m_z), θa = ∠m − ∠(v0 m_z + v1 s_b),
//                 θc = ∠(v0' m_z + v1' s_b) − ∠r   (no flip / flip)
//   5-DOF pitch   A = ∠(roll axis in the arm plane) − s ∠z5; the wrist point W = g − L3 u(A + s β3)
//                 by the two links; roll θ5 from the remaining rotation (a pose) or the seed's
//
// Each branch is wrapped to (−π, π] and then by 2π into the joint limits where possible, and
// marked reachable by the solver's own geometry.
#pragma once

namespace kc {

// Indices into S (ClosedForm::S), F (rotations, 3 × 3 each) and P (points), as closed_pack.py
// packs them.
namespace cf {
enum : int { SPHERICAL = 1, UR = 2, GEOMETRIC5 = 3, PLANAR = 4 };
enum : int { KIND, H_ANGLE, D, SCALE, L0, L1, L2, BETA0, BETA1, BETA2, KAPPA0, KAPPA1, SENSE1, SENSE2, PSI,
             V0 = 15, V1 = 17, VR0 = 19, VR1 = 21,
             Z5_ANGLE = 23, COL_A = 24, SIGN_A = 25, APPROACH_OK = 26, YAW0 = 27, N_JOINTS = 28, S_LEN = 29 };
enum : int { R0, R1, W, PRE, B, C };
enum : int { P0, P1 };
enum : int { OFFSET, WRAP, MID, LO, HI, JOINT_LEN };
}  // namespace cf

struct ClosedForm {
    double S[cf::S_LEN] = {};
    int n() const { return static_cast<int>(S[cf::N_JOINTS]); }
    int count() const {  // branches
        const int kind = static_cast<int>(S[cf::KIND]);
        return kind == cf::PLANAR ? 2 : kind == cf::GEOMETRIC5 ? 4 : 8;
    }
    double F[6][9] = {};
    double P[2][3] = {};
    double joints[6][cf::JOINT_LEN] = {};
    double limit_tol = 1e-9, length_tol = 1e-9, rounding = 1e-13;
};

constexpr int MAX_BRANCHES = 8, MAX_JOINTS = 6;

// Whether the closed form answers targets of this kind (residual.hpp's TargetKind; phi: a planar
// target's heading is given).
bool fits(const ClosedForm& cf, int target_kind, bool phi);

// The branches (count() of them) of the goal G (16: residual.hpp's layout, a pose T its own) of
// a kind the form fits, wrapped, into Q (count × n) and the solver's reachability into reach
// (count); whether the wrist point lies outside the cylinder of radius |d| about axis 1. ref (n):
// the seed, giving θ1 on axis 1, the wrist's θa at its singularity and an approach target's roll.
bool candidates(const ClosedForm& cf, const double* G, int target_kind, const double* ref, double* Q, bool* reach);

// The reachable branch inside the limits (when enforce) nearest the seed (n), each gap taken
// modulo 2π, into q; false (q = the seed) when there is none.
bool nearest(const ClosedForm& cf, const double* G, int target_kind, const double* seed, bool enforce, double* q);

}  // namespace kc
