// A lower bound on a robot's clearance in a scene, for planning: each of its bodies covered by
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
// World frame: body k's pose is base · [R_k, s·t_k] with [R_k, t_k] link frame k of the chain
// (robot units) and s the robot's length unit in the scene's.
#pragma once

#include <vector>

#include "chain.hpp"

namespace kc {

enum Primitive : int { SPHERE = 0, BOX = 1, CAPSULE = 2, CYLINDER = 3 };

struct Clearance {
    Chain chain;
    double base[12] = {};  // top rows
    double scale = 1.0;
    int bodies = 0;                 // n + 1: base (0) and links 1..n
    std::vector<int> first;         // per body: its spheres [first[b], first[b + 1])
    std::vector<double> sphere;     // per sphere: centre (3, in its body's scaled frame), radius
    std::vector<int> kind;          // per thing: Primitive
    std::vector<double> pose;       // per thing: world top rows (12)
    std::vector<double> size;       // per thing: sphere (r), box (half extents), capsule/cylinder (R, l/2)
    std::vector<int> self_pairs;    // body pairs (a, b) of the robot
    std::vector<int> thing_pairs;   // (body, thing) pairs
};

// The lower bound at q (n) into *out; false if q holds NaN or infinity. scratch: (n + 2) × 16 +
// 3 × (spheres) + 3 n doubles.
bool clearance(const Clearance& m, const double* q, double* scratch, double* out);

// Doubles of scratch `clearance` needs.
std::size_t clearance_scratch(const Clearance& m);

}  // namespace kc
