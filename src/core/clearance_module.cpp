// The clearance model of kinematica._core (clearance.hpp): packed once per robot of a scene,
// asked for many states at once.
#include <nanobind/nanobind.h>
#include <nanobind/stl/vector.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "clearance.hpp"
#include "convex.hpp"
#include "numpy_api.hpp"
#include "parallel.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace {

using kc::np::sized;

void init_clearance(kc::Clearance* m, std::vector<const kc::Chain*> chains, nb::handle bases, std::vector<double> scales,
                    std::vector<int> first, nb::handle spheres, std::vector<int> kinds, nb::handle poses, nb::handle sizes,
                    std::vector<int> self_pairs, std::vector<int> thing_pairs) {
    const std::size_t R = chains.size();
    if (R == 0 || scales.size() != R) throw nb::index_error("chains, scales: one each a moving robot");
    const kc::np::View B = sized(bases, 16 * R, "bases: (robots, 4, 4)");
    int bodies = 0, n = 0;
    for (const kc::Chain* ch : chains) bodies += ch->n + 1, n += ch->n;
    const std::size_t S = first.empty() ? 0 : static_cast<std::size_t>(first.back()), T = kinds.size();
    if (first.size() != static_cast<std::size_t>(bodies) + 1) throw nb::index_error("first: bodies + 1 sphere offsets");
    for (std::size_t b = 0; b + 1 < first.size(); ++b)
        if (first[b] < 0 || first[b] > first[b + 1]) throw nb::value_error("first: not increasing");
    const kc::np::View sp = sized(spheres, 4 * S, "spheres: (S, 4)"), P = sized(poses, 16 * T, "poses: (T, 4, 4)");
    const kc::np::View Z = sized(sizes, 3 * T, "sizes: (T, 3)");
    auto body_ok = [&](int b) { return b >= 0 && b < bodies; };
    for (std::size_t p = 0; p < self_pairs.size(); ++p)
        if (!body_ok(self_pairs[p])) throw nb::value_error("self_pairs: a body out of range");
    for (std::size_t p = 0; p + 1 < thing_pairs.size(); p += 2)
        if (!body_ok(thing_pairs[p]) || thing_pairs[p + 1] < 0 || static_cast<std::size_t>(thing_pairs[p + 1]) >= T)
            throw nb::value_error("thing_pairs: a body or thing out of range");
    for (int k : kinds)
        if (k < kc::SPHERE || k > kc::CYLINDER) throw nb::value_error("kinds: 0 sphere, 1 box, 2 capsule, 3 cylinder");
    new (m) kc::Clearance();
    int body0 = 0, q0 = 0;
    for (std::size_t r = 0; r < R; ++r) {
        kc::Mover mv;
        mv.chain = *chains[r];
        std::memcpy(mv.base, B.data + 16 * r, 12 * sizeof(double));
        mv.scale = scales[r], mv.body0 = body0, mv.q0 = q0;
        body0 += mv.chain.n + 1, q0 += mv.chain.n;
        m->movers.push_back(std::move(mv));
    }
    m->n = n;
    m->bodies = bodies;
    m->first = std::move(first);
    m->sphere.assign(sp.data, sp.data + 4 * S);
    m->kind = std::move(kinds);
    m->pose.resize(12 * T);
    for (std::size_t t = 0; t < T; ++t) std::memcpy(&m->pose[12 * t], P.data + 16 * t, 12 * sizeof(double));
    m->size.assign(Z.data, Z.data + 3 * T);
    m->self_pairs = std::move(self_pairs);
    m->thing_pairs = std::move(thing_pairs);
    kc::enclose(*m);
}

