// kinematica._core: the robot handle (its tables packed once) and the equations over it, single
// and batched. A batch is the single-state code looped here, so a state's result does not depend
// on the batch it came in. Inputs: float64 C-contiguous arrays (others are converted);
// outputs: new NumPy arrays owning a buffer made here. NaN or infinity in an input raises
// ValueError("not finite"): the Python side names the input in the project's words.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <cstring>
#include <vector>

#include "batch.hpp"
#include "chain.hpp"
#include "lanes.hpp"
#include "dynamics.hpp"
#include "numpy_api.hpp"
#include "parallel.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace {

using In = nb::ndarray<const double, nb::c_contig, nb::device::cpu>;  // tables, once per robot

constexpr size_t RELEASE_GIL = 256;    // states from which a batch lets other threads run
constexpr size_t THREAD_GRAIN = 4096;  // states a thread is worth (starting one costs ~20–50 µs)

// A new array shaped like x without its last axis, then `tail`; count: the states in it.
nb::object make(const kc::np::View& x, std::initializer_list<Py_intptr_t> tail, double*& data,
                size_t& count) {
    Py_intptr_t shape[8];
    int ndim = 0;
    count = 1;
    for (int k = 0; k + 1 < x.ndim; ++k) count *= static_cast<size_t>(shape[ndim++] = x.shape[k]);
    for (Py_intptr_t t : tail) shape[ndim++] = t;
    return kc::np::empty(ndim, shape, data);
}

// x as float64 C-contiguous data of shape (..., n) (≤ 6 leading axes).
kc::np::View states(nb::handle x, size_t n, const char* what) {
    kc::np::View v = kc::np::view(x);
    if (v.ndim < 1 || v.ndim > 6 || static_cast<size_t>(v.shape[v.ndim - 1]) != n)
        throw nb::index_error(what);  // the Python side checks shapes first: a bug if seen
    return v;
}

[[noreturn]] void not_finite() { throw nb::value_error("not finite"); }

// Run body(k) for k in [0, count): in this thread for a small batch; for a large one without the
// GIL, over every core (kc::parallel_chunks: each state's result depends on it alone). states:
// the states behind the count (blocks of them for each_posed). False if any body returned false.
template <class Body>
bool each(size_t count, Body body, size_t states = 0) {
    states = states ? states : count;
    if (states < RELEASE_GIL) {
        bool ok = true;
        for (size_t k = 0; k < count; ++k) ok &= body(k);
        return ok;
    }
    nb::gil_scoped_release unlocked;
    const size_t workers = kc::workers_for(states, THREAD_GRAIN);
    return kc::parallel_chunks(count, std::min(workers, count), [&](size_t from, size_t to) {
        bool ok = true;
        for (size_t k = from; k < to; ++k) ok &= body(k);
        return ok;
    });
}

// body(k, s, c) for each configuration k of Q (count × n), given the sines and cosines of its
// angles, computed a block at a time (kc::angles: the same bits for a configuration in any block);
// each thread has its own block buffers.
template <class Body>
bool each_posed(const kc::Chain& ch, const double* Q, size_t count, Body body) {
    constexpr size_t BLOCK = 64;
    const size_t n = ch.n, per = (count < BLOCK ? count : BLOCK) * n;
    const size_t blocks = (count + BLOCK - 1) / BLOCK;
    auto run = [&](size_t from, size_t to) {
        double small[3 * 128];
        std::vector<double> big(3 * per > 3 * 128 ? 3 * per : 0);
        double* buf = big.empty() ? small : big.data();
        double *theta = buf, *s = buf + per, *c = buf + 2 * per;
        bool ok = true;
        for (size_t b = from; b < to; ++b) {
            const size_t k0 = b * BLOCK, m = count - k0 < BLOCK ? count - k0 : BLOCK;
            kc::angles(ch, Q + k0 * n, m, theta, s, c);
            for (size_t j = 0; j < m; ++j) ok &= body(k0 + j, s + j * n, c + j * n);
        }
        return ok;
    };
    if (count < RELEASE_GIL) return run(0, blocks);
    nb::gil_scoped_release unlocked;
    return kc::parallel_chunks(blocks, std::min(kc::workers_for(count, THREAD_GRAIN), blocks), run);
}

void copy_top(const In& A, double* out) {  // the top three rows of a 4 × 4
    if (A.ndim() != 2 || A.shape(0) != 4 || A.shape(1) != 4) throw nb::index_error("expected a 4 x 4");
    std::memcpy(out, A.data(), 12 * sizeof(double));
}

