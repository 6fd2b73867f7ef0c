// The clearance model of kinematica._core (clearance.hpp): packed once per robot of a scene,
// asked for many states at once.
#include <nanobind/nanobind.h>
#include <nanobind/stl/vector.h>

#include <cstring>
#include <vector>

#include "clearance.hpp"
#include "numpy_api.hpp"
#include "parallel.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace {

kc::np::View sized(nb::handle x, std::size_t size, const char* what) {
    kc::np::View v = kc::np::view(x);
    if (v.size() != size) throw nb::index_error(what);
    return v;
}

void init_clearance(kc::Clearance* m, const kc::Chain& chain, nb::handle base, double scale, std::vector<int> first,
                    nb::handle spheres, std::vector<int> kinds, nb::handle poses, nb::handle sizes,
                    std::vector<int> self_pairs, std::vector<int> thing_pairs) {
    const std::size_t S = first.empty() ? 0 : static_cast<std::size_t>(first.back()), T = kinds.size();
    if (first.size() != static_cast<std::size_t>(chain.n) + 2) throw nb::index_error("first: n + 2 sphere offsets");
    for (std::size_t b = 0; b + 1 < first.size(); ++b)
        if (first[b] < 0 || first[b] > first[b + 1]) throw nb::value_error("first: not increasing");
    const kc::np::View sp = sized(spheres, 4 * S, "spheres: (S, 4)"), P = sized(poses, 16 * T, "poses: (T, 4, 4)");
    const kc::np::View Z = sized(sizes, 3 * T, "sizes: (T, 3)"), B = sized(base, 16, "base: (4, 4)");
    auto body_ok = [&](int b) { return b >= 0 && b <= chain.n; };
    for (std::size_t p = 0; p < self_pairs.size(); ++p)
        if (!body_ok(self_pairs[p])) throw nb::value_error("self_pairs: a body out of range");
    for (std::size_t p = 0; p + 1 < thing_pairs.size(); p += 2)
        if (!body_ok(thing_pairs[p]) || thing_pairs[p + 1] < 0 || static_cast<std::size_t>(thing_pairs[p + 1]) >= T)
            throw nb::value_error("thing_pairs: a body or thing out of range");
    for (int k : kinds)
        if (k < kc::SPHERE || k > kc::CYLINDER) throw nb::value_error("kinds: 0 sphere, 1 box, 2 capsule, 3 cylinder");
    new (m) kc::Clearance();
    m->chain = chain;
    std::memcpy(m->base, B.data, 12 * sizeof(double));
    m->scale = scale;
    m->bodies = chain.n + 1;
    m->first = std::move(first);
    m->sphere.assign(sp.data, sp.data + 4 * S);
    m->kind = std::move(kinds);
    m->pose.resize(12 * T);
    for (std::size_t t = 0; t < T; ++t) std::memcpy(&m->pose[12 * t], P.data + 16 * t, 12 * sizeof(double));
    m->size.assign(Z.data, Z.data + 3 * T);
    m->self_pairs = std::move(self_pairs);
    m->thing_pairs = std::move(thing_pairs);
}

// The lower bounds (...) of states Q (..., n); ValueError("not finite") for NaN or infinity.
nb::object clearances(const kc::Clearance& m, nb::handle Q_in) {
    const kc::np::View Q = kc::np::view(Q_in);
    const std::size_t n = m.chain.n;
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
        for (std::size_t k = from; k < to; ++k) ok &= kc::clearance(m, Q.data + n * k, scratch.data(), out + k);
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

}  // namespace

void bind_clearance(nb::module_& m) {
    nb::class_<kc::Clearance>(m, "Clearance",
                              "A lower bound on a robot's clearance in a scene: its bodies covered by spheres, "
                              "the scene's things exact primitives (scene/spheres.py packs it).")
        .def("__init__", &init_clearance, "chain"_a, "base"_a, "scale"_a, "first"_a, "spheres"_a, "kinds"_a,
             "poses"_a, "sizes"_a, "self_pairs"_a, "thing_pairs"_a,
             "first (n + 2): body b's spheres are [first[b], first[b + 1]); spheres (S, 4): centre in the "
             "body's scaled frame, radius; kinds (T) 0 sphere 1 box 2 capsule 3 cylinder, poses (T, 4, 4), "
             "sizes (T, 3); self_pairs and thing_pairs flattened (a, b) pairs.")
        .def_ro("bodies", &kc::Clearance::bodies)
        .def("clearances", &clearances, "q"_a, "Lower bounds (...) on the clearance of states q (..., n).");
}