// The lower bounds (...) of states Q (..., n); ValueError("not finite") for NaN or infinity.
nb::object clearances(const kc::Clearance& m, nb::handle Q_in, double cap) {
    const kc::np::View Q = kc::np::view(Q_in);
    const std::size_t n = m.n;
    if (Q.ndim < 1 || static_cast<std::size_t>(Q.shape[Q.ndim - 1]) != n) throw nb::index_error("q: (..., n)");
    const std::size_t N = Q.size() / n;
    Py_intptr_t shape[8];
    for (int k = 0; k + 1 < Q.ndim; ++k) shape[k] = Q.shape[k];
    double* out;
    nb::object result = kc::np::empty(Q.ndim - 1, shape, out);
    const std::size_t need = kc::clearance_scratch(m);
    auto run = [&](std::size_t from, std::size_t to) {
        std::vector<double> scratch(need);
        bool ok = true;
        for (std::size_t k = from; k < to; ++k) ok &= kc::clearance(m, Q.data + n * k, scratch.data(), out + k, cap);
        return ok;
    };
    bool ok;
    if (N < 64) {
        ok = run(0, N);
    } else {
        nb::gil_scoped_release unlocked;
        ok = kc::parallel_chunks(N, kc::workers_for(N, 256), run);
    }
    if (!ok) throw nb::value_error("not finite");
    return result;
}

// Pair `pair`'s lower bound at each state of Q (B, n) (kc::pair_bound), in threads for many states;
// ValueError("not finite") for NaN or infinity.
nb::object pair_bounds(const kc::Clearance& m, nb::handle Q_in, int pair) {
    const kc::np::View Q = kc::np::view(Q_in);
    const std::size_t n = m.n, P = (m.self_pairs.size() + m.thing_pairs.size()) / 2;
    if (Q.ndim != 2 || static_cast<std::size_t>(Q.shape[1]) != n) throw nb::index_error("q: (B, n)");
    if (pair < 0 || static_cast<std::size_t>(pair) >= P) throw nb::index_error("pair: out of range");
    const std::size_t N = Q.shape[0];
    Py_intptr_t shape[1] = {static_cast<Py_intptr_t>(N)};
    double* out;
    nb::object result = kc::np::empty(1, shape, out);
    const std::size_t need = kc::clearance_scratch(m);
    auto run = [&](std::size_t from, std::size_t to) {
        std::vector<double> scratch(need);
        bool ok = true;
        for (std::size_t k = from; k < to; ++k) ok &= kc::pair_bound(m, Q.data + n * k, pair, scratch.data(), out + k);
        return ok;
    };
    bool ok;
    {
        nb::gil_scoped_release unlocked;
        ok = kc::parallel_chunks(N, kc::workers_for(N, 64), run);
    }
    if (!ok) throw nb::value_error("not finite");
    return result;
}

// Whether the state q (n,) lies in the box lo ≤ q ≤ hi (n, each) and the bound shows it free
// (kc::state_free): what a planner asks of one state, in one call.
bool state_free(const kc::Clearance& m, nb::handle q_in, nb::handle lo_in, nb::handle hi_in, double resolution) {
    const std::size_t n = m.n;
    const kc::np::View q = sized(q_in, n, "q: (n,)"), lo = sized(lo_in, n, "lo: (n,)"), hi = sized(hi_in, n, "hi: (n,)");
    if (!(resolution > 0.0)) throw nb::value_error("resolution > 0");
    for (std::size_t j = 0; j < n; ++j)
        if (!(q.data[j] >= lo.data[j] && q.data[j] <= hi.data[j])) return false;  // (NaN too)
    std::vector<double> scratch(kc::clearance_scratch(m));
    return kc::state_free(m, q.data, resolution, scratch.data());
}

