// The options of a .drb run beside the kind-free request (run/options.h).
#pragma once

#include <cstdint>
#include <string>

namespace druba::predabs {

// What a Horn solver's invariant (invariants/horn.h) may do at one thread count when the first
// round ends `unknown`: nothing, give refinement its atoms, be a proof of its own, or both (the
// proof first, then the atoms).
enum class HornUse : std::uint8_t { kOff, kAtoms, kProof, kBoth };

// The Horn solver's share of a run: this long, or a quarter of what --time-limit leaves when that
// is more (never more than half of it). 30 s: a ticket readers-writer lock takes Spacer 12 s, a
// 3-thread bakery about 30 s, on this 2-core machine.
inline constexpr unsigned kHornTimeoutMs = 30000;

// How `--threads N..` proves a program for every count: by the abstraction (refinement, the
// closure across counts; symmetric programs only), by invariants from finite instances (any
// program of one template), or (auto) the first with a share of the time, then the second.
enum class EveryCountRoute : std::uint8_t { kAuto, kAbstraction, kInstances };

// Route auto: the share of the time that the abstraction with refinement gets first, before the
// invariants from finite instances (strategy/verify.cc), and its most. A sixth: the SV-COMP tasks
// it proves take at most 1.2 s, and a quarter (3.75 s of 15) left 01_inc, 01_inc-b and 05_tas at
// the limit, their instances taking 9 to 12 s after it (they end at 11.9 to 12.6 s now).
inline constexpr double kAbstractionRouteShare = 1.0 / 6;
inline constexpr double kAbstractionRouteMostS = 30;  // and at most this long: the bundled
                                                      // models' refinements take 0.3 to 29 s

struct DrbOptions {
  std::string threads;                 // "N" (one count) or "N.." (every count from N)
  std::string abstraction;             // which `abstraction` block (default: the first)
  unsigned solver_timeout_ms = 20000;  // per solver query; a timeout is `unknown`
  std::uint32_t max_threads = 8;       // "N..": the largest count the outer loop tries
  std::int64_t max_value = 100;        // explicit: a larger |value| ends it with `unknown`
  bool refine = true;  // verify: a failed closure test refines the abstraction (docs/drb.md)
  HornUse horn = HornUse::kBoth;
  // Refinement: a round goes on from the search of the round before (PlateauDriver::Adopt).
  bool reuse_searches = true;
  // The Horn solver's first share without a time limit (the tests make it small to reach the
  // second attempt).
  unsigned horn_share_ms = kHornTimeoutMs;
  EveryCountRoute route = EveryCountRoute::kAuto;
};

}  // namespace druba::predabs
