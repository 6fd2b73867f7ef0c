// The IK residual e(q) and its Jacobian for every kind of target (ik/residual.py's equations):
//
//   pose       e = [p_d − p; log(R_d Rᵀ)]                          J_e = J              (6 rows)
//   position   e = p_d − p                                           J_e = J_v            (3 rows)
//   approach   e = [p_d − p; ∠(a, a_d) · (a × a_d)/‖a × a_d‖]       J_e = [J_v; (I − a aᵀ) J_ω]
//   planar     e = [x_d − x, y_d − y (, wrap(φ_d − φ))]             J_e = rows v_x, v_y (, ω_z)
//
// rows scaled by √w for per-axis weights w, so ‖e‖² = eᵀWe; and the errors a solve is judged by:
// position in length units and orientation in rad, an axis of weight 0 counting in neither.
// A goal is 16 doubles laid out as a 4 × 4 pose, row-major: R_d and p_d where a pose has them,
// a_d in 12–14 and φ_d in 15 (a pose T is its own goal).
#pragma once

#include <cmath>

#include "chain.hpp"

namespace kc {

enum TargetKind : int { POSE = 0, POSITION = 1, APPROACH = 2, PLANAR = 3 };

struct Task {
    int kind = POSE;
    bool phi = false;       // planar: the heading is constrained
    bool weighted = false;  // rows scaled by √w
    bool masked = false;    // some axis has weight 0 (pose, position): it counts in no error
    double w[6] = {1, 1, 1, 1, 1, 1};
    int rows[6] = {0, 1, 2, 3, 4, 5};
    int m = 6;  // residual rows
};

// The task of a target kind; weights (6) or null.
Task task_of(int kind, bool phi, const double* weights);

// e (m) and J_e (m × n) of q towards goal G; the pose into T (16) and the base-frame Jacobian into
// J (6 × n, may be Je itself for an unweighted pose); the errors into pos and ori. Returns
// E = ½‖e‖².
double residual(const Chain& ch, const Task& task, const double* G, const double* q, double* e, double* Je,
                double* T, double* J, double& pos, double& ori);

// The reach test's distance: ‖p_d − p1‖ of goal G's point from p1 (3), on x and y alone for a
// planar target; exact for any finite input (hypot: no overflow), inf beyond the largest float.
// A target is within reach when it is at most the arm's bound (ik/reach.py) away.
inline double reach_distance(const double* G, const double* p1, bool planar) {
    const double dx = G[3] - p1[0], dy = G[7] - p1[1];
    return planar ? std::hypot(dx, dy) : std::hypot(dx, dy, G[11] - p1[2]);
}

// log(M) of a rotation M (row-major) into w (3); returns θ = ‖w‖ (near π from the symmetric part).
double rotation_log(const double* M, double* w);

}  // namespace kc
