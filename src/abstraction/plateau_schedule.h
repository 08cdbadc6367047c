// The paper's schedule of raises (Alg. 1 as corrected by DESIGN.md section 4), apart from the
// search that makes each raise: PlateauDriver's (driver.h) and the distributed search's
// (distributed/plateau.h) follow it alike, so both stop at the same bounds.
#pragma once

#include <cstdint>
#include <string>

#include "abstraction/abstraction.h"
#include "abstraction/run_result.h"

namespace druba {

// Adds one raise to the schedule; a raise that found a new abstract state (and the start) moves
// the plateau's start there.
inline void RecordRaise(RunResult& result, const RaiseEvent& event) {
  result.schedule.push_back(event);
  if (event.new_abstract > 0 || event.dim == RaiseEvent::Dim::kStart) {
    result.plateau_start = event.after;
    result.image_calls_before_plateau = event.image_calls;
  }
}

// Raise the round bound until one raise adds no abstract state, then the delay bound; any new
// abstract state sends it back to rounds. `over(dim)` makes one raise (RecordRaise) and says
// whether the run is over (a violation, a limit, a proof on the way). Returns true when it is,
// false after 1 round raise and n - 1 delay raises in a row added no abstract state.
template <class Over>
bool RaiseToPlateau(std::uint32_t n, const RunResult& result, Over&& over) {
  if (over(RaiseEvent::Dim::kStart)) return true;
  for (;;) {
    if (over(RaiseEvent::Dim::kRounds)) return true;
    if (result.schedule.back().new_abstract > 0) continue;
    bool grew = false;
    for (std::uint32_t plateau = 0; plateau + 1 < n; ++plateau) {
      if (over(RaiseEvent::Dim::kDelays)) return true;
      if (result.schedule.back().new_abstract > 0) {
        grew = true;
        break;
      }
    }
    if (!grew) return false;
  }
}

// Thm. 7 needs R(r0,d0) and R(r0+1,d0+n-1) to agree, with (r0,d0) where the set last grew.
inline bool MeetsTheorem7(Bounds now, const RunResult& result, std::uint32_t n) {
  return now.rounds == result.plateau_start.rounds + 1 &&
         now.delays == result.plateau_start.delays + (n - 1);
}

// The reason of an `unknown` when the closure test fails, and of a `safe` when it passes.
inline std::string ClosureFailureReason(const ClosureFailure& failure) {
  return failure.undecided.empty()
             ? "the reached abstract states are not closed under a disrespecting action"
             : "the closure test could not be decided: " + failure.undecided;
}
inline std::string PlateauProofReason(std::uint32_t n) {
  return "1 round raise and " + std::to_string(n - 1) +
         (n == 2 ? " delay raise" : " delay raises") +
         " added no abstract state, and the set is closed under the disrespecting actions (Thm. 7)";
}

// After a failed closure test, the exact search's budget is counted as at least this many
// successor calls (PlateauDriver::SetExhaustBudget; the distributed run's too).
inline constexpr std::uint64_t kExhaustFloor = std::uint64_t{1} << 18;

// The reason of a `safe` by exhaustion at `at`.
inline std::string ExhaustedReason(Bounds at) {
  return "exhausted: at (r,d) = (" + std::to_string(at.rounds) + "," + std::to_string(at.delays) +
         ") no move is left that a larger bound would allow, so every reachable state was "
         "explored";
}

// After a failed closure test, the exact search's next raise: of the two bounds whose raise would
// resume a waiting move, the one raised less often since the test (rounds on a tie); counted.
inline RaiseEvent::Dim NextExhaustRaise(bool rounds_go, bool delays_go, std::uint32_t& round_raises,
                                        std::uint32_t& delay_raises) {
  const bool rounds = rounds_go && (!delays_go || round_raises <= delay_raises);
  ++(rounds ? round_raises : delay_raises);
  return rounds ? RaiseEvent::Dim::kRounds : RaiseEvent::Dim::kDelays;
}

// Why that search ended short of exhaustion (`failed`: the closure test's reason); `budget` says
// what it spent, empty when it reached druba's largest bound instead.
inline std::string ExactSearchEndReason(const std::string& failed, Bounds at, std::uint64_t states,
                                        const std::string& budget) {
  return failed + "; the exact search went on to (r,d) = (" + std::to_string(at.rounds) + "," +
         std::to_string(at.delays) + ") with " + std::to_string(states) +
         " states and did not exhaust the state space " +
         (!budget.empty()
              ? "within its budget of " + budget
              : "before druba's largest bound, " + std::to_string(kMaxBound) + " rounds or delays");
}

}  // namespace druba
