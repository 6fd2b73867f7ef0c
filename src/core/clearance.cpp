// The clearance lower bound (clearance.hpp).
#include "clearance.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "convex.hpp"
#include "trig.hpp"

namespace kc {
namespace {

// p − thing's origin, in the thing's frame (its pose's top rows P).
inline void local(const double* P, const double* p, double* out) {
    const double d[3] = {p[0] - P[3], p[1] - P[7], p[2] - P[11]};
    for (int j = 0; j < 3; ++j) out[j] = P[j] * d[0] + P[4 + j] * d[1] + P[8 + j] * d[2];
}

// The distance from the point p (world) to a thing (≤ 0 inside: minus the depth).
double to_thing(int kind, const double* P, const double* s, const double* p) {
    if (kind == SPHERE) return std::sqrt((p[0] - P[3]) * (p[0] - P[3]) + (p[1] - P[7]) * (p[1] - P[7]) +
                                         (p[2] - P[11]) * (p[2] - P[11])) - s[0];
    double x[3];
    local(P, p, x);
    if (kind == BOX) {
        double out = 0.0, in = -INFINITY;
        for (int j = 0; j < 3; ++j) {
            const double e = std::fabs(x[j]) - s[j];
            out += e > 0 ? e * e : 0.0;
            in = std::max(in, e);
        }
        return std::sqrt(out) + std::min(in, 0.0);
    }
    if (kind == CAPSULE) {
        const double z = x[2] - std::min(std::max(x[2], -s[1]), s[1]);
        return std::sqrt(x[0] * x[0] + x[1] * x[1] + z * z) - s[0];
    }
    const double dr = std::sqrt(x[0] * x[0] + x[1] * x[1]) - s[0], dz = std::fabs(x[2]) - s[1];  // CYLINDER
    const double a = std::max(dr, 0.0), b = std::max(dz, 0.0);
    return std::sqrt(a * a + b * b) + std::min(std::max(dr, dz), 0.0);
}

}  // namespace

void enclose(Clearance& m) {
    m.hull.assign(4 * m.bodies, 0.0);
    for (int b = 0; b < m.bodies; ++b) {
        if (m.first[b] == m.first[b + 1]) continue;
        double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
        for (int k = m.first[b]; k < m.first[b + 1]; ++k)
            for (int r = 0; r < 3; ++r) {
                lo[r] = std::min(lo[r], m.sphere[4 * k + r] - m.sphere[4 * k + 3]);
                hi[r] = std::max(hi[r], m.sphere[4 * k + r] + m.sphere[4 * k + 3]);
            }
        double* h = &m.hull[4 * b];
        for (int r = 0; r < 3; ++r) h[r] = 0.5 * (lo[r] + hi[r]);
        for (int k = m.first[b]; k < m.first[b + 1]; ++k) {
            const double* x = &m.sphere[4 * k];
            const double d = std::sqrt((x[0] - h[0]) * (x[0] - h[0]) + (x[1] - h[1]) * (x[1] - h[1]) +
                                       (x[2] - h[2]) * (x[2] - h[2]));
            h[3] = std::max(h[3], d + x[3]);
        }
    }
}

std::size_t clearance_scratch(const Clearance& m) {
    std::size_t most = 0;
    for (const Mover& r : m.movers) most = std::max<std::size_t>(most, r.chain.n + 2);
    return 16 * most + 3 * (m.sphere.size() / 4) + 15 * m.bodies + 9 * m.n;
}

namespace {

// A point x (3, in its body's scaled frame) of robot m's body frame T (top rows) into the world, y (3).
inline void to_world(const Mover& m, const double* T, const double* x, double* y) {
    double z[3];
    for (int r = 0; r < 3; ++r) z[r] = T[4 * r] * x[0] + T[4 * r + 1] * x[1] + T[4 * r + 2] * x[2] + m.scale * T[4 * r + 3];
    for (int r = 0; r < 3; ++r)
        y[r] = m.base[4 * r] * z[0] + m.base[4 * r + 1] * z[1] + m.base[4 * r + 2] * z[2] + m.base[4 * r + 3];
}

inline double gap(const double* a, const double* b) {
    return std::sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) + (a[2] - b[2]) * (a[2] - b[2]));
}

}  // namespace

