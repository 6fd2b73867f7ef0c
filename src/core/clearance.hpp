// A lower bound on the clearance of robots moving together in a scene (one, or a group planned in
// one joint space), for planning (a self pair may also have a PairTable: the larger bound counts): each of their bodies covered by
// spheres (fitted in Python to contain the body's collision geometry: scene/spheres.py), the
// scene's other things as exact primitives or covering spheres, and the body pairs the scene
// tests. Since every sphere contains what it covers, the distance between two spheres (or a
// sphere and a primitive) is at most that between the geometry they cover:
//
//   clearance(q) = min over tested pairs of  d(sphere a, thing b) ≤ the scene's true distance
//
//   sphere–sphere     |c_a − c_b| − r_a − r_b
//   sphere–box        ‖max(|p| − h, 0)‖ + min(max_i(|p_i| − h_i), 0) − r    p = the centre in the box's frame
//   sphere–capsule    |p − clamp(p_z, ±l/2) ẑ| − R − r                        (axis z, half length l/2)
//   sphere–cylinder   ‖(max(ρ − R, 0), max(|p_z| − l/2, 0))‖ + min(max(ρ − R, |p_z| − l/2), 0) − r
//
// A positive bound proves the state free; a state it does not clear goes to the exact check.
// World frame: body k of a robot is base · [R_k, s·t_k] with [R_k, t_k] link frame k of its chain
// (robot units) and s its length unit in the scene's. A state is the robots' joint values one
// after the other; the bodies are numbered the same way (robot 1's n1 + 1, then robot 2's, …).
#pragma once

#include <cmath>
#include <vector>

#include "chain.hpp"

