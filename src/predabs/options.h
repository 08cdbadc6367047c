// The options of a .drb run beside the kind-free request (run/options.h).
#pragma once

#include <cstdint>
#include <string>

namespace druba::predabs {

// What a Horn solver's invariant (predabs/horn.h) may do at one thread count when the first
// round ends `unknown`: nothing, give refinement its atoms, be a proof of its own, or both (the
// proof first, then the atoms).
enum class HornUse : std::uint8_t { kOff, kAtoms, kProof, kBoth };

struct DrbOptions {
  std::string threads;                 // "N" (one count) or "N.." (every count from N)
  std::string abstraction;             // which `abstraction` block (default: the first)
  unsigned solver_timeout_ms = 20000;  // per solver query; a timeout is `unknown`
  std::uint32_t max_threads = 8;       // "N..": the largest count the outer loop tries
  std::int64_t max_value = 100;        // explicit: a larger |value| ends it with `unknown`
  bool refine = true;  // verify: a failed closure test refines the abstraction (docs/drb.md)
  HornUse horn = HornUse::kBoth;
};

}  // namespace druba::predabs