namespace {

// Body frame T (top rows) of robot r into the world: Y = base · [R, s·t] (top rows).
inline void body_pose(const Mover& r, const double* T, double* Y) {
    for (int i = 0; i < 3; ++i) {
        const double* B = r.base + 4 * i;
        for (int j = 0; j < 3; ++j) Y[4 * i + j] = B[0] * T[j] + B[1] * T[4 + j] + B[2] * T[8 + j];
        Y[4 * i + 3] = r.scale * (B[0] * T[3] + B[1] * T[7] + B[2] * T[11]) + B[3];
    }
}

// Where the state q puts things: world centres of every sphere (W, 3 each), of every body's
// enclosing sphere (H, 3 each), when there are convex pieces every body's world pose (P, 12 each),
// and with `axes` every joint's axis in the world (A, 6 each: a point on it, its unit direction);
// false if q holds NaN or infinity. The scratch layout is clearance_scratch's.
struct Placed {
    double *W, *H, *P, *A;
};

bool place(const Clearance& m, const double* q, double* scratch, Placed& at, bool axes = false) {
    std::size_t most = 0;  // frames of the longest chain
    for (const Mover& r : m.movers) most = std::max<std::size_t>(most, r.chain.n + 2);
    double* F = scratch;
    double *W = F + 16 * most, *H = W + 3 * (m.sphere.size() / 4), *P = H + 3 * m.bodies;
    double *theta = P + 12 * m.bodies, *s = theta + m.n, *c = s + m.n, *A = c + m.n;
    at = {W, H, P, A};
    bool ok = true;
    for (int i = 0; i < m.n; ++i) ok &= std::isfinite(q[i]);
    if (!ok) return false;
    for (const Mover& r : m.movers) {  // its frames, then its spheres' and bodies' enclosing spheres' centres
        const int n = r.chain.n;
        for (int i = 0; i < n; ++i) theta[i] = q[r.q0 + i] + r.chain.offset[i];
        sincos_many(theta, n, s, c);
        frames(r.chain, q + r.q0, s, c, F);
        for (int k = 0; k <= n; ++k) {
            const int b = r.body0 + k;
            to_world(r, F + 16 * k, &m.hull[4 * b], H + 3 * b);
            for (int i = m.first[b]; i < m.first[b + 1]; ++i) to_world(r, F + 16 * k, &m.sphere[4 * i], W + 3 * i);
            if (!m.piece_first.empty()) body_pose(r, F + 16 * k, P + 12 * b);
        }
        for (int i = 0; axes && i < n; ++i) {  // joint i turns about the z axis of F_i · B_i (chain.hpp)
            const double *B = &r.chain.before[12 * i], *Fi = F + 16 * i;
            const double o[3] = {r.scale * B[3], r.scale * B[7], r.scale * B[11]};
            double* a = A + 6 * (r.q0 + i);
            to_world(r, Fi, o, a);
            double z[3];
            for (int row = 0; row < 3; ++row)
                z[row] = Fi[4 * row] * B[2] + Fi[4 * row + 1] * B[6] + Fi[4 * row + 2] * B[10];
            for (int row = 0; row < 3; ++row)
                a[3 + row] = r.base[4 * row] * z[0] + r.base[4 * row + 1] * z[1] + r.base[4 * row + 2] * z[2];
        }
    }
    return true;
}

// A table's lower bound at the state q (PairTable).
inline double table_bound(const PairTable& t, const double* q) {
    int at[2] = {0, 0};
    double slack = 0.0;
    for (int k = 0; k < t.joints; ++k) {
        const double x = (q[t.q[k]] - t.lo[k]) / t.step[k];
        at[k] = static_cast<int>(std::min(std::max(std::nearbyint(x), 0.0), static_cast<double>(t.m[k] - 1)));
        slack += t.c[k] * std::fabs(q[t.q[k]] - (t.lo[k] + at[k] * t.step[k]));
    }
    return t.d[static_cast<std::size_t>(at[0]) * t.m[1] + at[1]] - slack;
}

inline Convex piece(const Clearance& m, int p) {
    const std::size_t v0 = static_cast<std::size_t>(m.vfirst[p]);
    const bool edges = !m.edge_first.empty() && m.edge_first[v0 + 1] > m.edge_first[v0];  // (none listed: no climb)
    return {&m.verts[3 * v0], m.vfirst[p + 1] - m.vfirst[p], m.piece_radius[p], edges ? &m.edge_first[v0] : nullptr,
            edges ? m.edge_next.data() : nullptr};
}

// The point x (3) of a piece placed by T (top rows; nullptr: the world) in the world, y (3).
inline void placed_point(const double* T, const double* x, double* y) {
    if (!T) {
        y[0] = x[0], y[1] = x[1], y[2] = x[2];
        return;
    }
    for (int r = 0; r < 3; ++r) y[r] = T[4 * r] * x[0] + T[4 * r + 1] * x[1] + T[4 * r + 2] * x[2] + T[4 * r + 3];
}

// How a pair is measured on its convex pieces: when its spheres come within `within` of each other
// (−inf: never, inf: always), GJK stopping within `tol` (or 1e-3 of the smaller piece's size) of
// the distance, started from `warm` (the state's start directions, Clearance::warm_at; or nullptr).
struct Refine {
    double within;
    double tol = 0.0;
    double* warm = nullptr;
};

// GJK between piece i placed by Ti and piece j by Tj (centres ci, cj in the world), started along
// warm (WARM: the direction it ended on last time for this piece pair, from i to j, zero: none —
// else the line between the centres; then the vertices its support climbs ended on) and warm set
// to where it ends.
inline double measured(const Clearance& m, int i, const double* Ti, const double* ci, int j, const double* Tj,
                       const double* cj, double enough, double tol_floor, double* warm) {
    const double tol = std::max(1e-3 * std::min(m.piece_ball[4 * i + 3], m.piece_ball[4 * j + 3]), tol_floor);
    const double line[3] = {cj[0] - ci[0], cj[1] - ci[1], cj[2] - ci[2]};
    if (!warm) return convex_distance(piece(m, i), Ti, piece(m, j), Tj, enough, tol, line);
    const bool known = warm[0] != 0.0 || warm[1] != 0.0 || warm[2] != 0.0;
    int climb[2] = {static_cast<int>(warm[3]), static_cast<int>(warm[4])};
    const double d = convex_distance(piece(m, i), Ti, piece(m, j), Tj, enough, tol, known ? warm : line, warm, climb);
    warm[3] = climb[0], warm[4] = climb[1];
    return d;
}

// Piece pairs measured nearest first — by their enclosing spheres' gap, a lower bound on their
// distance — so that the first GJK runs find a small distance and the enclosing spheres of the
// rest show most of them no nearer (a gripper of 34 pieces near a bar needs a few runs, not 34).
// Up to CANDIDATES at once; more are taken in their order.
constexpr int CANDIDATES = 256;
struct Candidate {
    double gap;
    int i, j;
    bool operator<(const Candidate& o) const { return gap < o.gap; }
};

// The smallest of GJK's lower bounds between the pieces [a0, a1) placed by Ta and [b0, b1) by Tb,
// or `skip` when it is at least `skip`; a piece pair whose enclosing spheres are already that far
// apart is not measured. warm: the pair's start directions (a1 − a0) × (b1 − b0) × WARM, or nullptr.
double pieces_gap(const Clearance& m, int a0, int a1, const double* Ta, int b0, int b1, const double* Tb,
                  double skip, double tol, double* warm) {
    Candidate near[CANDIDATES];
    double best = skip, ca[3], cb[3];
    int count = 0;
    const bool sorted = (a1 - a0) * (b1 - b0) <= CANDIDATES;
    for (int j = b0; j < b1; ++j) {
        placed_point(Tb, &m.piece_ball[4 * j], cb);
        for (int i = a0; i < a1; ++i) {
            placed_point(Ta, &m.piece_ball[4 * i], ca);
            const double g = gap(ca, cb) - m.piece_ball[4 * i + 3] - m.piece_ball[4 * j + 3];
            if (g >= best) continue;
            if (sorted) {
                near[count++] = {g, i, j};
                continue;
            }
            double* w = warm ? warm + WARM * ((j - b0) * (a1 - a0) + (i - a0)) : nullptr;
            best = std::min(best, measured(m, i, Ta, ca, j, Tb, cb, best, tol, w));
        }
    }
    std::sort(near, near + count);
    for (int k = 0; k < count && near[k].gap < best; ++k) {
        const int i = near[k].i, j = near[k].j;
        placed_point(Ta, &m.piece_ball[4 * i], ca);
        placed_point(Tb, &m.piece_ball[4 * j], cb);
        double* w = warm ? warm + WARM * ((j - b0) * (a1 - a0) + (i - a0)) : nullptr;
        best = std::min(best, measured(m, i, Ta, ca, j, Tb, cb, best, tol, w));
    }
    return best;
}

// The lower bound for self pair p (bodies a, b) — the larger of its spheres' distance, its table's
// and (spheres within `r.within`) its pieces' — or `skip` when it is at least `skip` (the enclosing
// spheres or the table show it).
inline double self_gap(const Clearance& m, const double* q, const Placed& at, std::size_t p, double skip,
                       const Refine& r) {
    const double *W = at.W, *H = at.H;
    const int a = m.self_pairs[p], b = m.self_pairs[p + 1], t = m.table_of.empty() ? -1 : m.table_of[p / 2];
    const double tabled = t < 0 ? -INFINITY : table_bound(m.tables[t], q);
    if (tabled >= skip) return skip;
    if (gap(H + 3 * a, H + 3 * b) - m.hull[4 * a + 3] - m.hull[4 * b + 3] >= skip) return skip;
    double best = skip;
    for (int i = m.first[a]; i < m.first[a + 1]; ++i) {
        // (a sphere of a already as far from b's enclosing sphere as the nearest found: none of b's nearer)
        if (gap(W + 3 * i, H + 3 * b) - m.sphere[4 * i + 3] - m.hull[4 * b + 3] >= best) continue;
        for (int j = m.first[b]; j < m.first[b + 1]; ++j)
            best = std::min(best, gap(W + 3 * i, W + 3 * j) - m.sphere[4 * i + 3] - m.sphere[4 * j + 3]);
    }
    if (best < skip && best <= r.within && !m.piece_first.empty() && m.piece_first[a] < m.piece_first[a + 1] &&
        m.piece_first[b] < m.piece_first[b + 1])
        best = std::max(best, pieces_gap(m, m.piece_first[a], m.piece_first[a + 1], at.P + 12 * a, m.piece_first[b],
                                         m.piece_first[b + 1], at.P + 12 * b, skip, r.tol,
                                         r.warm ? r.warm + m.warm_at[p / 2] : nullptr));
    return std::max(best, tabled);
}

// The same for thing pair p (body a, thing t).
inline double thing_gap(const Clearance& m, const Placed& at, std::size_t p, double skip, const Refine& r) {
    const double *W = at.W, *H = at.H;
    const int a = m.thing_pairs[p], t = m.thing_pairs[p + 1];
    const double *P = &m.pose[12 * t], *Z = &m.size[3 * t];
    if (to_thing(m.kind[t], P, Z, H + 3 * a) - m.hull[4 * a + 3] >= skip) return skip;
    double best = skip;
    for (int i = m.first[a]; i < m.first[a + 1]; ++i)
        best = std::min(best, to_thing(m.kind[t], P, Z, &W[3 * i]) - m.sphere[4 * i + 3]);
    const int tp = m.thing_piece.empty() ? -1 : m.thing_piece[t];
    if (!(best < skip && best <= r.within && tp >= 0 && m.piece_first[a] < m.piece_first[a + 1])) return best;
    // the body's pieces whose enclosing spheres come nearer the thing than that, nearest first
    const double* T = at.P + 12 * a;
    double* w = r.warm ? r.warm + m.warm_at[m.self_pairs.size() / 2 + p / 2] : nullptr;
    const int i0 = m.piece_first[a], i1 = m.piece_first[a + 1];
    Candidate order[CANDIDATES];
    int count = 0;
    double near = skip, c[3];
    for (int i = i0; i < i1; ++i) {
        placed_point(T, &m.piece_ball[4 * i], c);
        const double g = to_thing(m.kind[t], P, Z, c) - m.piece_ball[4 * i + 3];
        if (g >= near) continue;
        if (i1 - i0 <= CANDIDATES) {
            order[count++] = {g, i, 0};
            continue;
        }
        near = std::min(near, measured(m, i, T, c, tp, nullptr, &m.piece_ball[4 * tp], near, r.tol,
                                       w ? w + WARM * (i - i0) : nullptr));
    }
    std::sort(order, order + count);
    for (int k = 0; k < count && order[k].gap < near; ++k) {
        const int i = order[k].i;
        placed_point(T, &m.piece_ball[4 * i], c);
        near = std::min(near, measured(m, i, T, c, tp, nullptr, &m.piece_ball[4 * tp], near, r.tol,
                                       w ? w + WARM * (i - i0) : nullptr));
    }
    return std::max(best, near);
}

// Pair k of all of them (the self pairs, then the thing pairs): self_gap's or thing_gap's bound.
inline double pair_gap(const Clearance& m, const double* q, const Placed& at, std::size_t k, double skip,
                       const Refine& r) {
    const std::size_t S = m.self_pairs.size() / 2;
    return k < S ? self_gap(m, q, at, 2 * k, skip, r) : thing_gap(m, at, 2 * (k - S), skip, r);
}

}  // namespace

