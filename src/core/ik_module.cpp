// The IK part of kinematica._core: the closed forms and the Levenberg–Marquardt solver over a
// robot handle (lm.hpp, closed.hpp). Inputs are checked by the Python side (ik/core.py); shapes
// are checked again here, and a wrong one raises IndexError (a bug if ever seen).
#include <nanobind/nanobind.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "closed.hpp"
#include "lm.hpp"
#include "numpy_api.hpp"
#include "parallel.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace {

using kc::np::sized;

nb::object new_array(std::initializer_list<Py_intptr_t> shape, double*& data) {
    Py_intptr_t dims[8];
    int ndim = 0;
    for (Py_intptr_t d : shape) dims[ndim++] = d;
    return kc::np::empty(ndim, dims, data);
}

void init_closed(kc::ClosedForm* k, nb::handle S, nb::handle F, nb::handle P, nb::handle joints, double limit_tol,
                 double length_tol, double rounding) {
    new (k) kc::ClosedForm();
    std::memcpy(k->S, sized(S, kc::cf::S_LEN, "S: (29,)").data, sizeof k->S);
    std::memcpy(k->F, sized(F, 54, "F: (6, 3, 3)").data, sizeof k->F);
    std::memcpy(k->P, sized(P, 6, "P: (2, 3)").data, sizeof k->P);
    std::memcpy(k->joints, sized(joints, 6 * kc::cf::JOINT_LEN, "joints: (6, 5)").data, sizeof k->joints);
    k->limit_tol = limit_tol, k->length_tol = length_tol, k->rounding = rounding;
    const int kind = static_cast<int>(k->S[kc::cf::KIND]), n = k->n();
    if (kind < kc::cf::SPHERICAL || kind > kc::cf::PLANAR || n < 2 || n > kc::MAX_JOINTS)
        throw nb::value_error("S: an unknown closed form or joint count");
}

void check_kind(const kc::ClosedForm& k, int kind, bool phi) {
    if (!kc::fits(k, kind, phi)) throw nb::value_error("the closed form does not take this kind of target");
}

// The branches of one goal G (16) of a kind the form takes, near ref (n,):
// (Q (count, n), reach (count,) as a list, off axis).
nb::tuple closed_candidates(const kc::ClosedForm& k, nb::handle G_in, int kind, bool phi, nb::handle ref_in) {
    check_kind(k, kind, phi);
    const int n = k.n(), count = k.count();
    const kc::np::View G = sized(G_in, 16, "goal: (16,) or (4, 4)"), ref = sized(ref_in, n, "ref: (n,)");
    double* Q;
    nb::object out = new_array({count, n}, Q);
    bool reach[kc::MAX_BRANCHES];
    const bool off_axis = kc::candidates(k, G.data, kind, ref.data, Q, reach);
    return nb::make_tuple(out, std::vector<bool>(reach, reach + count), off_axis);
}

// The reachable branch inside the limits (when enforce) nearest seed (n,): (q (n,), found).
nb::tuple closed_nearest(const kc::ClosedForm& k, nb::handle G_in, int kind, bool phi, nb::handle seed_in,
                         bool enforce) {
    check_kind(k, kind, phi);
    const int n = k.n();
    const kc::np::View G = sized(G_in, 16, "goal: (16,) or (4, 4)"), seed = sized(seed_in, n, "seed: (n,)");
    double* q;
    nb::object out = new_array({n}, q);
    const bool found = kc::nearest(k, G.data, kind, seed.data, enforce, q);
    return nb::make_tuple(out, found);
}

void init_solver(kc::Solver* sv, const kc::Chain& chain, int kind, bool phi, nb::handle weights_in,
                 nb::handle bounds_in, nb::handle settings_in, bool clip_first, bool adaptive_first, bool enforce,
                 bool seeded, const kc::ClosedForm* closed) {
    if (kind < kc::POSE || kind > kc::PLANAR) throw nb::value_error("kind: 0 pose, 1 position, 2 approach, 3 planar");
    kc::np::View weights;
    if (!weights_in.is_none()) weights = sized(weights_in, 6, "weights: (6,)");
    new (sv) kc::Solver();
    const int n = chain.n;
    sv->chain = chain;
    sv->task = kc::task_of(kind, phi, weights.data);
    const kc::np::View b = sized(bounds_in, 4 * n, "bounds: (4, n)");
    sv->lo.assign(b.data, b.data + n);
    sv->hi.assign(b.data + n, b.data + 2 * n);
    sv->slo.assign(b.data + 2 * n, b.data + 3 * n);
    sv->shi.assign(b.data + 3 * n, b.data + 4 * n);
    for (int j = 0; j < n; ++j) sv->rev.push_back(chain.kind[j] == kc::REVOLUTE);
    sv->set = kc::settings_from(sized(settings_in, kc::SETTINGS_LEN, "settings: (15,)").data);
    sv->clip_first = clip_first, sv->adaptive_first = adaptive_first, sv->enforce = enforce;
    sv->seeded = seeded;
    if (closed && closed->n() != n) throw nb::value_error("closed: another joint count than the chain's");
    sv->has_closed = closed != nullptr;
    if (closed) sv->closed = *closed;
}

