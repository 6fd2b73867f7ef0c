// Batched forward kinematics and Jacobians: blocks of LANES states through the lane equations
// (lanes.hpp), each state's result the same bits as its single call (chain.hpp).
#pragma once

#include "chain.hpp"

#include <cstddef>

namespace kc {

// The end poses of Q (count × n) into T (count × 16); false if Q holds NaN or infinity.
bool fk_many(const Chain& ch, const double* Q, std::size_t count, double* T);

// The Jacobians in `frame` (BASE, TOOL, SPACE, BODY) of Q (count × n) into J (count × 6 × n)
// and, unless T is null, the end poses into T (count × 16); false if Q holds NaN or infinity.
bool jacobian_many(const Chain& ch, const double* Q, std::size_t count, int frame, double* T, double* J);

}  // namespace kc
