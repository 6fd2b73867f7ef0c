// GJK's distance lower bound between two convex pieces (convex.hpp).
#include "convex.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace kc {
namespace {

struct V3 {
    double x, y, z;
};
inline V3 operator-(V3 a, V3 b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
inline V3 operator+(V3 a, V3 b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
inline V3 operator*(double s, V3 a) { return {s * a.x, s * a.y, s * a.z}; }
inline V3 operator-(V3 a) { return {-a.x, -a.y, -a.z}; }
inline double dot(V3 a, V3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
inline V3 cross(V3 a, V3 b) { return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x}; }

// Below this many vertices a pass over all of them is as quick as a climb.
constexpr int CLIMB_FROM = 24;

// The vertex of piece p (placed by T) farthest along the world direction d, in the world; *at
// (or nullptr) is where a climb over the hull's edges starts, and is set to the vertex found.
V3 support(const Convex& p, const double* T, V3 d, int* at) {
    V3 l = d;  // d in the piece's frame: Rᵀ d
    if (T) l = {T[0] * d.x + T[4] * d.y + T[8] * d.z, T[1] * d.x + T[5] * d.y + T[9] * d.z,
                T[2] * d.x + T[6] * d.y + T[10] * d.z};
    const double* v = p.v;
    auto along = [&](int i) { return l.x * v[3 * i] + l.y * v[3 * i + 1] + l.z * v[3 * i + 2]; };
    int best = 0;
    if (p.first && p.count >= CLIMB_FROM) {
        best = at && *at >= 0 && *at < p.count ? *at : 0;
        double most = along(best);
        for (int from = -1; from != best;) {  // to the best neighbour while one is better
            from = best;
            for (int e = p.first[from]; e < p.first[from + 1]; ++e) {
                const double s = along(p.next[e]);
                if (s > most) most = s, best = p.next[e];
            }
        }
    } else {
        double most = along(0);
        for (int i = 1; i < p.count; ++i) {
            const double s = along(i);
            if (s > most) most = s, best = i;
        }
    }
    if (at) *at = best;
    const V3 x{v[3 * best], v[3 * best + 1], v[3 * best + 2]};
    if (!T) return x;
    return {T[0] * x.x + T[1] * x.y + T[2] * x.z + T[3], T[4] * x.x + T[5] * x.y + T[6] * x.z + T[7],
            T[8] * x.x + T[9] * x.y + T[10] * x.z + T[11]};
}

struct Simplex {
    V3 y[4];
    int k = 0;
};

// The point of triangle s.y[0..2] nearest the origin; s is reduced to the vertices that span it
// (Ericson, Real-Time Collision Detection, 5.1.5, with the query point at the origin).
V3 triangle(Simplex& s) {
    const V3 a = s.y[0], b = s.y[1], c = s.y[2], ab = b - a, ac = c - a;
    const double d1 = -dot(ab, a), d2 = -dot(ac, a);
    if (d1 <= 0 && d2 <= 0) return s.k = 1, a;
    const double d3 = -dot(ab, b), d4 = -dot(ac, b);
    if (d3 >= 0 && d4 <= d3) return s.k = 1, s.y[0] = b, b;
    const double vc = d1 * d4 - d3 * d2;
    if (vc <= 0 && d1 >= 0 && d3 <= 0) return s.k = 2, a + (d1 / (d1 - d3)) * ab;
    const double d5 = -dot(ab, c), d6 = -dot(ac, c);
    if (d6 >= 0 && d5 <= d6) return s.k = 1, s.y[0] = c, c;
    const double vb = d5 * d2 - d1 * d6;
    if (vb <= 0 && d2 >= 0 && d6 <= 0) return s.k = 2, s.y[1] = c, a + (d2 / (d2 - d6)) * ac;
    const double va = d3 * d6 - d5 * d4;
    if (va <= 0 && d4 - d3 >= 0 && d5 - d6 >= 0) {
        s.k = 2, s.y[0] = b, s.y[1] = c;
        return b + ((d4 - d3) / ((d4 - d3) + (d5 - d6))) * (c - b);
    }
    const double den = 1.0 / (va + vb + vc);
    return a + (vb * den) * ab + (vc * den) * ac;
}

// The point of the simplex nearest the origin, s reduced to the vertices that span it; false when
// the origin is inside the tetrahedron (or a flat one hides which side it is on: no claim then).
bool nearest(Simplex& s, V3& v) {
    if (s.k == 1) return v = s.y[0], true;
    if (s.k == 2) {
        const V3 a = s.y[0], ab = s.y[1] - a;
        const double t = -dot(a, ab) / dot(ab, ab);
        if (t <= 0) return s.k = 1, v = a, true;
        if (t >= 1) return s.k = 1, s.y[0] = s.y[1], v = s.y[0], true;
        return v = a + t * ab, true;
    }
    if (s.k == 3) return v = triangle(s), true;
    static constexpr int face[4][4] = {{0, 1, 2, 3}, {0, 2, 3, 1}, {0, 3, 1, 2}, {1, 3, 2, 0}};  // 3 + the one opposite
    double best = INFINITY;
    bool outside = false;
    Simplex kept;
    for (const auto& f : face) {
        const V3 a = s.y[f[0]], n = cross(s.y[f[1]] - a, s.y[f[2]] - a);
        if (!(dot(-a, n) * dot(s.y[f[3]] - a, n) < 0)) continue;  // the origin is on the tetrahedron's side
        Simplex t;
        t.y[0] = a, t.y[1] = s.y[f[1]], t.y[2] = s.y[f[2]], t.k = 3;
        const V3 x = triangle(t);
        if (dot(x, x) < best) best = dot(x, x), kept = t, v = x;
        outside = true;
    }
    if (outside) s = kept;
    return outside;
}

}  // namespace

bool edges_join(const int* first, const int* next, int v0, int v1) {
    for (int v = v0; v < v1; ++v)
        if (first[v + 1] < first[v]) return false;
    if (first[v1] == first[v0]) return true;
    std::vector<char> seen(v1 - v0, 0);
    std::vector<int> todo{0};
    seen[0] = 1;
    int reached = 1;
    while (!todo.empty()) {
        const int v = todo.back();
        todo.pop_back();
        for (int e = first[v0 + v]; e < first[v0 + v + 1]; ++e) {
            const int u = next[e];
            if (u < 0 || u >= v1 - v0) return false;
            if (!seen[u]) seen[u] = 1, ++reached, todo.push_back(u);
        }
    }
    return reached == v1 - v0;
}

double convex_distance(const Convex& a, const double* Ta, const Convex& b, const double* Tb, double enough,
                       double tol, const double* towards, double* ended, int* climb) {
    const V3 start = towards ? V3{towards[0], towards[1], towards[2]} : V3{1, 0, 0};
    const double r = a.radius + b.radius;
    int local[2] = {0, 0};
    int* at = climb ? climb : local;
    Simplex s;
    V3 v = support(a, Ta, start, at) - support(b, Tb, -start, at + 1);
    double lower = 0.0;  // (a distance is never negative)
    for (int it = 0; it < 64; ++it) {
        const double vv = dot(v, v);
        if (!(vv > 0)) break;  // the origin on the simplex: touching (or round-off made NaN)
        const double vn = std::sqrt(vv);
        const V3 w = support(a, Ta, -v, at) - support(b, Tb, v, at + 1);
        lower = std::max(lower, dot(v, w) / vn);
        if (lower - r >= enough || vn - lower <= tol || vn <= r) break;  // enough; converged; the pieces touch
        s.y[s.k++] = w;
        if (!nearest(s, v)) break;
    }
    if (ended && dot(v, v) > 0) ended[0] = -v.x, ended[1] = -v.y, ended[2] = -v.z;
    return lower - r;
}

}  // namespace kc