namespace kc {

// The cap on the bounds edge_clear measures, × the resolution: larger clears longer free pieces
// at once, smaller culls more pairs at each state by their enclosing spheres.
constexpr double EDGE_CAP = 8.0;

enum Primitive : int { SPHERE = 0, BOX = 1, CAPSULE = 2, CYLINDER = 3 };

struct Mover {  // one moving robot
    Chain chain;
    double base[12] = {};  // top rows
    double scale = 1.0;
    int body0 = 0;  // its bodies: [body0, body0 + n + 1): base (body0) and links
    int q0 = 0;     // its joint values: [q0, q0 + n) of a state
};

// The exact distance of one self pair over the one or two joints between its bodies (their relative
// pose depends on nothing else), tabulated on a grid: at a state, the nearest grid point's distance
// less Σ c_k |q_k − grid_k| is a lower bound (a point of the farther body moves at most c_k per unit
// of joint k). Made in Python with coal (scene/pairtable.py) for pairs the spheres cannot separate.
struct PairTable {
    int joints = 1;                               // 1 or 2
    int q[2] = {0, 0};                            // their indices in a state
    int m[2] = {1, 1};                            // grid points per joint
    double lo[2] = {0, 0}, step[2] = {1, 1}, c[2] = {0, 0};
    std::vector<double> d;                        // m[0] × m[1] distances, row-major
};

struct Clearance {
    std::vector<Mover> movers;
    int n = 0;                      // joint values of a state: Σ n_r
    int bodies = 0;                 // Σ (n_r + 1)
    std::vector<int> first;         // per body: its spheres [first[b], first[b + 1])
    std::vector<double> sphere;     // per sphere: centre (3, in its body's scaled frame), radius
    std::vector<int> kind;          // per thing: Primitive
    std::vector<double> pose;       // per thing: world top rows (12)
    std::vector<double> size;       // per thing: sphere (r), box (half extents), capsule/cylinder (R, l/2)
    std::vector<int> self_pairs;    // body pairs (a, b) among the movers' bodies
    std::vector<int> thing_pairs;   // (body, thing) pairs
    std::vector<double> hull;       // per body: a sphere holding all its spheres (centre, radius), made at packing
    std::vector<int> table_of;      // per self pair: its PairTable in `tables`, or −1
    std::vector<PairTable> tables;
    // Convex pieces (convex.hpp) that refine a pair the spheres leave within `refine`: a body's
    // pieces [piece_first[b], piece_first[b + 1]) in its scaled frame (together they contain all of
    // its geometry; none: the spheres alone), a thing's one piece thing_piece[t] (−1: none) in the
    // world. Piece p: vertices [vfirst[p], vfirst[p + 1]) of verts (3 each), radius, and a sphere
    // holding it (piece_ball: centre, radius; GJK stops within 1e-3 of the smaller one's radius).
    std::vector<int> piece_first, vfirst, thing_piece;
    std::vector<double> verts, piece_radius, piece_ball;
    // The pieces' hull edges (convex.hpp's Convex::first, next), or empty: vertex v's neighbours
    // (indices within its piece) are edge_next[edge_first[v] .. edge_first[v + 1]).
    std::vector<int> edge_first, edge_next;
    double refine = 0.0;  // scene unit: a pair's spheres within it are refined by the pieces (clearance())
    // Where GJK last ended for each piece pair, as clearance() may keep them between nearby states:
    // pair p's block (self pairs, then thing pairs) starts at warm_at[p] (doubles), WARM per piece
    // pair (the direction, then the two support vertices); warm_size piece pairs in all.
    std::vector<int> warm_at;
    int warm_size = 0;
};

// Doubles kept per piece pair between nearby states (Clearance::warm_at).
constexpr int WARM = 5;

// On an edge GJK stops within this fraction of the resolution of the distance (or 1e-3 of the
// smaller piece): a bound that much short of it costs the certificate little, and the last
// iterations cost most (a third of the edge check's time, on MotionBenchMaker's Panda).
constexpr double GJK_TOL = 0.05;

// Check and keep the convex pieces (the fields above; edge_first empty: no edges); false if an
// index is out of range.
bool set_pieces(Clearance& m, std::vector<int> piece_first, std::vector<int> vfirst, std::vector<double> verts,
                std::vector<double> radius, std::vector<int> thing_piece, std::vector<int> edge_first = {},
                std::vector<int> edge_next = {});

// Fill m.hull from m.sphere and m.first (a body's sphere skips a pair that cannot lower the minimum).
void enclose(Clearance& m);

// The lower bound at the state q (n) into *out; false if q holds NaN or infinity. A pair whose bodies'
// enclosing spheres are already as far apart as the smallest distance found is skipped (none of
// its spheres can be nearer); one whose spheres come within `refine` and nearer than the smallest
// found takes the larger of its spheres' and its convex pieces' distance (both lower bounds).
// With `cap`, the bound found is min(cap, the bound): pairs the enclosing spheres show to be `cap`
// apart are not measured (a planner's edge needs no more than its resolution: plan/edges.py).
// `warm` (WARM × warm_size doubles, zero at first, or nullptr): GJK's start directions, kept from the
// last state measured with them (a nearby state's converge in a step or two).
bool clearance(const Clearance& m, const double* q, double* scratch, double* out, double cap = INFINITY,
               double* warm = nullptr);

// Per pair — the self pairs, then the thing pairs, in their order — whether its spheres come within
// `margin` of each other at the state q (near[k] = 1) — and, with `pieces`, their convex pieces
// too, where they have some — so that only those pairs need the exact check: a pair not near is at
// least `margin` clear. False if q holds NaN or infinity.
bool pairs_near(const Clearance& m, const double* q, double margin, double* scratch, unsigned char* near,
                bool pieces = true);

// Whether the bound shows the state q free — every pair apart, on its spheres or else its convex
// pieces (GJK within GJK_TOL × resolution) — the collision check a planner asks of one state; false
// also if q holds NaN or infinity.
bool state_free(const Clearance& m, const double* q, double resolution, double* scratch);

// Pair k's lower bound at the state q (self pairs, then thing pairs, in their order) into *out —
// the larger of its spheres', its table's and its convex pieces' (GJK to 1e-3 of the smaller
// piece), never capped; false if q holds NaN or infinity.
bool pair_bound(const Clearance& m, const double* q, std::size_t k, double* scratch, double* out);

// Doubles of scratch `clearance`, `state_free`, `pair_bound` and `pairs_near` need.
std::size_t clearance_scratch(const Clearance& m);

// Whether the bound alone proves the straight joint motion qa → qb (n each, all movers) free
// (plan/edges.py states the argument), pair by pair: the two sides of pair p move relative to each
// other by at most L_p = Σ w_j |qb_j − qa_j| over the joints between them (a self pair of one
// robot: those between its links; else every joint before each side), and a piece s ∈ [s_a, s_b]
// is free when, for every pair, its bounds at the ends d_p(s_a) + d_p(s_b) > L_p (s_b − s_a) — or
// more than a tighter bound on the piece from how far each side is from the joints' axes at its
// ends, where w_j is the farthest any point after joint j can be (clearance.cpp, class Measured).
// The edge's grid s = i / k, k = ⌈L / resolution⌉ with L = Σ_j w_j |qb_j − qa_j| (neighbours no
// more than `resolution` apart), is halved coarse to fine from its two ends: a piece its ends do
// not clear gets its middle grid state, and a grid step that stays uncleared is halved `depth`
// levels at most. Every grid state is thus measured or inside a piece proven free. A pair is
// measured on its spheres (and table) first and on its convex pieces only where that fails to
// clear a piece, and no further than min(EDGE_CAP × resolution, L_p / 2) (enough to clear the
// whole edge). False when a state's bound is not positive or a piece stays uncleared (the exact
// check must then judge the edge); states counts the states measured.
bool edge_clear(const Clearance& m, const double* qa, const double* qb, const double* w, double resolution,
                int depth, double* scratch, long& states);

}  // namespace kc
