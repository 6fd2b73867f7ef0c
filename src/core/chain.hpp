// The canonical chain T(q) = C0 · J1(θ1) · C1 · … · Jn(θn) · Cn, θi = qi + offset_i, packed once
// per robot (the robot handle's kinematic tables), and its forward kinematics and Jacobians.
//
// Ji = Rz(θ) (revolute), Tz(θ) (prismatic), Rz(θ)·Tz(h θ) (helical of pitch h). Transforms are
// row-major; only their top three rows are carried (the bottom one is 0 0 0 1).
#pragma once

#include <cstddef>
#include <vector>

namespace kc {

enum Kind : int { REVOLUTE = 0, PRISMATIC = 1, HELICAL = 2 };

// The Jacobian's frames, as km.jacobian names them.
enum Frame : int { BASE = 0, TOOL = 1, SPACE = 2, BODY = 3 };

struct Chain {
    int n = 0;
    std::vector<double> C;       // (n + 1) × 12: top rows of C0 … Cn
    std::vector<int> kind;       // per joint: REVOLUTE, PRISMATIC or HELICAL
    std::vector<double> offset;  // per joint, rad or length unit
    std::vector<double> pitch;   // per joint, length unit per rad (0 but for helical joints)
    std::vector<double> before;  // n × 12: B_i, link frame i − 1 to joint i (for every frame)
    std::vector<double> after;   // n × 12: A_i, joint i to link frame i
    double base[12] = {};
    double tool[12] = {};
};

// θ_i = q_i + offset_i of `count` configurations Q (count × n) into theta, and their sines
// and cosines into s and c (trig.hpp's, vectorised over the block): what the functions below take.
void angles(const Chain& ch, const double* Q, std::size_t count, double* theta, double* s, double* c);

// The end pose into T (16) of the angles θ (n) and their sines s and cosines c (angles());
// false if θ holds NaN or infinity.
bool pose(const Chain& ch, const double* theta, const double* s, const double* c, double* T);

// The end pose into T (16) and the base-frame geometric Jacobian (rows v; ω) into J (6 × n,
// row-major) of the angles θ (n), s, c; false if θ holds NaN or infinity.
bool pose_jacobian(const Chain& ch, const double* theta, const double* s, const double* c, double* T, double* J);

// J (6 × n) re-expressed in `frame` (TOOL, SPACE, BODY) from the base-frame J and the pose T;
// scratch holds 6 × n doubles.
void reframe(int n, const double* T, double* J, int frame, double* scratch);

// Every frame (n + 2) × 16: base, link frames 1 … n, tool; false if q holds NaN or infinity.
bool frames(const Chain& ch, const double* q, const double* s, const double* c, double* F);

}  // namespace kc