void copy_tops(const In& A, size_t count, std::vector<double>& out) {  // (count, 4, 4) → count × 12
    if (A.ndim() != 3 || A.shape(0) != count || A.shape(1) != 4 || A.shape(2) != 4)
        throw nb::index_error("expected (count, 4, 4)");
    out.resize(12 * count);
    for (size_t i = 0; i < count; ++i) std::memcpy(&out[12 * i], A.data() + 16 * i, 12 * sizeof(double));
}

kc::Chain pack_chain(const In& C, const In& joints, const In& before, const In& after, const In& base,
                     const In& tool) {
    kc::Chain made;
    kc::Chain* ch = &made;
    if (joints.ndim() != 2 || joints.shape(1) < 3) throw nb::index_error("joints: expected (n, 3)");
    const size_t n = joints.shape(0);
    ch->n = static_cast<int>(n);
    copy_tops(C, n + 1, ch->C);
    copy_tops(before, n, ch->before);
    copy_tops(after, n, ch->after);
    copy_top(base, ch->base);
    copy_top(tool, ch->tool);
    const size_t w = joints.shape(1);
    for (size_t i = 0; i < n; ++i) {
        ch->kind.push_back(static_cast<int>(joints.data()[w * i]));
        ch->offset.push_back(joints.data()[w * i + 1]);
        ch->pitch.push_back(joints.data()[w * i + 2]);
    }
    return made;
}

void init_chain(kc::Chain* ch, const In& C, const In& joints, const In& before, const In& after,
                const In& base, const In& tool) {
    new (ch) kc::Chain(pack_chain(C, joints, before, after, base, tool));  // built before placed
}

// body(from, to) over the states [0, count) of a batch: in this thread for a small one; for a
// large one without the GIL, over every core in runs of whole lane blocks (kc::LANES states).
template <class Body>
bool runs(size_t count, Body body) {
    if (count < RELEASE_GIL) return body(size_t{0}, count);
    nb::gil_scoped_release unlocked;
    const size_t blocks = (count + kc::LANES - 1) / kc::LANES;
    const size_t workers = std::min(kc::workers_for(count, THREAD_GRAIN), blocks);
    return kc::parallel_chunks(blocks, workers, [&](size_t from, size_t to) {
        return body(from * kc::LANES, std::min(count, to * kc::LANES));
    });
}

// Poses T (count × 16) and, unless J is null, Jacobians J (count × 6 × n) in `frame` of Q:
// one state by the single-state code, more by lane blocks (the same bits either way).
bool posed_states(const kc::Chain& ch, const double* Q, size_t count, int frame, double* T, double* J) {
    const size_t n = ch.n;
    if (count == 1) {
        double small[9 * 32];  // the stack up to 32 joints
        std::vector<double> big(n > 32 ? 9 * n : 0);
        double *theta = n > 32 ? big.data() : small, *s = theta + n, *c = s + n, *scratch = c + n;
        double P[16];
        kc::angles(ch, Q, 1, theta, s, c);
        if (!J) return kc::pose(ch, theta, s, c, T);
        const bool ok = kc::pose_jacobian(ch, theta, s, c, T ? T : P, J);
        kc::reframe(ch.n, T ? T : P, J, frame, scratch);
        return ok;
    }
    return runs(count, [&](size_t from, size_t to) {
        double* Tk = T ? T + 16 * from : nullptr;
        return J ? kc::jacobian_many(ch, Q + n * from, to - from, frame, Tk, J + 6 * n * from)
                 : kc::fk_many(ch, Q + n * from, to - from, Tk);
    });
}

nb::object fk(const kc::Chain& ch, nb::handle q_in) {
    const kc::np::View q = states(q_in, ch.n, "q");
    double* T;
    size_t count;
    nb::object out = make(q, {4, 4}, T, count);
    if (!posed_states(ch, q.data, count, kc::BASE, T, nullptr)) not_finite();
    return out;
}

nb::tuple fk_jacobian(const kc::Chain& ch, nb::handle q_in, int frame) {
    const kc::np::View q = states(q_in, ch.n, "q");
    double *T, *J;
    size_t count;
    nb::object Tout = make(q, {4, 4}, T, count);
    nb::object Jout = make(q, {6, ch.n}, J, count);
    if (!posed_states(ch, q.data, count, frame, T, J)) not_finite();
    return nb::make_tuple(Tout, Jout);
}

