// How many random programs a differential sweep runs: `base` times the factor in the environment
// variable DRUBA_SWEEP (default 1). The sanitizer runs use a quarter (the same code, far slower);
// the `long` CTest label runs four times as many. Thresholds on what a sweep must exercise scale
// with it, so a sweep can still fail for exercising too little.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <string>

namespace druba::testing {

inline double SweepFactor() {
  static const double factor = [] {
    const char* text = std::getenv("DRUBA_SWEEP");
    if (text == nullptr) return 1.0;
    try {
      return std::clamp(std::stod(text), 0.01, 100.0);
    } catch (const std::exception&) {
      return 1.0;
    }
  }();
  return factor;
}

// `base` scaled, at least 1.
inline int Sweep(int base) {
  return std::max(1, static_cast<int>(static_cast<double>(base) * SweepFactor()));
}
// A threshold on a count the sweep must exceed: scaled down with a shorter sweep, and halved
// again there (fewer programs scatter more), never up (a longer sweep must at least do what the
// default one does).
inline double ThresholdFactor() {
  return SweepFactor() >= 1 ? 1.0 : SweepFactor() / 2;
}
inline int AtLeast(int base) {
  return static_cast<int>(static_cast<double>(base) * ThresholdFactor());
}
inline std::size_t AtLeastU(std::size_t base) {
  return static_cast<std::size_t>(static_cast<double>(base) * ThresholdFactor());
}

}  // namespace druba::testing
