// Closed forms (closed.hpp): the branches of one target and the nearest.
#include "closed.hpp"

#include "residual.hpp"

#include <cmath>
#include <complex>

namespace kc {
namespace {

using cplx = std::complex<double>;
constexpr double PI = 3.14159265358979323846;
constexpr double TWO_PI = 2.0 * PI;

inline cplx constant(const ClosedForm& k, int i) { return {k.S[i], k.S[i + 1]}; }

inline double angle(cplx z) { return std::atan2(z.imag(), z.real()); }

// Python's float a % b (the sign of b), which the reference's gaps take.
inline double py_mod(double a, double b) {
    double m = std::fmod(a, b);
    if (m != 0.0 && ((b < 0) != (m < 0))) m += b;
    return m;
}

// out = Rᵀ Rz(−θ) v (c, s = cos θ, sin θ), R row-major 3 × 3.
void turn(double c, double s, const double* v, const double* R, double* out) {
    const double x = v[0] * c + v[1] * s, y = v[1] * c - v[0] * s, z = v[2];
    for (int j = 0; j < 3; ++j) out[j] = x * R[j] + y * R[3 + j] + z * R[6 + j];
}

// V (3 × 3): rows the wrist point, the tool's x axis and its z axis, in the joint-1 frame, of the
// pose T (16, row-major: R_d and p_d in their places).
void tool(const ClosedForm& k, const double* T, double V[3][3]) {
    const double* W = k.F[cf::W];
    const double* R0 = k.F[cf::R0];
    for (int i = 0; i < 3; ++i) {
        double x[3];
        for (int r = 0; r < 3; ++r) {
            x[r] = T[4 * r] * W[i] + T[4 * r + 1] * W[3 + i] + T[4 * r + 2] * W[6 + i];
            if (i == 0) x[r] += T[4 * r + 3] - k.P[cf::P0][r];
        }
        for (int j = 0; j < 3; ++j) V[i][j] = x[0] * R0[j] + x[1] * R0[3 + j] + x[2] * R0[6 + j];
    }
}

// θ1 of both shoulders into th for the point (vx, vy) of the joint-1 frame; whether the point is
// outside the cylinder of radius |d| about axis 1. On axis 1 (θ1 free): ref and ref + π, or, given
// a direction `hint` of the arm plane (a 5-DOF arm's roll axis) that is not vertical, its own.
bool yaw(const ClosedForm& k, double vx, double vy, double ref, double th[2], const double* hint = nullptr) {
    const double r2 = vx * vx + vy * vy, d = k.S[cf::D];
    for (int s = 0; s < 2; ++s) {
        const double sh = 1.0 - 2.0 * s;
        if (d == 0)
            th[s] = (std::atan2(vy, vx) - k.S[cf::H_ANGLE]) - sh * (PI / 2);
        else
            th[s] = (std::atan2(vy, vx) - k.S[cf::H_ANGLE]) - std::atan2(std::sqrt(std::fmax(r2 - d * d, 0.0)) * sh, d);
    }
    const double tiny = k.rounding * k.S[cf::SCALE];
    if (r2 <= tiny * tiny) {
        th[0] = ref, th[1] = ref + PI;
        if (hint && std::hypot(hint[0], hint[1]) > k.rounding)
            for (int s = 0; s < 2; ++s)
                th[s] = (std::atan2(hint[1], hint[0]) - k.S[cf::H_ANGLE]) - (1.0 - 2.0 * s) * PI / 2;
    }
    const double slack = k.length_tol * k.S[cf::SCALE];
    return r2 >= d * d - slack * slack;
}

// The two-link arm reaching (x, y): φ, θ (θ's sign `sign`) and whether it reaches.
bool elbow(double x, double y, double L1, double L2, double sign, double& phi, double& th) {
    const double r2 = x * x + y * y;
    const double far = (L1 + L2) * (L1 + L2) - r2, near = r2 - (L1 - L2) * (L1 - L2);
    const double tol = 1e-12 * ((L1 + L2) * (L1 + L2));
    const double S = sign * std::sqrt(std::fmax(far, 0.0) * std::fmax(near, 0.0));
    th = std::atan2(S, r2 - (L1 * L1 + L2 * L2));
    phi = std::atan2(y, x) - std::atan2(S, r2 + (L1 * L1 - L2 * L2));
    return far >= -tol && near >= -tol;
}

// θa, θb, θc of one wrist branch (flip ±1) into out[0..2] for Rz(θa) B Rz(θb) C Rz(θc) = M,
// given m = M ẑ and m1 = M x̂.
void wrist(const ClosedForm& k, const double* m, const double* m1, double ref_a, double flip, double* out) {
    const cplx mc(m[0], m[1]);
    const double mz = m[2], sb = std::abs(mc) * flip;
    const double tb = std::atan2(sb, mz) + k.S[cf::PSI];
    double ta = angle(mc * std::conj(constant(k, cf::V0) * mz + constant(k, cf::V1) * sb));
    const cplx r(m1[2], (std::conj(mc) * cplx(m1[0], m1[1])).imag());
    double tc = angle((constant(k, cf::VR0) * mz + constant(k, cf::VR1) * sb) * std::conj(r));
    if (std::fabs(sb) < 1e-2) {  // near the wrist singularity: θc from the whole remaining rotation
        if (std::fabs(sb) < 1e-14) ta = ref_a;  // axes a and c aligned: θa keeps its reference
        double w[3], n[3];
        turn(std::cos(ta), std::sin(ta), m1, k.F[cf::B], w);
        turn(std::cos(tb), std::sin(tb), w, k.F[cf::C], n);
        tc = std::atan2(n[1], n[0]);
    }
    out[0] = ta, out[1] = tb, out[2] = tc;
}

// The parallel joints' θ into out[1..2] (spherical) or out[1..3] (UR, 5-DOF: the pitch A_last given);
// A_2 into A2; whether the point is reached.
bool arm(const ClosedForm& k, double gx, double gy, double sign, double A_last, double* out, double& A2) {
    const double* S = k.S;
    const bool ur = S[cf::KIND] == cf::UR || S[cf::KIND] == cf::GEOMETRIC5;  // three parallel joints
    if (ur) {
        const double a = A_last + S[cf::SENSE2] * S[cf::BETA2];
        gx = gx - S[cf::L2] * std::cos(a), gy = gy - S[cf::L2] * std::sin(a);
    }
    double phi, gamma;
    const bool ok = elbow(gx, gy, S[cf::L0], S[cf::L1], sign, phi, gamma);
    const double th2 = phi - S[cf::BETA0];
    A2 = phi + gamma - S[cf::SENSE1] * S[cf::BETA1];
    out[1] = th2, out[2] = S[cf::SENSE1] * (A2 - th2 - S[cf::KAPPA0]);
    if (ur) out[3] = S[cf::SENSE2] * (A_last - A2 - S[cf::SENSE1] * S[cf::KAPPA1]);
    return ok;
}

// The 8 candidates of a 6R arm (θ − offset, before wrapping) into Q (8 × 6), shoulder × elbow × wrist.
bool branches6(const ClosedForm& k, const double* T, const double* ref, double* Q, bool* reach) {
    const double* S = k.S;
    double V[3][3], U[3][3], M[2][3], th1[2], r[6];
    tool(k, T, V);
    for (int j = 0; j < 6; ++j) r[j] = ref[j] + k.joints[j][cf::OFFSET];
    const bool ok1 = yaw(k, V[0][0], V[0][1], r[0], th1);
    const bool ur = S[cf::KIND] == cf::UR;
    // the pitch of the parallel joints at the reference
    const double ref_a = ur ? (r[1] + S[cf::KAPPA0] + S[cf::SENSE1] * r[2]) + S[cf::SENSE1] * S[cf::KAPPA1] +
                                  S[cf::SENSE2] * r[3]
                            : r[3];
    for (int s = 0; s < 2; ++s) {
        const double c = std::cos(th1[s]), sn = std::sin(th1[s]);
        for (int i = 0; i < 3; ++i) turn(c, sn, V[i], k.F[cf::R1], U[i]);
        const double gx = U[0][0] - k.P[cf::P1][0], gy = U[0][1] - k.P[cf::P1][1];
        for (int e = 0; e < 2; ++e) {
            const double sign = (1.0 - 2.0 * s) * (2.0 * e - 1.0);
            double top[6] = {};
            bool ok = true;
            if (!ur) {  // the arm first: its pitch A_2 turns the tool's axes into the wrist's M
                double A2;
                ok = arm(k, gx, gy, sign, 0.0, top, A2);
                const double ca = std::cos(A2), sa = std::sin(A2);
                turn(ca, sa, U[1], k.F[cf::PRE], M[0]);
                turn(ca, sa, U[2], k.F[cf::PRE], M[1]);
            }
            for (int f = 0; f < 2; ++f) {
                double* q = Q + 6 * (4 * s + 2 * e + f);
                q[0] = th1[s];
                if (ur) {  // the wrist first: its θa is the pitch the arm must make
                    wrist(k, U[2], U[1], ref_a, 1.0 - 2.0 * f, q + 3);
                    double A2;
                    ok = arm(k, gx, gy, sign, q[3], q, A2);
                } else {
                    q[1] = top[1], q[2] = top[2];
                    wrist(k, M[1], M[0], ref_a, 1.0 - 2.0 * f, q + 3);
                }
                reach[4 * s + 2 * e + f] = ok && ok1;
            }
        }
    }
    return ok1;
}

// The 4 candidates of a 5-DOF arm (θ before wrapping) into Q (4 × 5), shoulder × elbow, for a pose
// (roll solved) or a position with its approach axis in G[12..14] (roll the seed's).
bool branches5(const ClosedForm& k, const double* G, bool pose, const double* ref, double* Q, bool* reach) {
    const double* S = k.S;
    double V[3][3], U[3][3], th1[2], r[5];
    for (int j = 0; j < 5; ++j) r[j] = ref[j] + k.joints[j][cf::OFFSET];
    if (pose) {
        tool(k, G, V);  // rows: the point on the roll axis, the roll axis, the tool's x
    } else {  // the point on the roll axis p + c a, the roll axis ±a; in the joint-1 frame
        const double* R0 = k.F[cf::R0];
        double x[2][3];
        for (int i = 0; i < 3; ++i) {
            x[0][i] = (G[4 * i + 3] + S[cf::COL_A] * G[12 + i]) - k.P[cf::P0][i];
            x[1][i] = G[12 + i] * S[cf::SIGN_A];
        }
        for (int i = 0; i < 2; ++i)
            for (int j = 0; j < 3; ++j) V[i][j] = x[i][0] * R0[j] + x[i][1] * R0[3 + j] + x[i][2] * R0[6 + j];
    }
    const bool ok1 = yaw(k, V[0][0], V[0][1], r[0], th1, V[1]);
    for (int s = 0; s < 2; ++s) {
        const double c = std::cos(th1[s]), sn = std::sin(th1[s]);
        for (int i = 0; i < (pose ? 3 : 2); ++i) turn(c, sn, V[i], k.F[cf::R1], U[i]);
        const double gx = U[0][0] - k.P[cf::P1][0], gy = U[0][1] - k.P[cf::P1][1];
        const double A = std::atan2(U[1][1], U[1][0]) - S[cf::SENSE2] * S[cf::Z5_ANGLE];
        double roll = r[4];
        if (pose) {  // Rz(θ5) = R(C4)ᵀ Xᵀ Rz(−A) [joint 2]ᵀ R R(C5)ᵀ: its first column
            double m[3];
            turn(std::cos(A), std::sin(A), U[2], k.F[cf::PRE], m);
            roll = std::atan2(m[1], m[0]);
        }
        for (int e = 0; e < 2; ++e) {
            double* q = Q + 5 * (2 * s + e);
            double A2;
            q[0] = th1[s];
            reach[2 * s + e] = arm(k, gx, gy, (1.0 - 2.0 * s) * (2.0 * e - 1.0), A, q, A2) && ok1;
            q[4] = roll;
        }
    }
    return ok1;
}

// The 2 elbows of a planar 2R (x, y) or 3R (x, y, φ in G[15]) arm into Q (2 × n), elbow up first.
bool branches_planar(const ClosedForm& k, const double* G, double* Q, bool* reach) {
    const double* S = k.S;
    const double* B = k.F[cf::R0];
    const int n = k.n();
    const double dx = G[3] - k.P[cf::P0][0], dy = G[7] - k.P[cf::P0][1];
    double x = dx * B[0] + dy * B[3], y = dx * B[1] + dy * B[4];  // (x, y) seen from the base
    const double phi = G[15] - S[cf::YAW0];
    if (n == 3) x = x - S[cf::L2] * std::cos(phi), y = y - S[cf::L2] * std::sin(phi);  // the wrist point
    for (int e = 0; e < 2; ++e) {
        double* q = Q + n * e;
        reach[e] = elbow(x, y, S[cf::L0], S[cf::L1], 2.0 * e - 1.0, q[0], q[1]);
        if (n == 3) q[2] = (phi - q[0]) - q[1];
    }
    return true;
}

// The candidates (θ − offset, before wrapping) into Q (count × n).
bool branches(const ClosedForm& k, const double* G, int target_kind, const double* ref, double* Q, bool* reach) {
    const int kind = static_cast<int>(k.S[cf::KIND]), n = k.n();
    const bool ok1 = kind == cf::PLANAR       ? branches_planar(k, G, Q, reach)
                     : kind == cf::GEOMETRIC5 ? branches5(k, G, target_kind == POSE, ref, Q, reach)
                                              : branches6(k, G, ref, Q, reach);
    for (int b = 0; b < k.count(); ++b)
        for (int j = 0; j < n; ++j) Q[n * b + j] -= k.joints[j][cf::OFFSET];
    return ok1;
}

// One joint value to (−π, π], then by 2π into the joint's limits where possible (a narrow
// range: the shift nearest its middle; a wide one: the first shift reaching it, else that one).
double wrap(double x, const double* joint) {
    x -= TWO_PI * std::nearbyint(x * (1 / TWO_PI));
    if (x <= -PI) x += TWO_PI;
    if (joint[cf::WRAP] == 1) return x - TWO_PI * std::nearbyint((x - joint[cf::MID]) * (1 / TWO_PI));
    if (joint[cf::WRAP] == 2) {
        const double lo = joint[cf::LO], hi = joint[cf::HI];
        double cand = x;
        if (x < lo) cand = x + TWO_PI * std::ceil((std::fmax(lo, -1e9) - x) * (1 / TWO_PI));
        else if (x > hi) cand = x - TWO_PI * std::ceil((x - std::fmin(hi, 1e9)) * (1 / TWO_PI));
        return (lo <= cand && cand <= hi) ? cand : x - TWO_PI * std::nearbyint((x - joint[cf::MID]) * (1 / TWO_PI));
    }
    return x;
}

}  // namespace

bool fits(const ClosedForm& k, int target_kind, bool phi) {
    switch (static_cast<int>(k.S[cf::KIND])) {
        case cf::SPHERICAL:
        case cf::UR: return target_kind == POSE;
        case cf::GEOMETRIC5: return target_kind == POSE || (target_kind == APPROACH && k.S[cf::APPROACH_OK] != 0);
        case cf::PLANAR: return target_kind == PLANAR && phi == (k.n() == 3);
        default: return false;
    }
}

bool candidates(const ClosedForm& k, const double* G, int target_kind, const double* ref, double* Q, bool* reach) {
    const bool ok1 = branches(k, G, target_kind, ref, Q, reach);
    const int n = k.n();
    for (int b = 0; b < k.count(); ++b)
        for (int j = 0; j < n; ++j) Q[n * b + j] = wrap(Q[n * b + j], k.joints[j]);
    return ok1;
}

bool nearest(const ClosedForm& k, const double* G, int target_kind, const double* seed, bool enforce, double* q) {
    double Q[MAX_BRANCHES * MAX_JOINTS];
    bool reach[MAX_BRANCHES];
    candidates(k, G, target_kind, seed, Q, reach);
    const int n = k.n();
    int best = -1;
    double best_d = INFINITY;
    for (int b = 0; b < k.count(); ++b) {
        bool usable = reach[b];
        double d2 = 0.0;
        for (int j = 0; j < n; ++j) {
            const double x = Q[n * b + j];
            if (enforce && !(k.joints[j][cf::LO] - k.limit_tol <= x && x <= k.joints[j][cf::HI] + k.limit_tol))
                usable = false;
            const double g = py_mod(x - seed[j] + PI, TWO_PI) - PI;
            d2 += g * g;
        }
        const double d = std::sqrt(d2);
        if (usable && d < best_d) best = b, best_d = d;
    }
    for (int j = 0; j < n; ++j) q[j] = best >= 0 ? Q[n * best + j] : seed[j];
    return best >= 0;
}

}  // namespace kc