// One goal G (16: a pose T (4, 4) is its own; residual.hpp) from q0 (n,): (q, status,
// iterations, ok, position error, orientation error, inside, singularity undecided); status
// FALLBACK: the Python side solves it.
nb::tuple solve(const kc::Solver& sv, nb::handle G_in, nb::handle q0_in, int restarts, std::uint64_t rseed) {
    const int n = sv.chain.n;
    const kc::np::View G = sized(G_in, 16, "goal: (16,) or (4, 4)"), q0 = sized(q0_in, n, "q0: (n,)");
    double* q;
    nb::object out = new_array({n}, q);
    int iters = 0;
    const int status = kc::solve_one(sv, G.data, q0.data, restarts, rseed, q, iters);
    if (status == kc::FALLBACK) return nb::make_tuple(out, status, iters, false, 0.0, 0.0, false, false);
    const kc::Verdict v = kc::verdict(sv, q, G.data);
    return nb::make_tuple(out, status, iters, v.ok, v.pos, v.ori, v.inside, v.undecided);
}

// N goals (N, 16) or poses (N, 4, 4) from seeds (N, n): (q (N, n), statuses (N,), iterations
// (N,)), floats.
// Each target restarts from its own generator seeded with rseed, so threads change nothing.
nb::tuple solve_many(const kc::Solver& sv, nb::handle T_in, nb::handle seeds_in, int restarts, std::uint64_t rseed,
                     int threads) {
    const int n = sv.chain.n;
    const kc::np::View T = kc::np::view(T_in);
    const std::size_t N = T.size() / 16;
    if (T.size() != 16 * N) throw nb::index_error("goals: (N, 16) or (N, 4, 4)");
    const kc::np::View seeds = sized(seeds_in, N * n, "seeds: (N, n)");
    double *q, *status, *iters;
    nb::object q_out = new_array({static_cast<Py_intptr_t>(N), n}, q);
    nb::object s_out = new_array({static_cast<Py_intptr_t>(N)}, status);
    nb::object i_out = new_array({static_cast<Py_intptr_t>(N)}, iters);
    auto run = [&](std::size_t from, std::size_t to) {
        for (std::size_t t = from; t < to; ++t) {
            int it = 0;
            status[t] = kc::solve_one(sv, T.data + 16 * t, seeds.data + n * t, restarts, rseed, q + n * t, it);
            iters[t] = it;
        }
    };
    {
        nb::gil_scoped_release unlocked;
        kc::parallel_chunks(N, kc::workers_for(N, 16, threads), [&](std::size_t from, std::size_t to) {
            run(from, to);  // a target is worth a thread from 16 on (a solve takes ~10–50 µs)
            return true;
        });
    }
    return nb::make_tuple(q_out, s_out, i_out);
}

// The verdicts of N configurations q (N, n) against goals (N, 16): (N, 5) floats — ok, position
// error, orientation error, inside the limits, singularity undecided (the SVD must judge it).
nb::object verdicts(const kc::Solver& sv, nb::handle G_in, nb::handle q_in) {
    const int n = sv.chain.n;
    const kc::np::View G = kc::np::view(G_in);
    const std::size_t N = G.size() / 16;
    if (G.size() != 16 * N) throw nb::index_error("goals: (N, 16) or (N, 4, 4)");
    const kc::np::View q = sized(q_in, N * n, "q: (N, n)");
    double* out;
    nb::object result = new_array({static_cast<Py_intptr_t>(N), 5}, out);
    nb::gil_scoped_release unlocked;
    kc::parallel_chunks(N, kc::workers_for(N, 256), [&](std::size_t from, std::size_t to) {
        for (std::size_t t = from; t < to; ++t) {
            const kc::Verdict v = kc::verdict(sv, q.data + n * t, G.data + 16 * t);
            double* o = out + 5 * t;
            o[0] = v.ok, o[1] = v.pos, o[2] = v.ori, o[3] = v.inside, o[4] = v.undecided;
        }
        return true;
    });
    return result;
}

// The reach test's distances of goals G (N, 16) or one (4, 4) from p1 (3,): (N,) (residual.hpp).
nb::object reach_distances(nb::handle G_in, nb::handle p1_in, bool planar) {
    const kc::np::View G = kc::np::view(G_in), p1 = sized(p1_in, 3, "p1: (3,)");
    const std::size_t N = G.size() / 16;
    if (G.size() != 16 * N) throw nb::index_error("goals: (N, 16) or (4, 4)");
    double* d;
    nb::object out = new_array({static_cast<Py_intptr_t>(N)}, d);
    for (std::size_t t = 0; t < N; ++t) d[t] = kc::reach_distance(G.data + 16 * t, p1.data, planar);
    return out;
}

