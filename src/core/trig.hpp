// cos θ and sin θ, fast and the same bits however they are called.
//
// θ = n·π/2 + r with |r| ≤ π/4 (n rounded by the 1.5·2^52 trick, π/2 split in three 33-bit parts
// after Cody and Waite, so n·part is exact for |n| < 2^20), then fdlibm's kernel polynomials for
// sin r and cos r (under 1 ulp on [−π/4, π/4]) and the quadrant's swap and signs. Branch-free for
// |θ| ≤ TRIG_LIMIT, so a loop over many angles vectorises; beyond it (and for NaN or infinity)
// the C library's sin and cos. Without fused multiply-adds (CMakeLists.txt) every path gives each
// angle the same bits: a single call and a batch agree exactly.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

namespace kc {

constexpr double TRIG_LIMIT = 1.0e5;  // rad: |n| < 2^16, well inside the exact range

inline std::uint64_t bits_of(double x) {
    std::uint64_t b;
    std::memcpy(&b, &x, sizeof b);
    return b;
}

inline double of_bits(std::uint64_t b) {
    double x;
    std::memcpy(&x, &b, sizeof x);
    return x;
}

// The branch-free part: right for |x| ≤ TRIG_LIMIT.
inline void sincos_reduced(double x, double& s, double& c) {
    constexpr double magic = 6755399441055744.0;  // 1.5 · 2^52
    const double t = x * 6.36619772367581382433e-01 + magic;  // n in the low bits of t
    const double n = t - magic;
    const std::uint64_t q = bits_of(t);  // n mod 4 in the two lowest bits (n < 0 too)
    double r = x - n * 1.57079632673412561417e+00;
    r = r - n * 6.07710050630396597660e-11;
    r = r - n * 2.02226624871116645580e-21;
    const double z = r * r;
    const double ps = 8.33333333332248946124e-03 +
                      z * (-1.98412698298579493134e-04 +
                           z * (2.75573137070700676789e-06 +
                                z * (-2.50507602534068634195e-08 + z * 1.58969099521155010221e-10)));
    const double sr = r + (z * r) * (-1.66666666666666324348e-01 + z * ps);
    const double pc =
        z * (4.16666666666666019037e-02 +
             z * (-1.38888888888741095749e-03 +
                  z * (2.48015872894767294178e-05 +
                       z * (-2.75573143513906633035e-07 +
                            z * (2.08757232129817482790e-09 + z * -1.13596475577881948265e-11)))));
    const double hz = 0.5 * z, w = 1.0 - hz;
    const double cr = w + (((1.0 - w) - hz) + z * pc);
    // odd quadrants swap: sin θ = ±cos r, cos θ = ∓sin r (a mask select: it vectorises);
    // sin θ is negative in quadrants 2 and 3, cos θ in 1 and 2
    const std::uint64_t swap = 0 - (q & 1), bs = bits_of(sr), bc = bits_of(cr);
    s = of_bits(((bs & ~swap) | (bc & swap)) ^ ((q & 2) << 62));
    c = of_bits(((bc & ~swap) | (bs & swap)) ^ (((q + 1) & 2) << 62));
}

inline bool trig_in_range(double x) { return std::fabs(x) <= TRIG_LIMIT; }  // false for NaN

inline void sincos(double x, double& s, double& c) {
    if (trig_in_range(x)) {
        sincos_reduced(x, s, c);
    } else {
        s = std::sin(x);
        c = std::cos(x);
    }
}

// sincos over arrays: the branch-free loop first (it vectorises), then, only if some x is out of
// range (or NaN), the C library's for those. The flag is an integer OR: it vectorises too.
inline void sincos_many(const double* __restrict x, std::size_t count, double* __restrict s,
                        double* __restrict c) {
    unsigned out = 0;
    for (std::size_t k = 0; k < count; ++k) {
        sincos_reduced(x[k], s[k], c[k]);
        out |= !trig_in_range(x[k]);
    }
    if (!out) return;
    for (std::size_t k = 0; k < count; ++k)
        if (!trig_in_range(x[k])) s[k] = std::sin(x[k]), c[k] = std::cos(x[k]);
}

}  // namespace kc