bool clearance(const Clearance& m, const double* q, double* scratch, double* out, double cap, double* warm) {
    Placed at;
    if (!place(m, q, scratch, at)) return false;
    double best = cap;
    for (std::size_t p = 0; p + 1 < m.self_pairs.size(); p += 2)
        best = std::min(best, self_gap(m, q, at, p, best, {m.refine, 0.0, warm}));
    for (std::size_t p = 0; p + 1 < m.thing_pairs.size(); p += 2)
        best = std::min(best, thing_gap(m, at, p, best, {m.refine, 0.0, warm}));
    *out = best;
    return true;
}

bool state_free(const Clearance& m, const double* q, double resolution, double* scratch) {
    Placed at;
    if (!place(m, q, scratch, at)) return false;
    // a bound just above zero is all a collision check needs: the enclosing spheres cull nearly
    // every pair, and GJK stops as soon as it shows a pair apart
    const double cap = 1e-9 * resolution;
    const Refine coarse{-INFINITY}, fine{INFINITY, GJK_TOL * resolution, nullptr};
    const std::size_t P = (m.self_pairs.size() + m.thing_pairs.size()) / 2;
    for (std::size_t k = 0; k < P; ++k)
        if (!(pair_gap(m, q, at, k, cap, coarse) > 0.0) && !(pair_gap(m, q, at, k, cap, fine) > 0.0)) return false;
    return true;
}