// Per state of Q (B, n), per pair (self pairs, then thing pairs): whether it comes within margin
// (bool (B, pairs)), on its spheres and (with `pieces`) its convex pieces; ValueError("not finite")
// for NaN or infinity.
nb::object pairs_near(const kc::Clearance& m, nb::handle Q_in, double margin, bool pieces) {
    const kc::np::View Q = kc::np::view(Q_in);
    const std::size_t n = m.n, P = (m.self_pairs.size() + m.thing_pairs.size()) / 2;
    if (Q.ndim != 2 || static_cast<std::size_t>(Q.shape[1]) != n) throw nb::index_error("q: (B, n)");
    if (!(margin >= 0.0) || !std::isfinite(margin)) throw nb::value_error("margin: a length >= 0");
    const std::size_t N = Q.shape[0];
    std::vector<unsigned char> flags(N * P);
    std::vector<double> scratch(kc::clearance_scratch(m));
    for (std::size_t k = 0; k < N; ++k)
        if (!kc::pairs_near(m, Q.data + n * k, margin, scratch.data(), flags.data() + P * k, pieces))
            throw nb::value_error("not finite");
    nb::module_ np = nb::module_::import_("numpy");
    nb::bytes raw(reinterpret_cast<const char*>(flags.data()), flags.size());
    return np.attr("frombuffer")(raw, "dtype"_a = "bool").attr("reshape")(N, P);
}

// Self pair `pair`'s table (kc::PairTable): joints (1 or 2 state indices), per joint the grid's
// origin, spacing and Lipschitz constant, and the distances (m0, m1).
void add_table(kc::Clearance& m, int pair, std::vector<int> joints, std::vector<double> lo, std::vector<double> step,
               std::vector<double> c, nb::handle d_in) {
    const std::size_t k = joints.size();
    if (pair < 0 || 2 * static_cast<std::size_t>(pair) + 1 >= m.self_pairs.size()) throw nb::index_error("pair: out of range");
    if (k < 1 || k > 2 || lo.size() != k || step.size() != k || c.size() != k) throw nb::value_error("one or two joints");
    kc::PairTable t;
    t.joints = static_cast<int>(k);
    const kc::np::View d = kc::np::view(d_in);
    if (d.ndim != static_cast<int>(k)) throw nb::index_error("d: one axis per joint");
    for (std::size_t j = 0; j < k; ++j) {
        if (joints[j] < 0 || joints[j] >= m.n || !(step[j] > 0.0) || !(c[j] >= 0.0) || !std::isfinite(lo[j]))
            throw nb::value_error("a joint out of range, or a bad grid");
        t.q[j] = joints[j], t.lo[j] = lo[j], t.step[j] = step[j], t.c[j] = c[j], t.m[j] = static_cast<int>(d.shape[j]);
    }
    t.d.assign(d.data, d.data + d.size());
    if (m.table_of.empty()) m.table_of.assign(m.self_pairs.size() / 2, -1);
    m.table_of[pair] = static_cast<int>(m.tables.size());
    m.tables.push_back(std::move(t));
}

// The convex pieces (clearance.hpp): per body its pieces' range, per piece its vertices' range,
// the vertices (V, 3), radii, and per thing its piece or −1.
void set_pieces(kc::Clearance& m, std::vector<int> piece_first, std::vector<int> vfirst, nb::handle verts_in,
                std::vector<double> radius, std::vector<int> thing_piece, std::vector<int> edge_first,
                std::vector<int> edge_next) {
    const kc::np::View v = kc::np::view(verts_in);
    if (v.ndim != 2 || v.shape[1] != 3) throw nb::index_error("verts: (V, 3)");
    std::vector<double> verts(v.data, v.data + v.size());
    if (!kc::set_pieces(m, std::move(piece_first), std::move(vfirst), std::move(verts), std::move(radius),
                        std::move(thing_piece), std::move(edge_first), std::move(edge_next)))
        throw nb::value_error("pieces: an offset, radius, vertex, edge or thing's piece out of range");
}

