// The IK residual for every kind of target (residual.hpp).
#include "residual.hpp"

#include <cmath>
#include <cstring>
#include <vector>

namespace kc {
namespace {

constexpr double PI = 3.14159265358979323846;
constexpr int MAX_N = 64;  // joints the stack buffers take (larger: heap)

// Pose and base-frame Jacobian of q: the sines and cosines of its angles first (chain.hpp).
void posed(const Chain& ch, const double* q, double* T, double* J) {
    double buf[3 * MAX_N];
    std::vector<double> big(ch.n > MAX_N ? 3 * ch.n : 0);
    double* b = ch.n > MAX_N ? big.data() : buf;
    angles(ch, q, 1, b, b + ch.n, b + 2 * ch.n);
    pose_jacobian(ch, b, b + ch.n, b + 2 * ch.n, T, J);
}

// Python's (x + π) % 2π − π: an angle difference in [−π, π).
double wrap(double x) {
    double m = std::fmod(x + PI, 2 * PI);
    if (m != 0.0 && m < 0) m += 2 * PI;
    return m - PI;
}

// The orientation part of an approach target: e = ∠(a, a_d) · (a × a_d)/‖a × a_d‖ into e (3);
// at ∠ = π, where a × a_d vanishes, any direction normal to a turns it towards a_d.
double approach_error(const double* a, const double* ad, double* e) {
    double ax[3] = {a[1] * ad[2] - a[2] * ad[1], a[2] * ad[0] - a[0] * ad[2], a[0] * ad[1] - a[1] * ad[0]};
    double s = std::sqrt(ax[0] * ax[0] + ax[1] * ax[1] + ax[2] * ax[2]);
    const double ang = std::atan2(s, a[0] * ad[0] + a[1] * ad[1] + a[2] * ad[2]);
    if (s < 1e-12 && ang > 1) {
        const double u[3] = {std::fabs(a[0]) < 0.9 ? 1.0 : 0.0, std::fabs(a[0]) < 0.9 ? 0.0 : 1.0, 0.0};
        ax[0] = a[1] * u[2] - a[2] * u[1], ax[1] = a[2] * u[0] - a[0] * u[2], ax[2] = a[0] * u[1] - a[1] * u[0];
        s = std::sqrt(ax[0] * ax[0] + ax[1] * ax[1] + ax[2] * ax[2]);
    }
    const double k = s > 1e-15 ? ang / s : 0.0;
    for (int i = 0; i < 3; ++i) e[i] = ax[i] * k;
    return ang;
}

}  // namespace

double rotation_log(const double* m, double* w) {
    const double v0 = m[7] - m[5], v1 = m[2] - m[6], v2 = m[3] - m[1];
    const double c = 0.5 * (m[0] + m[4] + m[8] - 1.0);
    const double s2 = std::sqrt(v0 * v0 + v1 * v1 + v2 * v2);
    const double theta = std::atan2(0.5 * s2, c);
    if (c >= -0.99) {
        const double k = s2 >= 1e-12 ? theta / s2 : 0.5;
        w[0] = k * v0, w[1] = k * v1, w[2] = k * v2;
        return theta;
    }
    double a0, a1, a2, pivot;  // near π: the column of (M + Mᵀ)/2 − cos θ I with the largest diagonal
    if (m[0] >= m[4] && m[0] >= m[8]) {
        a0 = m[0] - c, a1 = 0.5 * (m[3] + m[1]), a2 = 0.5 * (m[6] + m[2]);
        pivot = a0;
    } else if (m[4] >= m[8]) {
        a0 = 0.5 * (m[1] + m[3]), a1 = m[4] - c, a2 = 0.5 * (m[7] + m[5]);
        pivot = a1;
    } else {
        a0 = 0.5 * (m[2] + m[6]), a1 = 0.5 * (m[5] + m[7]), a2 = m[8] - c;
        pivot = a2;
    }
    double k = theta / std::sqrt(std::fmax(pivot * (1.0 - c), 1e-300));
    if (a0 * v0 + a1 * v1 + a2 * v2 < 0) k = -k;  // signed by the skew part
    w[0] = k * a0, w[1] = k * a1, w[2] = k * a2;
    return theta;
}

Task task_of(int kind, bool phi, const double* weights) {
    Task t;
    t.kind = kind;
    t.phi = kind == PLANAR && phi;
    if (kind == POSITION) t.m = 3;
    if (kind == PLANAR) {
        t.m = t.phi ? 3 : 2;
        t.rows[2] = 5;
    }
    if (weights) {
        t.weighted = true;
        for (int i = 0; i < 6; ++i) {
            t.w[i] = weights[i];
            t.masked = t.masked || (weights[i] == 0 && (kind == POSE || kind == POSITION));
        }
    }
    return t;
}

double residual(const Chain& ch, const Task& task, const double* G, const double* q, double* e, double* Je,
                double* T, double* J, double& pos, double& ori) {
    const int n = ch.n;
    posed(ch, q, T, J);
    const double d[3] = {G[3] - T[3], G[7] - T[7], G[11] - T[11]};
    double full[6] = {d[0], d[1], d[2], 0.0, 0.0, 0.0};  // the residual on all six axes
    ori = 0.0;
    if (task.kind == POSE) {
        double M[9];  // R_d Rᵀ
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j)
                M[3 * i + j] = G[4 * i] * T[4 * j] + G[4 * i + 1] * T[4 * j + 1] + G[4 * i + 2] * T[4 * j + 2];
        ori = rotation_log(M, full + 3);
    } else if (task.kind == APPROACH) {
        const double a[3] = {T[2], T[6], T[10]};
        ori = approach_error(a, G + 12, full + 3);
    } else if (task.kind == PLANAR && task.phi) {
        full[5] = wrap(G[15] - std::atan2(T[4], T[0]));
        ori = std::fabs(full[5]);
    }
    const double pos2 = task.kind == PLANAR ? d[0] * d[0] + d[1] * d[1] : d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
    pos = std::sqrt(pos2);
    if (!std::isfinite(pos2))  // a far finite target (1e308): the squares overflow, hypot does not
        pos = task.kind == PLANAR ? std::hypot(d[0], d[1]) : std::hypot(d[0], d[1], d[2]);
    if (task.masked) {  // an axis of weight 0 is free: it counts in neither error
        double p2 = 0.0, o2 = 0.0;
        for (int i = 0; i < 3; ++i) {
            if (task.w[i] > 0) p2 += d[i] * d[i];
            if (task.w[3 + i] > 0) o2 += full[3 + i] * full[3 + i];
        }
        pos = std::sqrt(p2);
        ori = task.kind == POSE ? std::sqrt(o2) : 0.0;
    }
    double E = 0.0;
    for (int r = 0; r < task.m; ++r) {
        const int axis = task.rows[r];
        const double sw = task.weighted ? std::sqrt(task.w[axis]) : 1.0;
        e[r] = full[axis] * sw;
        E += e[r] * e[r];
        if (Je == J) continue;  // an unweighted pose: J_e is J itself
        if (task.kind == APPROACH && axis >= 3) {  // (I − a aᵀ) J_ω: a turn about a leaves a alone
            const double a[3] = {T[2], T[6], T[10]};
            const double* Jw = J + 3 * n;
            for (int c = 0; c < n; ++c) {
                const double dot = a[0] * Jw[c] + a[1] * Jw[n + c] + a[2] * Jw[2 * n + c];
                Je[r * n + c] = (Jw[(axis - 3) * n + c] - a[axis - 3] * dot) * sw;
            }
        } else {
            for (int c = 0; c < n; ++c) Je[r * n + c] = J[axis * n + c] * sw;
        }
    }
    return 0.5 * E;
}

}  // namespace kc
