// The mass matrix by the composite-rigid-body algorithm (dynamics/crba.py states the formulas).
//
// Composite body i (links i … n, rigid at the current q) in joint frame i: mass m, first moment
// h, inertia I about the joint origin. Column i of M is the force that accelerating joint i
// alone takes with composite body i as the only load, carried to each joint j ≤ i; the body then
// moves into frame i − 1 (turn, then the parallel-axis theorem) and joins body i − 1's.
#include <cmath>
#include <vector>

#include "chain.hpp"
#include "dynamics.hpp"
#include "trig.hpp"

namespace kc {
namespace {

struct Body {
    double m, h[3], I[9];
};

struct Geometry {  // one joint at q: c, s of its turn, d its slide
    double c = 1.0, s = 0.0, d = 0.0;
};

// (h, I) of a body about a point at −p (p: the old origin there):
// h' = h + m p, I' = I + (m |p|² + 2 p·h) 1 − m p pᵀ − h pᵀ − p hᵀ.
void shift(Body& b, const double* p) {
    const double pp = p[0] * p[0] + p[1] * p[1] + p[2] * p[2];
    const double ph = p[0] * b.h[0] + p[1] * b.h[1] + p[2] * b.h[2];
    const double diag = b.m * pp + 2.0 * ph;
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c)
            b.I[3 * r + c] += (r == c ? diag : 0.0) - b.m * p[r] * p[c] - b.h[r] * p[c] - p[r] * b.h[c];
    for (int r = 0; r < 3; ++r) b.h[r] += b.m * p[r];
}

// h ← A h, I ← A I Aᵀ for a row-major rotation A.
void turn(Body& b, const double* A) {
    double h[3], AI[9];
    for (int r = 0; r < 3; ++r) h[r] = A[3 * r] * b.h[0] + A[3 * r + 1] * b.h[1] + A[3 * r + 2] * b.h[2];
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c)
            AI[3 * r + c] = A[3 * r] * b.I[c] + A[3 * r + 1] * b.I[3 + c] + A[3 * r + 2] * b.I[6 + c];
    for (int r = 0; r < 3; ++r) {
        b.h[r] = h[r];
        for (int c = r; c < 3; ++c)  // symmetric: upper triangle, mirrored
            b.I[3 * r + c] = b.I[3 * c + r] =
                AI[3 * r] * A[3 * c] + AI[3 * r + 1] * A[3 * c + 1] + AI[3 * r + 2] * A[3 * c + 2];
    }
}

// Composite body of frame i expressed in frame i − 1: across K_i = (R, p) and the joint.
void into_parent(const double* D, const Geometry& j, Body& b) {
    using namespace col;
    const int kind = static_cast<int>(D[KIND]);
    if (kind != REVOLUTE) {  // the slide first (frame i = K · Rz(θ) · Tz(d))
        const double along[3] = {0.0, 0.0, j.d};
        shift(b, along);
    }
    if (kind != PRISMATIC) {
        const double Rz[9] = {j.c, -j.s, 0.0, j.s, j.c, 0.0, 0.0, 0.0, 1.0};
        turn(b, Rz);
    }
    turn(b, D + R);
    shift(b, D + P);
}

// A force f and moment t about o_i, frame i → frame i − 1, moment about o_(i−1).
void to_parent(const double* D, const Geometry& j, double* f, double* t) {
    using namespace col;
    const int kind = static_cast<int>(D[KIND]);
    if (kind != REVOLUTE) t[0] -= j.d * f[1], t[1] += j.d * f[0];
    if (kind != PRISMATIC) {
        const double f0 = f[0], t0 = t[0];
        f[0] = j.c * f0 - j.s * f[1], f[1] = j.s * f0 + j.c * f[1];
        t[0] = j.c * t0 - j.s * t[1], t[1] = j.s * t0 + j.c * t[1];
    }
    const double* A = D + R;
    const double* p = D + P;
    double F[3], T[3];
    for (int r = 0; r < 3; ++r) {
        F[r] = A[3 * r] * f[0] + A[3 * r + 1] * f[1] + A[3 * r + 2] * f[2];
        T[r] = A[3 * r] * t[0] + A[3 * r + 1] * t[1] + A[3 * r + 2] * t[2];
    }
    f[0] = F[0], f[1] = F[1], f[2] = F[2];
    t[0] = T[0] + (p[1] * F[2] - p[2] * F[1]);
    t[1] = T[1] + (p[2] * F[0] - p[0] * F[2]);
    t[2] = T[2] + (p[0] * F[1] - p[1] * F[0]);
}