// The pose error of q towards T: (e (6,), pose (4, 4), Jacobian (6, n), E, position, orientation).
nb::tuple pose_error(const kc::Chain& ch, nb::handle q_in, nb::handle T_in) {
    const int n = ch.n;
    const kc::np::View q = sized(q_in, n, "q: (n,)"), T = sized(T_in, 16, "T: (4, 4)");
    double *e, *P, *J, pos, ori;
    nb::object e_out = new_array({6}, e), P_out = new_array({4, 4}, P), J_out = new_array({6, n}, J);
    const kc::Task pose = kc::task_of(kc::POSE, false, nullptr);
    const double E = kc::residual(ch, pose, T.data, q.data, e, J, P, J, pos, ori);
    return nb::make_tuple(e_out, P_out, J_out, E, pos, ori);
}

// Δq (n,) for Je (m, n), e (m,) and damping λ; None if the damped system is not positive definite.
nb::object damped_step(nb::handle Je_in, nb::handle e_in, double lam) {
    const kc::np::View Je = kc::np::view(Je_in);
    if (Je.ndim != 2) throw nb::index_error("Je: (m, n)");
    const int m = static_cast<int>(Je.shape[0]), n = static_cast<int>(Je.shape[1]);
    const kc::np::View e = sized(e_in, m, "e: (m,)");
    double* dq;
    nb::object out = new_array({n}, dq);
    if (!kc::damped_step(Je.data, m, n, e.data, lam, dq)) return nb::none();
    return out;
}

double singular_bound(nb::handle J_in) {
    const kc::np::View J = kc::np::view(J_in);
    if (J.ndim != 2) throw nb::index_error("J: (m, n)");
    return kc::singular_bound(J.data, static_cast<int>(J.shape[0]), static_cast<int>(J.shape[1]));
}

}  // namespace

void bind_ik(nb::module_& m) {
    m.attr("FALLBACK") = static_cast<int>(kc::FALLBACK);
    m.attr("SETTINGS_LEN") = kc::SETTINGS_LEN;
    nb::class_<kc::ClosedForm>(m, "ClosedForm",
                               "A closed form packed once: a 6R arm's (spherical wrist, UR type), a 5-DOF "
                               "yaw-pitch-pitch-pitch-roll arm's or a planar 2R/3R arm's.")
        .def("__init__", &init_closed, "S"_a, "F"_a, "P"_a, "joints"_a, "limit_tol"_a, "length_tol"_a, "rounding"_a)
        .def_prop_ro("n", &kc::ClosedForm::n)
        .def_prop_ro("count", &kc::ClosedForm::count)
        .def("fits", &kc::fits, "kind"_a, "phi"_a, "Whether it takes targets of this kind (0 pose … 3 planar).")
        .def("candidates", &closed_candidates, "goal"_a, "kind"_a, "phi"_a, "ref"_a,
             "The branches of a goal (16,) near ref (n,): (Q (count, n), reach, off axis).")
        .def("nearest", &closed_nearest, "goal"_a, "kind"_a, "phi"_a, "seed"_a, "enforce"_a,
             "The reachable branch (inside the limits if enforce) nearest seed (n,): (q, found).");
    nb::class_<kc::Solver>(m, "Solver", "Levenberg–Marquardt for one kind of target on one robot, its settings packed.")
        .def("__init__", &init_solver, "chain"_a, "kind"_a, "phi"_a, "weights"_a.none(), "bounds"_a, "settings"_a,
             "clip_first"_a, "adaptive_first"_a, "enforce"_a, "seeded"_a, "closed"_a.none())
        .def("solve", &solve, "goal"_a, "q0"_a, "restarts"_a, "rseed"_a,
             "(q, status, iterations, ok, position error, orientation error, inside, singularity undecided).")
        .def("solve_many", &solve_many, "goals"_a, "seeds"_a, "restarts"_a, "rseed"_a, "threads"_a = 0,
             "(q (N, n), status (N,), iterations (N,)) of N goals (N, 16) from seeds (N, n).")
        .def("verdicts", &verdicts, "goals"_a, "q"_a,
             "(N, 5): ok, position error, orientation error, inside, singularity undecided.");
    m.def("reach_distances", &reach_distances, "goals"_a, "p1"_a, "planar"_a,
          "‖p_d − p1‖ of each goal (N, 16) or of one (4, 4), on x, y alone if planar: (N,).");
    m.def("pose_error", &pose_error, "chain"_a, "q"_a, "T"_a, "(e, pose, Jacobian, E, position, orientation).");
    m.def("damped_step", &damped_step, "Je"_a, "e"_a, "lam"_a, "Δq, or None if not positive definite.");
    m.def("singular_bound", &singular_bound, "J"_a, "tr G · ‖L⁻¹‖²_F of the smaller Gram matrix G of J.");
}
