// What a run of the driver (driver.h) found: the verdict and the proof that answered, the bounds
// and the schedule of raises that reached them, and the figures of the search.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "abstraction/abstraction.h"
#include "abstraction/upper_bound.h"
#include "abstraction/verdict.h"
#include "explore/node.h"

namespace druba {

// One raise of a bound, for the schedule picture and the statistics.
struct RaiseEvent {
  enum class Dim { kStart, kRounds, kDelays };
  Dim dim = Dim::kStart;
  Bounds after;  // bounds after the raise
  std::size_t new_abstract = 0;
  std::uint64_t image_calls = 0;  // total successor calls after the raise
};

struct RunResult {
  Verdict verdict = Verdict::kUnknown;
  std::string reason;
  Proof proof = Proof::kNone;
  // The sandwich proof: |O| when it was computed, why it was not (or not used), its cost, and
  // |Sym(U)| at the end.
  std::optional<std::size_t> upper_bound;
  std::string upper_bound_note;
  UpperBoundStats upper_bound_stats;
  std::uint64_t symmetric_reached = 0;
  // The search over canonical representatives beside the Round-Robin one (SandwichSetup::
  // concrete_symmetry): its states and successor calls, and whether it found the lower bound that
  // answered.
  std::uint64_t symmetric_search_states = 0;
  std::uint64_t symmetric_search_calls = 0;
  bool lower_bound_by_symmetric_search = false;
  // The exact search after a failed closure test went over one state per orbit instead of
  // raising bounds (PlateauDriver::ExhaustUpToSymmetry); its figures are the two above.
  bool symmetric_exhaustion = false;
  Bounds bounds;
  std::vector<RaiseEvent> schedule;
  Bounds plateau_start;           // bounds where the abstract set last grew
  std::uint64_t image_calls = 0;  // over the whole run, recomputations included
  // States of the reached set taken from an earlier round's search (PlateauDriver::Adopt)
  // without a successor call of this run.
  std::uint64_t replayed_states = 0;
  std::uint64_t image_calls_before_plateau = 0;
  std::uint64_t closure_checks = 0;
  std::optional<std::uint32_t> violation_record;
  std::optional<ClosureFailure> closure_failure;
  double time_s = 0;
};

}  // namespace druba