bool pair_bound(const Clearance& m, const double* q, std::size_t k, double* scratch, double* out) {
    Placed at;
    if (!place(m, q, scratch, at)) return false;
    *out = pair_gap(m, q, at, k, INFINITY, {INFINITY});
    return true;
}

bool pairs_near(const Clearance& m, const double* q, double margin, double* scratch, unsigned char* near,
                bool pieces) {
    Placed at;
    if (!place(m, q, scratch, at)) return false;
    const double cap = std::nextafter(margin, INFINITY);  // a pair culled at it is farther than the margin
    std::size_t k = 0;
    for (std::size_t p = 0; p + 1 < m.self_pairs.size(); p += 2)
        near[k++] = self_gap(m, q, at, p, cap, {pieces ? INFINITY : -INFINITY}) <= margin;
    for (std::size_t p = 0; p + 1 < m.thing_pairs.size(); p += 2)
        near[k++] = thing_gap(m, at, p, cap, {pieces ? INFINITY : -INFINITY}) <= margin;
    return true;
}

namespace {

// What moves a pair's two sides relative to each other (self pairs, then thing pairs): one or two
// (body, joints [j0, j1) of a state) — a self pair of one robot: its later link, by the joints
// between its two links; two robots' links: each by every joint before it; a body and a thing: the
// body by every joint before it (a thing stays put).
struct Side {
    int body = 0, j0 = 0, j1 = 0;
};
struct Sides {
    Side side[2];
    int count = 0;
};

std::vector<Sides> pair_sides(const Clearance& m) {
    std::vector<int> robot(m.bodies), link(m.bodies);  // body → (its mover, its link: 0 the base)
    for (std::size_t r = 0; r < m.movers.size(); ++r)
        for (int k = 0; k <= m.movers[r].chain.n; ++k) robot[m.movers[r].body0 + k] = static_cast<int>(r), link[m.movers[r].body0 + k] = k;
    auto before = [&](int b, int from) {  // body b moved by its robot's joints from `from` up to it
        const int q0 = m.movers[robot[b]].q0;
        return Side{b, q0 + from, q0 + link[b]};
    };
    const std::size_t S = m.self_pairs.size() / 2, T = m.thing_pairs.size() / 2;
    std::vector<Sides> out(S + T);
    for (std::size_t k = 0; k < S; ++k) {
        int a = m.self_pairs[2 * k], b = m.self_pairs[2 * k + 1];
        if (robot[a] == robot[b]) {
            if (link[a] > link[b]) std::swap(a, b);
            out[k] = {{before(b, link[a])}, 1};
        } else {
            out[k] = {{before(a, 0), before(b, 0)}, 2};
        }
    }
    for (std::size_t k = 0; k < T; ++k) out[S + k] = {{before(m.thing_pairs[2 * k], 0)}, 1};
    return out;
}

// The states of one edge qa → qb measured so far, pair by pair: first by the spheres (and tables)
// alone, then — only for a pair whose bounds fail to clear a piece — by its convex pieces too, a
// GJK run per piece pair that most states never need.
//
// How far a pair's sides move over a piece is bounded twice. L_p = Σ w_j |Δq_j| holds anywhere in
// the joint box. Tighter, from the piece's own ends: a point p of a side moves at speed at most
// Σ_j ρ_j(p) |Δq_j| (ρ_j its distance from revolute joint j's axis), and ρ_j(p) changes along the
// piece by no more than p moves relative to that axis — by the joints after j, X_j = Σ_{i>j} w_i |Δq_i|
// over the whole piece. With R_j the farthest the side's enclosing sphere is from the axis at
// either end, ρ_j ≤ min(R_j(a) + s X_j, R_j(b) + (1 − s) X_j), whose mean over the piece is at most
// min(R_j(a), R_j(b)) + X_j / 2: so the side moves at most Σ_j |Δq_j| min(w_j, min R_j + X_j / 2).
// The Panda's hand is ~0.5 m from its base axis where w_1 counts every link's length (~1.3 m).
class Measured {
public:
    Measured(const Clearance& m, const double* qa, const double* qb, const double* w, double resolution,
             double* scratch, std::vector<double> cap, const std::vector<Sides>& sides)
        : m_(m), qa_(qa), qb_(qb), w_(w), tol_(GJK_TOL * resolution), scratch_(scratch),
          q_(scratch + clearance_scratch(m)), cap_(std::move(cap)), P_(cap_.size()), sides_(sides),
          warm_(WARM * static_cast<std::size_t>(m.warm_size), 0.0), dq_(m.n), turns_(m.n, 0) {
        for (int j = 0; j < m.n; ++j) dq_[j] = std::fabs(qb[j] - qa[j]);
        for (const Mover& r : m.movers)
            for (int i = 0; i < r.chain.n; ++i) turns_[r.q0 + i] = r.chain.kind[i] == REVOLUTE;
    }

