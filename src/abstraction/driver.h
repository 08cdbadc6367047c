// The DrUBA driver (paper Alg. 1 as corrected by DESIGN.md section 4): raise the round bound until
// one raise adds no abstract state, then raise the delay bound; any new abstract state sends it
// back to rounds; after n-1 consecutive fruitless delay raises, test closure under the
// disrespecting actions. It answers `safe` only when both plateau conditions of Thm. 7 hold
// (checked again explicitly before the verdict) and the closure test passed.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "abstraction/abstraction.h"
#include "abstraction/verdict.h"
#include "common/resources.h"
#include "explore/explorer.h"

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
  Bounds bounds;
  std::vector<RaiseEvent> schedule;
  Bounds plateau_start;  // bounds where the abstract set last grew
  std::uint64_t image_calls_before_plateau = 0;
  std::uint64_t closure_checks = 0;
  std::optional<std::uint32_t> violation_record;
  std::optional<ClosureFailure> closure_failure;
  double time_s = 0;
};

template <ExplorableModel Model, Abstraction Abs>
class Druba {
 public:
  Druba(Model& model, const Abs& abs, LimitWatch* limits = nullptr)
      : model_(model), abs_(abs), tracker_(abs), explorer_(model, tracker_, limits) {}

  // Full DrUBA: plateaus, then the closure test.
  RunResult Verify() {
    Stopwatch clock;
    RunResult result;
    const std::uint32_t n = explorer_.num_threads();
    if (!Step(RaiseEvent::Dim::kStart, result)) return Finish(result, clock);
    for (;;) {
      if (!Step(RaiseEvent::Dim::kRounds, result)) return Finish(result, clock);
      if (result.schedule.back().new_abstract > 0) continue;
      bool grew = false;
      for (std::uint32_t plateau = 0; plateau + 1 < n; ++plateau) {
        if (!Step(RaiseEvent::Dim::kDelays, result)) return Finish(result, clock);
        if (result.schedule.back().new_abstract > 0) {
          grew = true;
          break;
        }
      }
      if (!grew) break;
    }
    // Thm. 7 needs R(r0,d0) and R(r0+1,d0+n-1) to agree, with (r0,d0) where the set last grew.
    const Bounds now = explorer_.bounds();
    if (now.rounds != result.plateau_start.rounds + 1 ||
        now.delays != result.plateau_start.delays + (n - 1)) {
      result.verdict = Verdict::kUnknown;
      result.reason = "internal: plateau lengths do not meet Thm. 7";
      return Finish(result, clock);
    }
    result.closure_failure = CheckClosure(abs_, tracker_.set(), &result.closure_checks);
    if (result.closure_failure) {
      result.verdict = Verdict::kUnknown;
      result.reason = "the reached abstract states are not closed under a disrespecting action";
    } else {
      result.verdict = Verdict::kSafe;
      result.reason = "1 round raise and " + std::to_string(n - 1) +
                      " delay raises added no abstract state, and the set is closed under the "
                      "disrespecting actions (Thm. 7)";
    }
    return Finish(result, clock);
  }

  // R(bounds) only: a violation, or none within the bounds.
  RunResult Bounded(Bounds bounds) {
    Stopwatch clock;
    RunResult result;
    explorer_.Start(bounds);
    result.schedule.push_back(
        {RaiseEvent::Dim::kStart, bounds, tracker_.TakeNewCount(), explorer_.stats().image_calls});
    if (!explorer_.stopped()) {
      result.verdict = Verdict::kBounded;
      result.reason = "no violation within " + std::to_string(bounds.rounds) + " rounds and " +
                      std::to_string(bounds.delays) + " delays";
    }
    return Finish(result, clock);
  }

  const Explorer<Model, AbstractTracker<Abs>>& explorer() const { return explorer_; }
  const StateStore& abstract_states() const { return tracker_.set(); }
  Model& model() { return model_; }

 private:
  // One bound change; false when the search was stopped.
  bool Step(RaiseEvent::Dim dim, RunResult& result) {
    switch (dim) {
      case RaiseEvent::Dim::kStart:
        explorer_.Start();
        break;
      case RaiseEvent::Dim::kRounds:
        explorer_.RaiseRounds();
        break;
      case RaiseEvent::Dim::kDelays:
        explorer_.RaiseDelays();
        break;
    }
    RaiseEvent event{dim, explorer_.bounds(), tracker_.TakeNewCount(),
                     explorer_.stats().image_calls};
    result.schedule.push_back(event);
    if (event.new_abstract > 0 || dim == RaiseEvent::Dim::kStart) {
      result.plateau_start = event.after;
      result.image_calls_before_plateau = event.image_calls;
    }
    return !explorer_.stopped();
  }

  RunResult& Finish(RunResult& result, const Stopwatch& clock) {
    result.bounds = explorer_.bounds();
    if (explorer_.stopped()) {
      if (tracker_.violation_record()) {
        result.verdict = Verdict::kViolation;
        result.violation_record = tracker_.violation_record();
        result.reason = "a reachable state violates the property";
      } else {
        result.verdict = Verdict::kUnknown;
        result.reason = explorer_.stop_reason();
      }
    }
    result.time_s = clock.Seconds();
    return result;
  }

  Model& model_;
  const Abs& abs_;
  AbstractTracker<Abs> tracker_;
  Explorer<Model, AbstractTracker<Abs>> explorer_;
};

}  // namespace druba
