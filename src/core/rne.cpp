// Recursive Newton–Euler for one state (dynamics/newton_euler.py states the formulas).
//
// Forward: ω, α and the acceleration a of each joint frame (a_0 = −g), each link's net force F
// and moment N about its joint origin, the tool wrench turned into each frame on the way.
// Backward: the force f and moment n across each joint and τ_i = n_z (revolute), f_z
// (prismatic), n_z + k f_z (helical of pitch k, whose origin slides d = k θ along z).
#include <algorithm>
#include <cmath>
#include <vector>

#include "chain.hpp"
#include "dynamics.hpp"
#include "pack.hpp"

namespace kc {
namespace {

template <class S>
struct V3 {
    S x, y, z;
};
template <class S>
inline V3<S> operator+(const V3<S>& a, const V3<S>& b) {
    return {a.x + b.x, a.y + b.y, a.z + b.z};
}
template <class A, class B>
inline auto cross(const V3<A>& a, const V3<B>& b) -> V3<decltype(a.x * b.x)> {
    return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
template <class S>
inline V3<S> mat(const double* M, const V3<S>& v) {  // M v, M row-major 3 × 3
    return {M[0] * v.x + M[1] * v.y + M[2] * v.z, M[3] * v.x + M[4] * v.y + M[5] * v.z,
            M[6] * v.x + M[7] * v.y + M[8] * v.z};
}
template <class S>
inline V3<S> mat_t(const double* M, const V3<S>& v) {  // Mᵀ v
    return {M[0] * v.x + M[3] * v.y + M[6] * v.z, M[1] * v.x + M[4] * v.y + M[7] * v.z,
            M[2] * v.x + M[5] * v.y + M[8] * v.z};
}
template <class S>
inline V3<S> rz_t(const S& c, const S& s, const V3<S>& v) {
    return {c * v.x + s * v.y, c * v.y - s * v.x, v.z};
}
template <class S>
inline V3<S> rz(const S& c, const S& s, const V3<S>& v) {
    return {c * v.x - s * v.y, s * v.x + c * v.y, v.z};
}

// Acceleration of a point d along z, moving along z at v, acc, in a frame turning at ω, α.
template <class S>
inline V3<S> slide(const V3<S>& w, const V3<S>& al, const S& d, const S& v, const S& acc) {
    return {d * al.y + d * w.x * w.z + 2.0 * v * w.y, d * w.y * w.z - d * al.x - 2.0 * v * w.x,
            acc - d * (w.x * w.x + w.y * w.y)};
}

template <class S>
struct Link {  // the forward pass's result for one link, and its joint at q: c, s of its turn, d its slide
    V3<S> F, N;
    S c = 1.0, s = 0.0, d = 0.0;
};

// The equations over S = double (one state) or Pack<W> (W states): q, qd, qdd (n of S), the
// wrench (6 of S) or null, τ (n of S) out. False if an input holds NaN or infinity.
template <class S>
KC_INLINE bool rne_of(const Dynamics& dy, const S* q, const S* qd, const S* qdd, const double* g, const S* wrench,
            bool friction, S* tau) {
    using namespace col;
    const int n = dy.n;
    Link<S> stack[16];
    std::vector<Link<S>> heap(n > 16 ? n : 0);
    Link<S>* links = n > 16 ? heap.data() : stack;
    V3<S> w{0.0, 0.0, 0.0}, al{0.0, 0.0, 0.0}, a{-g[0], -g[1], -g[2]};
    V3<S> f{0.0, 0.0, 0.0}, m{0.0, 0.0, 0.0};
    bool ok = true;
    if (wrench) {
        f = {wrench[0], wrench[1], wrench[2]};
        m = {wrench[3], wrench[4], wrench[5]};
        for (int k = 0; k < 6; ++k) ok &= finite(wrench[k]);
    }
    for (int i = 0; i < n; ++i) {
        const double* D = dy.row(i);
        ok &= finite(q[i]) && finite(qd[i]) && finite(qdd[i]);
        const S v = qd[i] * D[SCALE], acc = qdd[i] * D[SCALE];
        const V3<double> p{D[P], D[P + 1], D[P + 2]};
        a = mat_t(D + R, a + cross(al, p) + cross(w, cross(w, p)));
        w = mat_t(D + R, w), al = mat_t(D + R, al);
        if (wrench) f = mat_t(D + R, f), m = mat_t(D + R, m);  // else zero: nothing to turn
        Link<S>& j = links[i];
        if (static_cast<int>(D[KIND]) != PRISMATIC) {
            const S th = q[i] + D[OFFSET];
            sincos_of(th, j.s, j.c);
            w = rz_t(j.c, j.s, w), al = rz_t(j.c, j.s, al), a = rz_t(j.c, j.s, a);
            if (wrench) f = rz_t(j.c, j.s, f), m = rz_t(j.c, j.s, m);
            const double k = D[PITCH];
            if (k != 0.0) {  // the origin's slide d = k θ, seen from the turned frame
                j.d = k * th;
                a = a + slide(w, al, j.d, S(k * v), S(k * acc));
            }
            al = {al.x + v * w.y, al.y - v * w.x, al.z + acc};
            w.z = w.z + v;
        } else {
            j.d = q[i] * D[SCALE] + D[OFFSET];
            a = a + slide(w, al, j.d, v, acc);
        }
        const V3<double> h{D[H], D[H + 1], D[H + 2]};
        j.F = V3<S>{D[MASS] * a.x, D[MASS] * a.y, D[MASS] * a.z} + cross(al, h) + cross(w, cross(w, h));
        j.N = mat(D + I, al) + cross(w, mat(D + I, w)) + cross(h, a);
    }
    // the environment's wrench on the tool, as a force and moment about joint n's origin
    const double* tool = dy.row(n);
    const V3<S> t = cross(V3<double>{tool[0], tool[1], tool[2]}, f);
    f = {-f.x, -f.y, -f.z};
    m = {-(m.x + t.x), -(m.y + t.y), -(m.z + t.z)};
    for (int i = n - 1; i >= 0; --i) {
        const double* D = dy.row(i);
        const int kind = static_cast<int>(D[KIND]);
        f = f + links[i].F, m = m + links[i].N;
        tau[i] = (kind == PRISMATIC ? f.z : m.z + D[PITCH] * f.z) + 0.0;  // + 0.0: no −0.0
        if (i == 0) break;
        const Link<S>& j = links[i];
        if (kind != REVOLUTE) m = {m.x - j.d * f.y, m.y + j.d * f.x, m.z};  // o_i sits d along z
        if (kind != PRISMATIC) f = rz(j.c, j.s, f), m = rz(j.c, j.s, m);
        f = mat(D + R, f);
        m = mat(D + R, m) + cross(V3<double>{D[P], D[P + 1], D[P + 2]}, f);
    }
    if (friction) {
        for (int i = 0; i < n; ++i) {
            const double* D = dy.row(i);
            tau[i] = tau[i] + (D[VISCOUS] * qd[i] * D[SCALE] + D[COULOMB] * sign_of(qd[i]) +
                               D[ARMATURE] * qdd[i] * D[SCALE]);
        }
    }
    return ok;
}

}  // namespace

bool rne(const Dynamics& dy, const double* q, const double* qd, const double* qdd, const double* g,
         const double* wrench, bool friction, double* tau) {
    return rne_of<double>(dy, q, qd, qdd, g, wrench, friction, tau);
}

KC_CLONES bool rne_many(const Dynamics& dy, const double* Q, const double* QD, const double* QDD,
                        std::size_t count, const double* g, const double* wrench, std::size_t wrench_step,
                        bool friction, double* tau) {
    constexpr int W = 4;  // not LANES: RNE's state fills the registers at 8 (measured 0.53 × scalar, 4: 0.37 ×)
    using S = Pack<W>;
    const std::size_t n = dy.n;
    std::vector<S> buf(4 * n + 6);
    S *q = buf.data(), *qd = q + n, *qdd = qd + n, *t = qdd + n, *wr = t + n;
    bool ok = true;
    for (std::size_t k0 = 0; k0 < count; k0 += W) {
        const std::size_t m = std::min<std::size_t>(W, count - k0);
        for (int l = 0; l < W; ++l) {  // a short last block repeats its last state
            const std::size_t k = k0 + std::min<std::size_t>(l, m - 1);
            for (std::size_t i = 0; i < n; ++i)
                q[i].data()[l] = Q[k * n + i], qd[i].data()[l] = QD[k * n + i], qdd[i].data()[l] = QDD[k * n + i];
            if (wrench)
                for (int e = 0; e < 6; ++e) wr[e].data()[l] = wrench[wrench_step * k + e];
        }
        ok &= rne_of<S>(dy, q, qd, qdd, g, wrench ? wr : nullptr, friction, t);
        for (std::size_t l = 0; l < m; ++l)
            for (std::size_t i = 0; i < n; ++i) tau[(k0 + l) * n + i] = t[i].data()[l];
    }
    return ok;
}

}  // namespace kc
