// Levenberg–Marquardt IK of one target (lm.hpp).
//
//   residual      e(q) and J_e(q) of the target's kind (residual.hpp),  E = ½‖e‖²
//   damped step   Δq = (JᵀJ + λI)⁻¹ Jᵀe  (or Jᵀ(JJᵀ + λI)⁻¹e when J has fewer rows), Cholesky
//   one attempt   accept/reject with λ ÷ down or × up (adaptive), or Chan's λ = chan·E; joints on
//                 a limit the descent pushes further out held still (active); steps clipped onto
//                 the limits (clip); stops: converged, a step below ε, no halving of the best
//                 error in `no_progress` iterations, the cap, or converging outside the limits
//   one target    the seed, then random restarts (clipped with accept/reject every other one
//                 past `hard`), wrapping revolute joints by 2π into the limits, polishing a
//                 solution found just outside them
#include "lm.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "trig.hpp"

namespace kc {
namespace {

constexpr double PI = 3.14159265358979323846;
constexpr double TWO_PI = 2.0 * PI;
constexpr double SNAP = 0.5;  // share of a clipped restart's joints that start on a limit (limits.SNAP)
constexpr int MAX_N = 64;     // joints of a chain the stack buffers take (larger: heap)

std::uint64_t splitmix(std::uint64_t& x) {
    std::uint64_t z = (x += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

inline std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

// Scratch of one solve, on the stack for chains up to MAX_N joints.
struct Scratch {
    std::vector<double> heap;
    double small[32 * MAX_N + 128];
    double* at;
    explicit Scratch(int n) {
        const std::size_t need = 32 * static_cast<std::size_t>(n) + 128;
        if (n > MAX_N) heap.resize(need);
        at = n > MAX_N ? heap.data() : small;
    }
    double* take(std::size_t k) {
        double* p = at;
        at += k;
        return p;
    }
};

bool outside(const Solver& sv, const double* q, double* scratch) {
    wrap_into(sv, q, scratch);
    const double m = sv.set.margin;
    for (int i = 0; i < sv.chain.n; ++i)
        if (scratch[i] < sv.lo[i] - m || scratch[i] > sv.hi[i] + m) return true;
    return false;
}

// One attempt from q0 with at most `cap` iterations: the end configuration into q; the status.
int attempt(const Solver& sv, const double* G, const double* q0, int cap, bool clip, bool adaptive, bool active,
            double* q, int& it) {
    const Settings& st = sv.set;
    const int n = sv.chain.n, m = sv.task.m;
    Scratch sc(n);
    double *qt = sc.take(n), *dq = sc.take(n), *qw = sc.take(n);
    double *Je = sc.take(6 * n), *J_t = sc.take(6 * n), *Jh = sc.take(6 * n), *J = sc.take(6 * n);
    const bool direct = sv.task.kind == POSE && !sv.task.weighted;  // J_e is J itself
    double e_a[6], e_b[6], T[16];
    double *e = e_a, *e_t = e_b;
    const double *lo = sv.lo.data(), *hi = sv.hi.data();
    std::memcpy(qt, q0, n * sizeof(double));
    std::memcpy(q, q0, n * sizeof(double));
    double E = INFINITY, lam = st.lambda0, best = INFINITY;
    int since = 0;
    it = 0;
    while (true) {
        double pos, ori;
        const double E_t = residual(sv.chain, sv.task, G, qt, e_t, J_t, T, direct ? J_t : J, pos, ori);
        const bool fresh = E == INFINITY;
        if (!fresh) ++it;
        const bool acc = adaptive ? E_t < E : true;
        if (adaptive && !fresh) lam = acc ? lam / st.down : lam * st.up;
        if (acc) {  // the evaluated state becomes the current one
            std::swap(e, e_t);
            std::swap(Je, J_t);
            E = E_t;
            std::memcpy(q, qt, n * sizeof(double));
        }
        if (!adaptive) lam = st.chan * E;
        if (acc && pos < st.tol_p && ori < st.tol_o) return CONVERGED;
        bool held = false;
        if (active) {  // joints on a limit the descent direction g = J_eᵀe pushes further out
            for (int j = 0; j < n; ++j) {
                double g = 0.0;
                for (int r = 0; r < m; ++r) g += Je[r * n + j] * e[r];
                const bool pin = (q[j] <= lo[j] && g < 0) || (q[j] >= hi[j] && g > 0);
                held = held || pin;
                for (int r = 0; r < m; ++r) Jh[r * n + j] = pin ? 0.0 : Je[r * n + j];
            }
        }
        if (!damped_step(held ? Jh : Je, m, n, e, lam, dq)) return FALLBACK;
        double dd = 0.0, qq = 0.0;
        for (int j = 0; j < n; ++j) {
            double x = q[j] + dq[j];
            if (clip) x = std::min(std::max(x, lo[j]), hi[j]);
            qt[j] = x;
            const double d = clip ? x - q[j] : dq[j];
            dd += d * d;
            qq += q[j] * q[j];
        }
        if (E < 0.5 * best) best = E, since = it;
        if (sv.enforce && pos < st.near_p && ori < st.near_o && outside(sv, q, qw)) return OUTSIDE;
        if ((dd < st.eps2 * 1e12 && dd < st.eps2 * (1.0 + qq)) || it - since >= st.no_progress) {
            bool at = false;
            if (clip)
                for (int j = 0; j < n; ++j) at = at || q[j] <= lo[j] || q[j] >= hi[j];
            return at ? AT_LIMIT : STALLED;
        }
        if (it >= cap) return LIMIT;
    }
}

// The modes of attempt number k: (clipped, adaptive) — the caller's modes for the first,
// Chan's free steps for random seeds, clipped accept/reject for every other one past `hard`.
void modes(const Solver& sv, int k, bool& clip, bool& adaptive) {
    const bool late = k > sv.set.hard && k % 2 == 1;
    clip = (k == 0 && sv.clip_first) || late;
    adaptive = (k == 0 && sv.adaptive_first) || late;
}

}  // namespace

Settings settings_from(const double* s) {
    Settings st;
    st.max_iter = static_cast<int>(s[0]);
    st.eps2 = s[1], st.lambda0 = s[2], st.down = s[3], st.up = s[4], st.chan = s[5];
    st.tol_p = s[6], st.tol_o = s[7], st.near_p = s[8], st.near_o = s[9], st.margin = s[10];
    st.limit_tol = s[11];
    st.no_progress = static_cast<int>(s[12]), st.restart_iter = static_cast<int>(s[13]);
    st.hard = static_cast<int>(s[14]);
    return st;
}

Rng::Rng(std::uint64_t seed) {
    for (auto& w : s) w = splitmix(seed);
}

double Rng::uniform() {
    const std::uint64_t out = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0], s[3] ^= s[1], s[1] ^= s[2], s[0] ^= s[3], s[2] ^= t, s[3] = rotl(s[3], 45);
    return static_cast<double>(out >> 11) * 0x1.0p-53;
}

bool damped_step(const double* Je, int m, int n, const double* e, double lam, double* dq) {
    const int k = n <= m ? n : m;
    double A_small[36], b_small[6], inv_small[6];
    std::vector<double> heap(k > 6 ? k * k + 2 * k : 0);
    double* A = k > 6 ? heap.data() : A_small;
    double* b = k > 6 ? A + k * k : b_small;
    double* inv = k > 6 ? b + k : inv_small;
    for (int i = 0; i < k; ++i) {
        b[i] = 0.0;
        for (int j = 0; j <= i; ++j) A[i * k + j] = 0.0;
    }
    double frob = 0.0;
    if (n <= m) {  // JᵀJ (n × n) and Jᵀe, accumulated row by row of J
        for (int r = 0; r < m; ++r) {
            const double er = e[r];
            for (int i = 0; i < n; ++i) {
                const double x = Je[r * n + i];
                frob += x * x;
                b[i] += x * er;
                for (int j = 0; j <= i; ++j) A[i * k + j] += x * Je[r * n + j];
            }
        }
    } else {  // JJᵀ (m × m), e
        for (int i = 0; i < m; ++i) {
            b[i] = e[i];
            for (int j = 0; j <= i; ++j) {
                double acc = 0.0;
                for (int c = 0; c < n; ++c) acc += Je[i * n + c] * Je[j * n + c];
                A[i * k + j] = acc;
            }
            frob += A[i * k + i];
        }
    }
    const double damp = std::max({lam, 1e-12 * frob, std::numeric_limits<double>::min()});
    for (int j = 0; j < k; ++j) {  // Cholesky A + λI = L Lᵀ in the lower triangle
        double d = A[j * k + j] + damp;
        for (int c = 0; c < j; ++c) d -= A[j * k + c] * A[j * k + c];
        if (!(d > 0.0)) return false;
        d = std::sqrt(d);
        A[j * k + j] = d;
        inv[j] = 1.0 / d;
        for (int i = j + 1; i < k; ++i) {
            double s = A[i * k + j];
            for (int c = 0; c < j; ++c) s -= A[i * k + c] * A[j * k + c];
            A[i * k + j] = s * inv[j];
        }
    }
    for (int i = 0; i < k; ++i) {  // L y = b, then Lᵀ x = y (in b)
        double s = b[i];
        for (int c = 0; c < i; ++c) s -= A[i * k + c] * b[c];
        b[i] = s * inv[i];
    }
    for (int i = k - 1; i >= 0; --i) {
        double s = b[i];
        for (int c = i + 1; c < k; ++c) s -= A[c * k + i] * b[c];
        b[i] = s * inv[i];
    }
    if (n <= m) {
        for (int i = 0; i < n; ++i) dq[i] = b[i];
    } else {
        for (int c = 0; c < n; ++c) {
            double acc = 0.0;
            for (int r = 0; r < m; ++r) acc += Je[r * n + c] * b[r];
            dq[c] = acc;
        }
    }
    return true;
}

bool wrap_into(const Solver& sv, const double* q, double* out) {
    const double tol = sv.set.limit_tol;
    bool inside = true;
    for (int j = 0; j < sv.chain.n; ++j) {
        double x = q[j];
        const double a = sv.lo[j], b = sv.hi[j];
        if (sv.rev[j] && !(a - tol <= x && x <= b + tol)) {
            const double w = x < a ? x + TWO_PI * std::ceil((a - x) / TWO_PI) : x - TWO_PI * std::ceil((x - b) / TWO_PI);
            if (a - tol <= w && w <= b + tol) x = w;
        }
        inside = inside && a - tol <= x && x <= b + tol;
        out[j] = x;
    }
    return inside;
}

double singular_bound(const double* J, int m, int n) {
    const int k = std::min(m, n);
    double G_small[36], x_small[6];  // k ≤ 6 for a task Jacobian; the heap only beyond
    std::vector<double> heap(k > 6 ? k * k + k : 0);
    double* G = k > 6 ? heap.data() : G_small;
    double* x = k > 6 ? heap.data() + k * k : x_small;
    for (int i = 0; i < k; ++i)
        for (int j = 0; j <= i; ++j) {
            double acc = 0.0;
            if (m <= n)
                for (int c = 0; c < n; ++c) acc += J[i * n + c] * J[j * n + c];
            else
                for (int r = 0; r < m; ++r) acc += J[r * n + i] * J[r * n + j];
            G[i * k + j] = acc;
        }
    double trace = 0.0;
    for (int i = 0; i < k; ++i) trace += G[i * k + i];
    for (int j = 0; j < k; ++j) {  // Cholesky G = L Lᵀ in the lower triangle
        double d = G[j * k + j];
        for (int c = 0; c < j; ++c) d -= G[j * k + c] * G[j * k + c];
        if (!(d > 0.0)) return INFINITY;
        d = std::sqrt(d);
        G[j * k + j] = d;
        for (int i = j + 1; i < k; ++i) {
            double s = G[i * k + j];
            for (int c = 0; c < j; ++c) s -= G[i * k + c] * G[j * k + c];
            G[i * k + j] = s / d;
        }
    }
    double inv2 = 0.0;
    for (int j = 0; j < k; ++j) {  // column j of L⁻¹ by forward substitution
        for (int i = 0; i < k; ++i) {
            if (i < j) {
                x[i] = 0.0;
            } else if (i == j) {
                x[i] = 1.0 / G[j * k + j];
            } else {
                double s = 0.0;
                for (int c = j; c < i; ++c) s -= G[i * k + c] * x[c];
                x[i] = s / G[i * k + i];
            }
            inv2 += x[i] * x[i];
        }
    }
    return trace * inv2;
}

int solve_one(const Solver& sv, const double* G, const double* q0, int restarts, std::uint64_t rseed,
              double* q_out, int& iters) {
    const int n = sv.chain.n;
    const Settings& st = sv.set;
    const int short_cap = std::min(st.max_iter, st.restart_iter);
    Scratch sc(n);
    double *qa = sc.take(n), *told = sc.take(n), *qw = sc.take(n), *qp = sc.take(n), *seed = sc.take(n);
    double* scratch = sc.take(n);
    const double* first = q0;
    if (sv.seeded && sv.has_closed && fits(sv.closed, sv.task.kind, sv.task.phi)) {  // its branch nearest q0
        nearest(sv.closed, G, sv.task.kind, q0, sv.enforce, seed);
        first = seed;
    }
    bool clip, adaptive;
    modes(sv, 0, clip, adaptive);
    int it = 0;
    int status = attempt(sv, G, first, st.max_iter, clip, adaptive, false, qa, it);
    iters = it;
    if (status == FALLBACK) return FALLBACK;
    std::memcpy(told, qa, n * sizeof(double));
    int told_status = status;
    Rng rng(rseed);
    auto solved = [](int s) { return s == CONVERGED || s == OUTSIDE; };
    for (int k = 0; k <= restarts; ++k) {
        if (status == CONVERGED) {
            if (!sv.enforce) {
                std::memcpy(q_out, qa, n * sizeof(double));
                return status;
            }
            if (wrap_into(sv, qa, qw)) {
                std::memcpy(q_out, qw, n * sizeof(double));
                return status;
            }
            bool clip_k, adaptive_k;
            modes(sv, k, clip_k, adaptive_k);
            if (!clip_k && !outside(sv, qa, scratch)) {  // just outside: pull it in, clipped, accept/reject
                for (int j = 0; j < n; ++j) qw[j] = std::min(std::max(qw[j], sv.lo[j]), sv.hi[j]);
                const int sp = attempt(sv, G, qw, k == 0 ? st.max_iter : short_cap, true, true, true, qp, it);
                if (sp == FALLBACK) return FALLBACK;
                iters += it;
                if (sp == CONVERGED) {
                    std::memcpy(q_out, qp, n * sizeof(double));
                    return sp;
                }
            }
        }
        if (solved(status) && !solved(told_status)) {
            std::memcpy(told, qa, n * sizeof(double));
            told_status = status;
        }
        if (k == restarts) break;
        modes(sv, k + 1, clip, adaptive);
        for (int j = 0; j < n; ++j) seed[j] = sv.slo[j] + (sv.shi[j] - sv.slo[j]) * rng.uniform();
        if (clip)  // a bound-constrained restart: some joints start on a limit
            for (int j = 0; j < n; ++j) {
                const double u = rng.uniform();
                if (std::isfinite(sv.lo[j]) && std::isfinite(sv.hi[j])) {
                    if (u < SNAP / 2) seed[j] = sv.lo[j];
                    else if (u > 1 - SNAP / 2) seed[j] = sv.hi[j];
                }
            }
        status = attempt(sv, G, seed, short_cap, clip, adaptive, clip, qa, it);
        if (status == FALLBACK) return FALLBACK;
        iters += it;
    }
    if (sv.enforce) wrap_into(sv, told, q_out);
    else std::memcpy(q_out, told, n * sizeof(double));
    return told_status;
}

Verdict verdict(const Solver& sv, const double* q, const double* G) {
    const int n = sv.chain.n, m = sv.task.m;
    Scratch sc(n);
    double *Je = sc.take(6 * n), *Jb = sc.take(6 * n), *J = sc.take(6 * n);
    double e[6], T[16];
    Verdict v;
    residual(sv.chain, sv.task, G, q, e, Je, T, Jb, v.pos, v.ori);
    const double tol = sv.set.limit_tol;
    v.inside = true;
    for (int j = 0; j < n; ++j) v.inside = v.inside && sv.lo[j] - tol <= q[j] && q[j] <= sv.hi[j] + tol;
    v.ok = v.pos < sv.set.tol_p && v.ori < sv.set.tol_o && (v.inside || !sv.enforce);
    for (int r = 0; r < m; ++r)  // the task's rows of J, unweighted (verdict.near_singular's matrix)
        std::memcpy(&J[r * n], &Jb[sv.task.rows[r] * n], n * sizeof(double));
    constexpr double NEAR_SINGULAR = 1e-3;  // verdict.NEAR_SINGULAR: σ_min/σ_max below it is flagged
    v.undecided = !(singular_bound(J, m, n) < 1.0 / (NEAR_SINGULAR * NEAR_SINGULAR));
    return v;
}

}  // namespace kc
