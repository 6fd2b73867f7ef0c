// Pack<W>: W doubles that the arithmetic operators act on lane by lane, so an equation written
// once over a number type S runs one state at S = double and W states side by side at
// S = Pack<W> (the lane loops compile to vector instructions). Each lane sees the operations
// of the scalar code in its order (no fused multiply-adds: CMakeLists.txt): the same bits.
#pragma once

#include <cmath>
#include <cstddef>

#include "trig.hpp"

// On x86-64 Linux (glibc) a batch function marked KC_CLONES is also built for AVX2 and the
// loader picks the build the CPU runs (GCC's target_clones): a wheel stays portable, a modern
// CPU gets 4-wide vectors. Without fused multiply-adds both builds give the same bits.
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__GLIBC__)
#define KC_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define KC_CLONES
#endif

// An equation over S that a KC_CLONES batch calls: inlined there, so it is built for each clone.
#if defined(__GNUC__)
#define KC_INLINE __attribute__((always_inline)) inline
#else
#define KC_INLINE inline
#endif

namespace kc {

#if defined(__GNUC__)
// GCC's and Clang's vector types: kept in registers, one instruction an operation. (A template
// cannot size one from W, hence a type per width. Aligned as a double: any buffer holds one.)
template <int W>
struct VectorOf;
template <>
struct VectorOf<2> {
    typedef double type __attribute__((vector_size(16), aligned(8)));
    static type splat(double x) { return type{x, x}; }
};
template <>
struct VectorOf<4> {
    typedef double type __attribute__((vector_size(32), aligned(8)));
    static type splat(double x) { return type{x, x, x, x}; }
};
template <>
struct VectorOf<8> {
    typedef double type __attribute__((vector_size(64), aligned(8)));
    static type splat(double x) { return type{x, x, x, x, x, x, x, x}; }
};
template <int W>
struct Pack {
    typename VectorOf<W>::type v;
    Pack() = default;
    Pack(double x) : v(VectorOf<W>::splat(x)) {}  // every lane x: constants meet packs as in the scalar code
    double* data() { return reinterpret_cast<double*>(&v); }
    const double* data() const { return reinterpret_cast<const double*>(&v); }
};
#define KC_PACK_LANES(op) r.v = a.v op b.v;
#else
template <int W>
struct Pack {
    double v[W];
    Pack() = default;
    Pack(double x) {  // every lane x: constants meet packs as in the scalar code
        for (int l = 0; l < W; ++l) v[l] = x;
    }
    double* data() { return v; }
    const double* data() const { return v; }
};
#define KC_PACK_LANES(op) for (int l = 0; l < W; ++l) r.v[l] = a.v[l] op b.v[l];
#endif
// a pack op a pack lane by lane (KC_PACK_LANES: one vector instruction, or a loop); a constant
// meets a pack as a pack of it
#define KC_PACK_OP(op)                                               \
    template <int W>                                                 \
    inline Pack<W> operator op(const Pack<W>& a, const Pack<W>& b) { \
        Pack<W> r;                                                   \
        KC_PACK_LANES(op)                                            \
        return r;                                                    \
    }                                                                \
    template <int W>                                                 \
    inline Pack<W> operator op(double a, const Pack<W>& b) {         \
        return Pack<W>(a) op b;                                      \
    }                                                                \
    template <int W>                                                 \
    inline Pack<W> operator op(const Pack<W>& a, double b) {         \
        return a op Pack<W>(b);                                      \
    }
KC_PACK_OP(+)
KC_PACK_OP(-)
KC_PACK_OP(*)
#undef KC_PACK_OP
#undef KC_PACK_LANES

template <int W>
inline Pack<W> operator-(const Pack<W>& a) {  // −x, not 0 − x: −(+0) is −0, as in the scalar code
    Pack<W> r;
    for (int l = 0; l < W; ++l) r.v[l] = -a.v[l];
    return r;
}

// sign(x): 1, −1 or 0 (and NaN's 0), lane by lane.
inline double sign_of(double x) { return x > 0.0 ? 1.0 : (x < 0.0 ? -1.0 : 0.0); }
template <int W>
inline Pack<W> sign_of(const Pack<W>& x) {
    Pack<W> r;
    for (int l = 0; l < W; ++l) r.v[l] = x.v[l] > 0.0 ? 1.0 : (x.v[l] < 0.0 ? -1.0 : 0.0);
    return r;
}

// Whether every lane is finite (x − x is NaN for NaN and infinity; an integer OR vectorises).
inline bool finite(double x) { return std::isfinite(x); }
template <int W>
inline bool finite(const Pack<W>& x) {
    unsigned bad = 0;
    for (int l = 0; l < W; ++l) bad |= !(x.v[l] - x.v[l] == 0.0);
    return !bad;
}

// sin and cos of every lane (trig.hpp: the same bits as one at a time).
inline void sincos_of(double x, double& s, double& c) { sincos(x, s, c); }
template <int W>
inline void sincos_of(const Pack<W>& x, Pack<W>& s, Pack<W>& c) {
    sincos_many(x.data(), W, s.data(), c.data());
}

}  // namespace kc