    // The state qa + s (qb − qa) measured: its number; −1 when a pair touches even on its pieces
    // (or the state is not finite).
    long add(double s) {
        const long x = static_cast<long>(s_.size());
        s_.push_back(s);
        d_.resize(d_.size() + P_);
        fine_.resize(fine_.size() + P_, 0);
        R_.resize(R_.size() + static_cast<std::size_t>(m_.n) * m_.bodies);
        if (!placed(x)) return -1;
        radii(x);
        double* d = &d_[x * P_];
        for (std::size_t k = 0; k < P_; ++k) d[k] = pair_gap(m_, q_, at_, k, cap_[k], {-INFINITY});
        for (std::size_t k = 0; k < P_; ++k)
            if (!(d[k] > 0.0) && !(refine(x, k) && d[k] > 0.0)) return -1;
        return x;
    }

    // Whether, for every pair k, the bounds at states x and y add up to more than L_k × span —
    // a failing pair's bounds refined by its pieces first.
    bool cleared(long x, long y, double span, const std::vector<double>& L) {
        for (std::size_t k = 0; k < P_; ++k) {
            if (d_[x * P_ + k] + d_[y * P_ + k] > L[k] * span) continue;
            const double moved = sweep(k, x, y, span);
            if (d_[x * P_ + k] + d_[y * P_ + k] > moved) continue;
            const bool more = refine(x, k) | refine(y, k);  // (both: not short-circuited)
            if (!(more && d_[x * P_ + k] + d_[y * P_ + k] > moved)) return false;
        }
        return true;
    }

private:
    // The most pair k's sides move relative to each other between states x and y, `span` of the
    // edge apart: the class text's bound from the radii at both ends.
    double sweep(std::size_t k, long x, long y, double span) const {
        const std::size_t stride = static_cast<std::size_t>(m_.n) * m_.bodies;
        const double *Rx = &R_[x * stride], *Ry = &R_[y * stride];
        double L = 0.0;
        for (int i = 0; i < sides_[k].count; ++i) {
            const Side& side = sides_[k].side[i];
            double after = 0.0;  // X_j: the side's motion by the joints after j, over the piece
            for (int j = side.j1 - 1; j >= side.j0; --j) {
                const std::size_t at = static_cast<std::size_t>(j) * m_.bodies + side.body;
                const double c = turns_[j] ? std::min(w_[j], std::min(Rx[at], Ry[at]) + 0.5 * after) : w_[j];
                L += c * dq_[j] * span;
                after += w_[j] * dq_[j] * span;
            }
        }
        return L;
    }

