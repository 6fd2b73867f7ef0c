// The robot handle's dynamic tables and the recursions over them: recursive Newton–Euler (RNE)
// and the composite-rigid-body mass matrix (CRBA), in the joints' own frames, all in SI.
//
// The table is dynamics/packing.py's layout: one row of WIDTH columns per joint (the constant
// K_i = (R, p) into joint frame i, the link's mass, first moment h and inertia about the joint,
// the joint's kind, offset, SI scale, armature, friction and pitch) and a last row holding the
// tool point (m).
#pragma once

#include <cstddef>
#include <vector>

namespace kc {

namespace col {
constexpr int R = 0, P = 9, MASS = 12, H = 13, I = 16, KIND = 25, OFFSET = 26, SCALE = 27,
              ARMATURE = 28, VISCOUS = 29, COULOMB = 30, PITCH = 31, WIDTH = 32;
}

struct Dynamics {
    int n = 0;
    std::vector<double> D;  // (n + 1) × WIDTH
    double gravity[3] = {0.0, 0.0, 0.0};  // the default gravity, m/s²
    bool rough = false;  // whether any joint has friction or armature
    const double* row(int i) const { return &D[static_cast<size_t>(i) * col::WIDTH]; }
};

// τ (n) into tau for one state (robot units; gravity g (3) in m/s², the tool wrench (6: force N,
// moment N·m, world axes) or null); friction and armature added when asked. False if q, q̇, q̈ or
// the wrench hold NaN or infinity.
bool rne(const Dynamics& dy, const double* q, const double* qd, const double* qdd, const double* g,
         const double* wrench, bool friction, double* tau);

// τ (count × n) of the states Q, QD, QDD (count × n) by 4-state lane blocks (pack.hpp), each
// the same bits as its single call; the wrench null, one (6, wrench_step 0) or one a state (6).
bool rne_many(const Dynamics& dy, const double* Q, const double* QD, const double* QDD, std::size_t count,
              const double* g, const double* wrench, std::size_t wrench_step, bool friction, double* tau);

// M(q) (n × n, row-major, SI, armature on the diagonal) into M; false if q holds NaN or infinity.
bool mass_matrix(const Dynamics& dy, const double* q, double* M);

}  // namespace kc
