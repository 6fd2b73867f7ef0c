// A lower bound on the distance between two convex pieces, by GJK (Gilbert, Johnson and Keerthi,
// 1988). A piece is conv(vertices) ⊕ ball(radius): a mesh's convex hull (which contains the mesh),
// a box's 8 corners, a capsule's 2 end points with its radius, a sphere's centre with its radius.
//
// GJK walks a simplex in the Minkowski difference D = A − B towards the origin: at the simplex's
// point v nearest the origin it asks the support point w = s_A(−v) − s_B(v) (the point of D
// farthest along −v). Every point x of D has x·v ≥ w·v, so
//
//   dist(0, D) ≥ (v · w) / |v|                 a lower bound at every step,
//
// whatever the simplex's round-off: only the support points must be exact, and they are a
// maximum over vertices. The bound returned is the best of these, less the two radii, so it is
// never above the pieces' true distance; the walk stops when it is within `tol` of |v| (an upper
// bound), or as soon as it reaches `enough` (the caller needs no more).
#pragma once

namespace kc {

struct Convex {
    const double* v = nullptr;  // vertices (count × 3) in the piece's frame
    int count = 0;
    double radius = 0.0;
    // Its hull's edges, or nullptr: vertex i's neighbours are next[first[i] .. first[i + 1]). With
    // them a support point is found by climbing from vertex to neighbour while the projection
    // grows (on a convex polytope a vertex no neighbour beats is the farthest: the simplex method's
    // argument), a few steps from a nearby start instead of a pass over every vertex.
    const int* first = nullptr;
    const int* next = nullptr;
};

// Whether vertices [v0, v1) either list no neighbours at all (a piece without edges: read whole)
// or list neighbours, as `next` indices within [0, v1 − v0), that join them all — what a climb
// needs to reach every vertex. first: offsets into next, one per vertex and one past the last.
bool edges_join(const int* first, const int* next, int v0, int v1);

// Where a piece is: world point = R x + t, with T the top rows of [R t] (12), or nullptr for a
// piece whose vertices are already in the world. `towards` (3, or nullptr): roughly from a to b (the
// line between their centres, or where the last walk for a nearby pose ended), where the walk
// starts: it then often ends at its first step. `ended` (3, or nullptr): where it ended, from a to b.
// `climb` (2, or nullptr): the vertices of a and b where the support climbs start (out of range:
// vertex 0), set to where the last ones ended.
double convex_distance(const Convex& a, const double* Ta, const Convex& b, const double* Tb, double enough,
                       double tol, const double* towards = nullptr, double* ended = nullptr, int* climb = nullptr);

}  // namespace kc