nb::object jacobian(const kc::Chain& ch, nb::handle q_in, int frame) {
    const kc::np::View q = states(q_in, ch.n, "q");
    double* J;
    size_t count;
    nb::object Jout = make(q, {6, ch.n}, J, count);
    if (!posed_states(ch, q.data, count, frame, nullptr, J)) not_finite();
    return Jout;
}

nb::object frames(const kc::Chain& ch, nb::handle q_in) {
    const kc::np::View q = states(q_in, ch.n, "q");
    double* F;
    size_t count;
    nb::object out = make(q, {ch.n + 2, 4, 4}, F, count);
    const double* Q = q.data;
    const size_t stride = 16 * (ch.n + 2);
    if (!each_posed(ch, Q, count, [&](size_t k, const double* s, const double* c) {
            return kc::frames(ch, Q + k * ch.n, s, c, F + stride * k);
        }))
        not_finite();
    return out;
}

void init_dynamics(kc::Dynamics* dy, const In& D, const In& gravity) {
    if (D.ndim() != 2 || D.shape(0) < 2 || D.shape(1) != kc::col::WIDTH)
        throw nb::index_error("D: expected (n + 1, WIDTH)");
    if (gravity.size() != 3) throw nb::index_error("gravity: (3,)");
    new (dy) kc::Dynamics();
    dy->n = static_cast<int>(D.shape(0) - 1);
    dy->D.assign(D.data(), D.data() + D.size());
    for (int k = 0; k < 3; ++k) dy->gravity[k] = gravity.data()[k];
    for (int i = 0; i < dy->n; ++i) {
        const double* row = dy->row(i);
        dy->rough = dy->rough || row[kc::col::ARMATURE] != 0.0 || row[kc::col::VISCOUS] != 0.0 ||
                    row[kc::col::COULOMB] != 0.0;
    }
}

// τ (..., n) of states q, qd, qdd (..., n), one gravity (3) and a wrench None, (6) or (..., 6).
nb::object rne(const kc::Dynamics& dy, nb::handle q_in, nb::handle qd_in, nb::handle qdd_in, nb::handle g_in,
               nb::handle wrench_in, bool friction) {
    const size_t n = dy.n;
    const kc::np::View q = states(q_in, n, "q"), qd = kc::np::view(qd_in), qdd = kc::np::view(qdd_in);
    const kc::np::View g = kc::np::view(g_in);
    if (qd.size() != q.size() || qdd.size() != q.size()) throw nb::index_error("qd, qdd: q's shape");
    if (g.size() != 3) throw nb::index_error("gravity: (3,)");
    double* tau;
    size_t count;
    nb::object out = make(q, {dy.n}, tau, count);
    const double* W = nullptr;
    size_t w_step = 0;
    kc::np::View wrench;
    if (!wrench_in.is_none()) {
        wrench = kc::np::view(wrench_in);
        W = wrench.data;
        if (wrench.size() == 6 * count && wrench.ndim > 1) w_step = 6;
        else if (wrench.size() != 6) throw nb::index_error("wrench: (6,) or (..., 6)");
    }
    const double *Q = q.data, *QD = qd.data, *QDD = qdd.data, *G = g.data;
    const bool ok = count == 1 ? kc::rne(dy, Q, QD, QDD, G, W, friction, tau)
                               : runs(count, [&](size_t from, size_t to) {
                                     return kc::rne_many(dy, Q + n * from, QD + n * from, QDD + n * from, to - from,
                                                         G, W ? W + w_step * from : nullptr, w_step, friction,
                                                         tau + n * from);
                                 });
    if (!ok) not_finite();
    return out;
}

// km.rne's default call (standard gravity, no wrench) on three float64 arrays of shape (n,)
// exactly: the checks here, in C++, instead of in Python. None when an input is anything else
// (the general path then checks and converts it).
nb::object rne_one(const kc::Dynamics& dy, nb::handle q, nb::handle qd, nb::handle qdd, nb::handle friction) {
    const double *Q = kc::np::exact(q, dy.n), *QD = kc::np::exact(qd, dy.n), *QDD = kc::np::exact(qdd, dy.n);
    if (!Q || !QD || !QDD) return nb::none();
    const int on = PyObject_IsTrue(friction.ptr());
    if (on < 0) throw nb::python_error();
    const Py_intptr_t shape[1] = {dy.n};
    double* tau;
    nb::object out = kc::np::empty(1, shape, tau);
    if (!kc::rne(dy, Q, QD, QDD, dy.gravity, nullptr, on && dy.rough, tau)) not_finite();
    return out;
}