    // R at state x (placed): per revolute joint j and body b of its robot after it, the farthest
    // b's enclosing sphere is from j's axis.
    void radii(long x) {
        double* R = &R_[x * static_cast<std::size_t>(m_.n) * m_.bodies];
        for (const Mover& r : m_.movers)
            for (int k = 1; k <= r.chain.n; ++k) {
                const int b = r.body0 + k;
                const double* c = at_.H + 3 * b;
                const bool none = m_.first[b] == m_.first[b + 1];  // (no spheres, no enclosing one: w alone)
                for (int i = 0; i < k; ++i) {
                    const double* a = at_.A + 6 * (r.q0 + i);
                    const double v[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
                    const double u[3] = {v[1] * a[5] - v[2] * a[4], v[2] * a[3] - v[0] * a[5], v[0] * a[4] - v[1] * a[3]};
                    R[static_cast<std::size_t>(r.q0 + i) * m_.bodies + b] =
                        none ? INFINITY : std::sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]) + m_.hull[4 * b + 3];
                }
            }
    }

    bool placed(long x) {  // the scratch holds state x's placement
        if (placed_ == x) return true;
        const double s = s_[x];
        for (int j = 0; j < m_.n; ++j) q_[j] = qa_[j] + s * (qb_[j] - qa_[j]);
        placed_ = place(m_, q_, scratch_, at_, true) ? x : -1;
        return placed_ == x;
    }

