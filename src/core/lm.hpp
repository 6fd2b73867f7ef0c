// Levenberg–Marquardt IK of one target of any kind (residual.hpp) along the canonical chain: the
// damped step, one attempt, the seed and its random restarts, and the verdict. A
// batch is this code looped over targets, each with its own generator seeded from the call's
// seed, so a target's answer does not depend on the batch it came in, its place there or the
// number of threads (the Python reference: ik/single.py, ik/damped.py, ik/limits.py).
#pragma once

#include <cstdint>
#include <vector>

#include "chain.hpp"
#include "closed.hpp"
#include "residual.hpp"

namespace kc {

// Attempt statuses (ik/numeric.py, ik/pool.py); FALLBACK: a damped system that is not positive
// definite in floating point, which the Python side solves by least squares instead.
enum Status : int { CONVERGED = 0, STALLED = 1, LIMIT = 2, AT_LIMIT = 3, OUTSIDE = 4, FALLBACK = -2 };

// The solver's settings, in the order of single.kernel_settings (SETTINGS_LEN doubles).
struct Settings {
    int max_iter = 100;
    double eps2 = 1e-24, lambda0 = 1e-3, down = 10, up = 10, chan = 0.1;
    double tol_p = 1e-6, tol_o = 1e-6, near_p = 1e-2, near_o = 1e-2, margin = 0.05, limit_tol = 1e-9;
    int no_progress = 8, restart_iter = 30, hard = 2;
};
constexpr int SETTINGS_LEN = 15;
Settings settings_from(const double* s);

// xoshiro256** seeded through splitmix64: the restarts' random numbers, the same on every
// platform (std::mt19937 and the <random> distributions are not specified bit for bit).
struct Rng {
    std::uint64_t s[4];
    explicit Rng(std::uint64_t seed);
    double uniform();  // in [0, 1), 53 random bits
};

// One solver: the chain, the task (the kind of target, its weights), the limits, the range of
// random seeds, settings, the first attempt's modes, whether limits are enforced, and the closed
// form seeding the first attempt (a pose target on a 6R arm that has one).
struct Solver {
    Chain chain;
    Task task;
    std::vector<double> lo, hi, slo, shi;
    std::vector<char> rev;  // joints a turn of 2π leaves in place
    Settings set;
    bool clip_first = false, adaptive_first = false, enforce = true, seeded = false;
    bool has_closed = false;
    ClosedForm closed;
};

struct Verdict {
    bool ok = false, inside = false, undecided = false;  // undecided: the SVD must judge singularity
    double pos = 0.0, ori = 0.0;
};

// Δq (n) = (JᵀJ + λI)⁻¹ Jᵀe, or Jᵀ(JJᵀ + λI)⁻¹e when m < n, λ floored at 1e-12‖J‖²_F; false if
// the damped system is not positive definite in floating point. Je (m × n, row-major).
bool damped_step(const double* Je, int m, int n, const double* e, double lam, double* dq);

// q with each revolute joint outside its limits turned by the fewest turns of 2π towards its
// range where that lands it inside (limits.wrap_floats), into out; whether all are then inside.
bool wrap_into(const Solver& sv, const double* q, double* out);

// tr G · ‖L⁻¹‖²_F for G = L Lᵀ the smaller Gram matrix of J (m × n): a bound on σ_max²/σ_min²;
// infinity when G is not positive definite in floating point.
double singular_bound(const double* J, int m, int n);

// The seed (the closed form's branch nearest q0 when seeded), then random restarts until an
// attempt converges inside the limits: the answer into q; returns the status, iterations in it.
// G: the goal (16, residual.hpp's layout).
int solve_one(const Solver& sv, const double* G, const double* q0, int restarts, std::uint64_t rseed, double* q,
              int& iters);

// A fresh FK of q against the goal: errors, limits, and the singularity bound on the task's rows.
Verdict verdict(const Solver& sv, const double* q, const double* G);

}  // namespace kc
