// Recursive Newton–Euler for one state (dynamics/newton_euler.py states the formulas).
//
// Forward: ω, α and the acceleration a of each joint frame (a_0 = −g), each link's net force F
// and moment N about its joint origin, the tool wrench turned into each frame on the way.
// Backward: the force f and moment n across each joint and τ_i = n_z (revolute), f_z
// (prismatic), n_z + k f_z (helical of pitch k, whose origin slides d = k θ along z).
#include <cmath>
#include <vector>

#include "chain.hpp"
#include "dynamics.hpp"
#include "trig.hpp"

namespace kc {
namespace {

struct V3 {
    double x, y, z;
};
inline V3 operator+(V3 a, V3 b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
inline V3 cross(V3 a, V3 b) { return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x}; }
inline V3 mat(const double* M, V3 v) {  // M v, M row-major 3 × 3
    return {M[0] * v.x + M[1] * v.y + M[2] * v.z, M[3] * v.x + M[4] * v.y + M[5] * v.z,
            M[6] * v.x + M[7] * v.y + M[8] * v.z};
}
inline V3 mat_t(const double* M, V3 v) {  // Mᵀ v
    return {M[0] * v.x + M[3] * v.y + M[6] * v.z, M[1] * v.x + M[4] * v.y + M[7] * v.z,
            M[2] * v.x + M[5] * v.y + M[8] * v.z};
}
inline V3 rz_t(double c, double s, V3 v) { return {c * v.x + s * v.y, c * v.y - s * v.x, v.z}; }
inline V3 rz(double c, double s, V3 v) { return {c * v.x - s * v.y, s * v.x + c * v.y, v.z}; }

// Acceleration of a point d along z, moving along z at v, acc, in a frame turning at ω, α.
inline V3 slide(V3 w, V3 al, double d, double v, double acc) {
    return {d * al.y + d * w.x * w.z + 2.0 * v * w.y, d * w.y * w.z - d * al.x - 2.0 * v * w.x,
            acc - d * (w.x * w.x + w.y * w.y)};
}

struct Joint {  // one joint's geometry at q: c, s of its turn, d its slide
    double c = 1.0, s = 0.0, d = 0.0;
};

struct Link {  // the forward pass's result for one link
    V3 F, N;
    Joint j;
};

}  // namespace

bool rne(const Dynamics& dy, const double* q, const double* qd, const double* qdd, const double* g,
         const double* wrench, bool friction, double* tau) {
    using namespace col;
    const int n = dy.n;
    Link stack[16];
    std::vector<Link> heap(n > 16 ? n : 0);
    Link* links = n > 16 ? heap.data() : stack;
    V3 w{0, 0, 0}, al{0, 0, 0}, a{-g[0], -g[1], -g[2]};
    V3 f{0, 0, 0}, m{0, 0, 0};
    bool ok = true;
    if (wrench) {
        f = {wrench[0], wrench[1], wrench[2]};
        m = {wrench[3], wrench[4], wrench[5]};
        for (int k = 0; k < 6; ++k) ok &= std::isfinite(wrench[k]);
    }
    for (int i = 0; i < n; ++i) {
        const double* D = dy.row(i);
        ok &= std::isfinite(q[i]) && std::isfinite(qd[i]) && std::isfinite(qdd[i]);
        const double v = qd[i] * D[SCALE], acc = qdd[i] * D[SCALE];
        const V3 p{D[P], D[P + 1], D[P + 2]};
        a = mat_t(D + R, a + cross(al, p) + cross(w, cross(w, p)));
        w = mat_t(D + R, w), al = mat_t(D + R, al);
        f = mat_t(D + R, f), m = mat_t(D + R, m);
        Joint& j = links[i].j;
        if (static_cast<int>(D[KIND]) != PRISMATIC) {
            const double th = q[i] + D[OFFSET];
            sincos(th, j.s, j.c);
            w = rz_t(j.c, j.s, w), al = rz_t(j.c, j.s, al), a = rz_t(j.c, j.s, a);
            f = rz_t(j.c, j.s, f), m = rz_t(j.c, j.s, m);
            const double k = D[PITCH];
            if (k != 0.0) {  // the origin's slide d = k θ, seen from the turned frame
                j.d = k * th;
                a = a + slide(w, al, j.d, k * v, k * acc);
            }
            al = {al.x + v * w.y, al.y - v * w.x, al.z + acc};
            w.z += v;
        } else {
            j.d = q[i] * D[SCALE] + D[OFFSET];
            a = a + slide(w, al, j.d, v, acc);
        }
        const V3 h{D[H], D[H + 1], D[H + 2]};
        links[i].F = V3{D[MASS] * a.x, D[MASS] * a.y, D[MASS] * a.z} + cross(al, h) + cross(w, cross(w, h));
        links[i].N = mat(D + I, al) + cross(w, mat(D + I, w)) + cross(h, a);
    }
    // the environment's wrench on the tool, as a force and moment about joint n's origin
    const double* tool = dy.row(n);
    const V3 t = cross(V3{tool[0], tool[1], tool[2]}, f);
    f = {-f.x, -f.y, -f.z};
    m = {-(m.x + t.x), -(m.y + t.y), -(m.z + t.z)};
    for (int i = n - 1; i >= 0; --i) {
        const double* D = dy.row(i);
        const int kind = static_cast<int>(D[KIND]);
        f = f + links[i].F, m = m + links[i].N;
        tau[i] = (kind == PRISMATIC ? f.z : m.z + D[PITCH] * f.z) + 0.0;  // + 0.0: no −0.0
        if (i == 0) break;
        const Joint& j = links[i].j;
        if (kind != REVOLUTE) m = {m.x - j.d * f.y, m.y + j.d * f.x, m.z};  // o_i sits d along z
        if (kind != PRISMATIC) f = rz(j.c, j.s, f), m = rz(j.c, j.s, m);
        f = mat(D + R, f);
        m = mat(D + R, m) + cross(V3{D[P], D[P + 1], D[P + 2]}, f);
    }
    if (friction) {
        for (int i = 0; i < n; ++i) {
            const double* D = dy.row(i);
            const double v = qd[i], sign = v > 0.0 ? 1.0 : (v < 0.0 ? -1.0 : 0.0);
            tau[i] += D[VISCOUS] * v * D[SCALE] + D[COULOMB] * sign + D[ARMATURE] * qdd[i] * D[SCALE];
        }
    }
    return ok;
}

}  // namespace kc