    bool refine(long x, std::size_t k) {  // pair k at state x measured on its pieces: whether anything changed
        if (fine_[x * P_ + k] || !placed(x)) return false;
        fine_[x * P_ + k] = 1;
        const double d = pair_gap(m_, q_, at_, k, cap_[k], {INFINITY, tol_, warm_.data()});
        const bool more = d > d_[x * P_ + k];
        d_[x * P_ + k] = std::max(d_[x * P_ + k], d);
        return more;
    }

    const Clearance& m_;
    const double *qa_, *qb_, *w_;
    double tol_;  // GJK's: GJK_TOL of the resolution, far below what a piece of the edge needs
    double *scratch_, *q_;
    std::vector<double> cap_;
    std::size_t P_;
    const std::vector<Sides>& sides_;
    std::vector<double> warm_;  // GJK's start directions and vertices: the states are near one another
    std::vector<double> s_, d_;  // per state its s, and its P pairs' bounds
    std::vector<char> fine_;     // per state and pair: refined by the pieces
    std::vector<double> dq_;     // per joint |qb − qa|
    std::vector<char> turns_;    // per joint: revolute
    std::vector<double> R_;      // per state (n × bodies): radii()
    long placed_ = -1;
    Placed at_{};
};

}  // namespace

bool edge_clear(const Clearance& m, const double* qa, const double* qb, const double* w, double resolution,
                int depth, double* scratch, long& states) {
    double total = 0.0;
    for (int j = 0; j < m.n; ++j) total += w[j] * std::fabs(qb[j] - qa[j]);
    const double steps = std::ceil(total / resolution - 1e-12);
    if (!(steps < 1e6)) return false;  // (NaN, or an edge too long to sample: the exact path says why)
    const long k = std::max(1L, static_cast<long>(steps));
    const std::vector<Sides> sides = pair_sides(m);
    const std::size_t P = sides.size();
    std::vector<double> L(P, 0.0);  // per pair, how far its sides move relative to each other anywhere
    for (std::size_t p = 0; p < P; ++p)
        for (int i = 0; i < sides[p].count; ++i)
            for (int j = sides[p].side[i].j0; j < sides[p].side[i].j1; ++j) L[p] += w[j] * std::fabs(qb[j] - qa[j]);
    if (P == 0) return true;  // (nothing to touch)
    // Per pair, the most worth measuring: a pair whose two ends are both L_p / 2 clear is clear
    // over the whole edge (and one that does not move, L_p = 0, needs only a positive bound)
    std::vector<double> cap(P);
    for (std::size_t p = 0; p < P; ++p)
        cap[p] = std::min(EDGE_CAP * resolution, std::max(0.5 * L[p] * (1.0 + 1e-9), 1e-9 * resolution));
    Measured states_of(m, qa, qb, w, resolution, scratch, std::move(cap), sides);
    auto at = [&](double s) { return ++states, states_of.add(s); };
    struct Piece {
        long a, b;       // on the grid s = i / k, while b − a > 1 …
        double sa, sb;   // … then halves of a grid step
        long xa, xb;     // its ends' measured states
        int level;       // halvings below the grid
    };
    const long x0 = at(0.0), x1 = x0 < 0 ? -1 : at(1.0);
    if (x1 < 0) return false;
    // first in, first out: coarse to fine along the whole edge, so a blocked edge is found blocked
    // after a few states wherever its contact lies
    std::vector<Piece> todo{{0, k, 0.0, 1.0, x0, x1, 0}};
    for (std::size_t next = 0; next < todo.size(); ++next) {
        const Piece p = todo[next];
        if (states_of.cleared(p.xa, p.xb, p.sb - p.sa, L)) continue;
        const bool grid = p.b - p.a > 1;  // the grid state in the middle, else half a grid step
        if (!grid && p.level == depth) return false;  // too close to tell: the exact check judges the edge
        const long i = (p.a + p.b) / 2;
        const double s = grid ? static_cast<double>(i) / static_cast<double>(k) : 0.5 * (p.sa + p.sb);
        const long x = at(s);
        if (x < 0) return false;
        if (grid) {
            todo.push_back({p.a, i, p.sa, s, p.xa, x, 0});
            todo.push_back({i, p.b, s, p.sb, x, p.xb, 0});
        } else {
            todo.push_back({p.a, p.b, p.sa, s, p.xa, x, p.level + 1});
            todo.push_back({p.a, p.b, s, p.sb, x, p.xb, p.level + 1});
        }
    }
    return true;
}