// km.mass_matrix's commonest call on a float64 array of shape (n,) exactly, checked here in C++;
// None for any other input (the general path checks and converts it).
nb::object mass_one(const kc::Dynamics& dy, nb::handle q) {
    const double* Q = kc::np::exact(q, dy.n);
    if (!Q) return nb::none();
    const Py_intptr_t shape[2] = {dy.n, dy.n};
    double* M;
    nb::object out = kc::np::empty(2, shape, M);
    if (!kc::mass_matrix(dy, Q, M)) not_finite();
    return out;
}

nb::object mass_matrix(const kc::Dynamics& dy, nb::handle q_in) {
    const size_t n = dy.n;
    const kc::np::View q = states(q_in, n, "q");
    double* M;
    size_t count;
    nb::object out = make(q, {dy.n, dy.n}, M, count);
    const double* Q = q.data;
    if (!each(count, [&](size_t k) { return kc::mass_matrix(dy, Q + k * n, M + n * n * k); })) not_finite();
    return out;
}

}  // namespace

void bind_ik(nb::module_& m);         // ik_module.cpp
void bind_clearance(nb::module_& m);  // clearance_module.cpp

NB_MODULE(_core, m) {
    // Robot handles live in their robots' caches; a test run ends with some robots still held by
    // module-level caches and reference cycles that Python does not collect at exit, which
    // nanobind's shutdown check reports as leaks. Calls themselves leak nothing (RSS flat over
    // 10^6 fk/jacobian/rne/mass_matrix calls), so the report is noise.
    nb::set_leak_warnings(false);
    kc::np::load();
    m.doc() = "Kinematica's compiled core: the robot handle and FK, Jacobians, RNE, CRBA and IK over it.";
    m.attr("BASE") = static_cast<int>(kc::BASE);
    m.attr("TOOL") = static_cast<int>(kc::TOOL);
    m.attr("SPACE") = static_cast<int>(kc::SPACE);
    m.attr("BODY") = static_cast<int>(kc::BODY);
    m.attr("WIDTH") = kc::col::WIDTH;

    nb::class_<kc::Chain>(m, "Chain", "A robot's kinematic tables, packed once.")
        .def("__init__", &init_chain, "C"_a, "joints"_a, "before"_a, "after"_a, "base"_a, "tool"_a,
             "C (n + 1, 4, 4): C0 … Cn; joints (n, 3): kind, offset, pitch; before, after (n, 4, 4): "
             "B_i, A_i; base, tool (4, 4).")
        .def_ro("n", &kc::Chain::n)
        .def("fk", &fk, "q"_a, "End poses (..., 4, 4) of q (..., n).")
        .def("jacobian", &jacobian, "q"_a, "frame"_a = 0, "Jacobians (..., 6, n) in frame 0 base, 1 tool, 2 space, 3 body.")
        .def("fk_jacobian", &fk_jacobian, "q"_a, "frame"_a = 0, "(poses, Jacobians) from one pass.")
        .def("frames", &frames, "q"_a, "Every frame (..., n + 2, 4, 4): base, link frames, tool.");

    nb::class_<kc::Dynamics>(m, "Dynamics", "A robot's dynamic tables (dynamics/packing.py), packed once.")
        .def("__init__", &init_dynamics, "D"_a, "gravity"_a)
        .def("rne_one", &rne_one, "q"_a, "qd"_a, "qdd"_a, "friction"_a,
             "km.rne's default call on three float64 arrays (n,); None for other inputs.")
        .def_ro("n", &kc::Dynamics::n)
        .def("rne", &rne, "q"_a, "qd"_a, "qdd"_a, "gravity"_a, "wrench"_a.none(), "friction"_a,
             "Joint torques (..., n) by recursive Newton–Euler, SI.")
        .def("mass_matrix", &mass_matrix, "q"_a, "M(q) (..., n, n) by the composite-rigid-body algorithm, SI.")
        .def("mass_one", &mass_one, "q"_a, "km.mass_matrix's call on a float64 array (n,); None for other inputs.");

    bind_ik(m);
    bind_clearance(m);
}