// Whether the bound proves the edge qa → qb (n,) free, and the states it bounded (clearance.hpp);
// with a box lo ≤ q ≤ hi (n each, or None), (False, 0) when an end lies outside it.
nb::tuple edge_clear(const kc::Clearance& m, nb::handle qa_in, nb::handle qb_in, nb::handle w_in, double resolution,
                     int depth, nb::handle lo_in, nb::handle hi_in) {
    const std::size_t n = m.n;
    const kc::np::View qa = sized(qa_in, n, "qa: (n,)"), qb = sized(qb_in, n, "qb: (n,)"), w = sized(w_in, n, "w: (n,)");
    if (!(resolution > 0.0) || depth < 0 || depth > 30) throw nb::value_error("resolution > 0, 0 <= depth <= 30");
    if (!lo_in.is_none() || !hi_in.is_none()) {  // (the box is convex: an edge between ends inside it stays inside)
        const kc::np::View lo = sized(lo_in, n, "lo: (n,)"), hi = sized(hi_in, n, "hi: (n,)");
        for (std::size_t j = 0; j < n; ++j)
            if (!(qa.data[j] >= lo.data[j] && qa.data[j] <= hi.data[j] && qb.data[j] >= lo.data[j] &&
                  qb.data[j] <= hi.data[j]))
                return nb::make_tuple(false, 0);
    }
    std::vector<double> scratch(kc::clearance_scratch(m) + n);
    long states = 0;
    const bool free = kc::edge_clear(m, qa.data, qb.data, w.data, resolution, depth, scratch.data(), states);
    return nb::make_tuple(free, states);
}

// A piece's hull edges as (first, next) lists (kc::Convex), checked against its k vertices as
// set_pieces checks a model's (kc::edges_join); empty lists: none.
void edges_of(const std::vector<int>& first, const std::vector<int>& next, int k) {
    if (first.empty() && next.empty()) return;
    if (first.size() != static_cast<std::size_t>(k) + 1 || first[0] != 0 || static_cast<std::size_t>(first[k]) != next.size())
        throw nb::value_error("edges: first (k + 1) offsets into next");
    if (!kc::edges_join(first.data(), next.data(), 0, k))
        throw nb::value_error("edges: a neighbour out of range, or vertices they do not join");
}

// GJK's lower bound between two pieces conv(V) ⊕ ball(r), each placed by T (4, 4) (convex.hpp).
double convex_distance(nb::handle Va_in, nb::handle Ta_in, double ra, nb::handle Vb_in, nb::handle Tb_in, double rb,
                       double enough, double tol, std::vector<int> first_a, std::vector<int> next_a,
                       std::vector<int> first_b, std::vector<int> next_b) {
    const kc::np::View Va = kc::np::view(Va_in), Vb = kc::np::view(Vb_in);
    if (Va.ndim != 2 || Va.shape[1] != 3 || Va.shape[0] < 1 || Vb.ndim != 2 || Vb.shape[1] != 3 || Vb.shape[0] < 1)
        throw nb::index_error("V: (k, 3), k >= 1");
    const kc::np::View Ta = sized(Ta_in, 16, "Ta: (4, 4)"), Tb = sized(Tb_in, 16, "Tb: (4, 4)");
    if (!(ra >= 0.0) || !(rb >= 0.0) || !(tol >= 0.0)) throw nb::value_error("radii and tol: >= 0");
    const int ka = static_cast<int>(Va.shape[0]), kb = static_cast<int>(Vb.shape[0]);
    edges_of(first_a, next_a, ka);
    edges_of(first_b, next_b, kb);
    const kc::Convex a{Va.data, ka, ra, first_a.empty() ? nullptr : first_a.data(), next_a.data()},
        b{Vb.data, kb, rb, first_b.empty() ? nullptr : first_b.data(), next_b.data()};
    return kc::convex_distance(a, Ta.data, b, Tb.data, enough, tol);
}

}  // namespace