// The generalised force on a joint of f and t across it: t_z, f_z or t_z + k f_z.
inline double joint_force(const double* D, const double* f, const double* t) {
    using namespace col;
    if (static_cast<int>(D[KIND]) == PRISMATIC) return f[2];
    return D[PITCH] != 0.0 ? t[2] + D[PITCH] * f[2] : t[2];
}

// The load of accelerating joint i alone with body b: f = e_z × h, t = I e_z (revolute);
// f = m e_z, t = h × e_z (prismatic); helical: the first plus pitch times the second.
void unit_load(const double* D, const Body& b, double* f, double* t) {
    using namespace col;
    if (static_cast<int>(D[KIND]) == PRISMATIC) {
        f[0] = 0.0, f[1] = 0.0, f[2] = b.m;
        t[0] = b.h[1], t[1] = -b.h[0], t[2] = 0.0;
        return;
    }
    f[0] = -b.h[1], f[1] = b.h[0], f[2] = 0.0;
    t[0] = b.I[2], t[1] = b.I[5], t[2] = b.I[8];
    const double k = D[PITCH];
    if (k != 0.0) f[2] = k * b.m, t[0] += k * b.h[1], t[1] -= k * b.h[0];
}

}  // namespace

bool mass_matrix(const Dynamics& dy, const double* q, double* M) {
    using namespace col;
    const int n = dy.n;
    Body body_stack[16];
    Geometry joint_stack[16];
    std::vector<Body> body_heap(n > 16 ? n : 0);
    std::vector<Geometry> joint_heap(n > 16 ? n : 0);
    Body* bodies = n > 16 ? body_heap.data() : body_stack;
    Geometry* joints = n > 16 ? joint_heap.data() : joint_stack;
    bool ok = true;
    for (int i = 0; i < n; ++i) {
        const double* D = dy.row(i);
        ok &= std::isfinite(q[i]);
        Geometry& j = joints[i];
        if (static_cast<int>(D[KIND]) == PRISMATIC) {
            j = Geometry{1.0, 0.0, q[i] * D[SCALE] + D[OFFSET]};
        } else {
            const double th = q[i] + D[OFFSET];
            j = Geometry{1.0, 0.0, D[PITCH] * th};
            sincos(th, j.s, j.c);
        }
        Body& b = bodies[i];
        b.m = D[MASS];
        for (int k = 0; k < 3; ++k) b.h[k] = D[H + k];
        for (int k = 0; k < 9; ++k) b.I[k] = D[I + k];
    }
    for (int i = n - 1; i >= 0; --i) {
        double f[3], t[3];
        unit_load(dy.row(i), bodies[i], f, t);
        M[i * n + i] = joint_force(dy.row(i), f, t) + dy.row(i)[ARMATURE] + 0.0;
        for (int j = i - 1; j >= 0; --j) {
            to_parent(dy.row(j + 1), joints[j + 1], f, t);
            M[i * n + j] = M[j * n + i] = joint_force(dy.row(j), f, t) + 0.0;
        }
        if (i == 0) break;
        Body up = bodies[i];
        into_parent(dy.row(i), joints[i], up);
        Body& parent = bodies[i - 1];
        parent.m += up.m;
        for (int k = 0; k < 3; ++k) parent.h[k] += up.h[k];
        for (int k = 0; k < 9; ++k) parent.I[k] += up.I[k];
    }
    return ok;
}

}  // namespace kc