bool set_pieces(Clearance& m, std::vector<int> piece_first, std::vector<int> vfirst, std::vector<double> verts,
                std::vector<double> radius, std::vector<int> thing_piece, std::vector<int> edge_first,
                std::vector<int> edge_next) {
    const std::size_t np = radius.size(), T = m.kind.size();
    if (piece_first.size() != static_cast<std::size_t>(m.bodies) + 1 || vfirst.size() != np + 1 || vfirst[0] != 0 ||
        static_cast<std::size_t>(vfirst[np]) * 3 != verts.size() || thing_piece.size() != T ||
        piece_first[0] != 0 || piece_first[m.bodies] > static_cast<int>(np))
        return false;
    for (std::size_t p = 0; p < np; ++p)
        if (vfirst[p + 1] <= vfirst[p] || !(radius[p] >= 0.0)) return false;  // (a piece has a vertex)
    for (int b = 0; b < m.bodies; ++b)
        if (piece_first[b + 1] < piece_first[b]) return false;
    for (int t : thing_piece)
        if (t < -1 || t >= static_cast<int>(np) || (t >= 0 && t < piece_first[m.bodies])) return false;
    for (double x : verts)
        if (!std::isfinite(x)) return false;
    if (!edge_first.empty()) {  // per vertex its neighbours, within its own piece
        if (edge_first.size() != static_cast<std::size_t>(vfirst[np]) + 1 || edge_first[0] != 0 ||
            static_cast<std::size_t>(edge_first.back()) != edge_next.size())
            return false;
        for (std::size_t p = 0; p < np; ++p)
            if (!edges_join(edge_first.data(), edge_next.data(), vfirst[p], vfirst[p + 1])) return false;
    } else if (!edge_next.empty()) {
        return false;
    }
    m.piece_ball.assign(4 * np, 0.0);  // centre (its vertices' box's middle) and radius, radius included
    for (std::size_t p = 0; p < np; ++p) {
        double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
        for (int i = vfirst[p]; i < vfirst[p + 1]; ++i)
            for (int r = 0; r < 3; ++r) lo[r] = std::min(lo[r], verts[3 * i + r]), hi[r] = std::max(hi[r], verts[3 * i + r]);
        double* c = &m.piece_ball[4 * p];
        for (int r = 0; r < 3; ++r) c[r] = 0.5 * (lo[r] + hi[r]);
        for (int i = vfirst[p]; i < vfirst[p + 1]; ++i) c[3] = std::max(c[3], gap(c, &verts[3 * i]));
        c[3] += radius[p];
    }
    m.piece_first = std::move(piece_first), m.vfirst = std::move(vfirst), m.verts = std::move(verts);
    m.piece_radius = std::move(radius), m.thing_piece = std::move(thing_piece);
    m.edge_first = std::move(edge_first), m.edge_next = std::move(edge_next);
    const std::size_t S = m.self_pairs.size() / 2;  // each pair's block of GJK start directions
    auto count = [&](int b) { return m.piece_first[b + 1] - m.piece_first[b]; };
    m.warm_at.assign(S + m.thing_pairs.size() / 2, 0);
    m.warm_size = 0;
    for (std::size_t p = 0; p < m.warm_at.size(); ++p) {
        m.warm_at[p] = WARM * m.warm_size;
        m.warm_size += p < S ? count(m.self_pairs[2 * p]) * count(m.self_pairs[2 * p + 1]) : count(m.thing_pairs[2 * (p - S)]);
    }
    return true;
}

}  // namespace kc