void bind_clearance(nb::module_& m) {
    m.def("convex_distance", &convex_distance, "Va"_a, "Ta"_a, "ra"_a, "Vb"_a, "Tb"_a, "rb"_a,
          "enough"_a = INFINITY, "tol"_a = 1e-12, "first_a"_a = std::vector<int>{}, "next_a"_a = std::vector<int>{},
          "first_b"_a = std::vector<int>{}, "next_b"_a = std::vector<int>{},
          "GJK's lower bound on the distance between conv(Va) ⊕ ball(ra) placed by Ta (4, 4) and conv(Vb) ⊕ "
          "ball(rb) placed by Tb: never above it; within tol of it unless it reached `enough` first. With a "
          "piece's hull edges (vertex i's neighbours next[first[i]:first[i + 1]]) its support points are "
          "found by climbing them.");
    nb::class_<kc::Clearance>(m, "Clearance",
                              "A lower bound on the clearance of robots moving together in a scene: their bodies "
                              "covered by spheres, the scene's things exact primitives (scene/bound.py packs it).")
        .def("__init__", &init_clearance, "chains"_a, "bases"_a, "scales"_a, "first"_a, "spheres"_a, "kinds"_a,
             "poses"_a, "sizes"_a, "self_pairs"_a, "thing_pairs"_a,
             "The moving robots' chains, bases (R, 4, 4) and scales; first (bodies + 1): body b's spheres are "
             "[first[b], first[b + 1]); spheres (S, 4): centre in the body's scaled frame, radius; kinds (T) "
             "0 sphere 1 box 2 capsule 3 cylinder, poses (T, 4, 4), sizes (T, 3); self_pairs (among the movers' "
             "bodies) and thing_pairs flattened (a, b) pairs.")
        .def_ro("bodies", &kc::Clearance::bodies)
        .def_ro("n", &kc::Clearance::n)
        .def("clearances", &clearances, "q"_a, "cap"_a = INFINITY,
             "Lower bounds (...) on the clearance of states q (..., n), each at most `cap` (pairs farther are "
             "not measured).")
        .def("add_table", &add_table, "pair"_a, "joints"_a, "lo"_a, "step"_a, "c"_a, "d"_a,
             "Give self pair `pair` a table of its exact distance over the joints between its bodies.")
        .def("set_pieces", &set_pieces, "piece_first"_a, "vfirst"_a, "verts"_a, "radius"_a, "thing_piece"_a,
             "edge_first"_a = std::vector<int>{}, "edge_next"_a = std::vector<int>{},
             "Convex pieces that refine the pairs the spheres bring within `refine`: body b's are "
             "[piece_first[b], piece_first[b + 1]) (vertices in its scaled frame), piece p's vertices "
             "verts[vfirst[p]:vfirst[p + 1]] with its radius; thing t's piece thing_piece[t] (world; −1 none); "
             "vertex v's hull neighbours edge_next[edge_first[v]:edge_first[v + 1]] (indices within its "
             "piece; both empty: none).")
        .def_rw("refine", &kc::Clearance::refine,
                "Scene length: a pair whose spheres come within it is refined by its convex pieces (0: only "
                "pairs the spheres leave touching).")
        .def_prop_ro("self_pairs", [](const kc::Clearance& m) { return m.self_pairs; })
        .def("pairs_near", &pairs_near, "q"_a, "margin"_a, "pieces"_a = true,
             "Per state of q (B, n), per pair (self pairs, then thing pairs): whether its spheres — and, with "
             "`pieces`, its convex pieces — come within margin (bool (B, pairs)).")
        .def("pair_bounds", &pair_bounds, "q"_a, "pair"_a,
             "Per state of q (B, n): pair `pair`'s lower bound (self pairs, then thing pairs) on its spheres, "
             "table and convex pieces, uncapped.")
        .def("state_free", &state_free, "q"_a, "lo"_a, "hi"_a, "resolution"_a,
             "Whether the state q (n,) is inside the box lo <= q <= hi and the bound shows it free.")
        .def("edge_clear", &edge_clear, "qa"_a, "qb"_a, "weights"_a, "resolution"_a, "depth"_a,
             "lo"_a = nb::none(), "hi"_a = nb::none(),
             "(whether the bound proves the straight motion qa → qb free, states bounded); with a box "
             "lo <= q <= hi, (False, 0) when an end lies outside it.");
}
