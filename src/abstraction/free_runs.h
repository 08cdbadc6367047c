// What the driver asks of searches under free scheduling (explore/free_search.h): the explicit
// baseline's answer once its search is over, and a violating run with the fewest statements.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "abstraction/abstraction.h"
#include "abstraction/run_result.h"
#include "common/resources.h"
#include "explore/free_search.h"
#include "explore/shorten.h"
#include "explore/trace.h"

namespace druba {

// The `explicit` baseline's verdict after `search` ran (exact when it finished).
template <class Search, class Tracker>
RunResult ExplicitAnswer(const Search& search, const Tracker& tracker) {
  RunResult result;
  result.image_calls = search.image_calls();
  if (tracker.violation_record()) {
    result.verdict = Verdict::kViolation;
    result.violation_record = tracker.violation_record();
    result.reason = "a reachable state violates the property";
  } else if (search.stopped()) {
    result.verdict = Verdict::kUnknown;
    result.reason = search.stop_reason();
  } else {
    result.verdict = Verdict::kSafe;
    result.proof = Proof::kExhausted;
    result.reason = "explicit: every state reachable under free scheduling was explored";
  }
  return result;
}

// A violating run with the fewest statements of any (breadth-first under free scheduling, over
// every state up to its length), as a Round-Robin trace; empty when a limit, or `max_calls`
// successor calls, stopped the search first. `concrete`: a property of concrete states beside the
// abstraction's (PlateauDriver::CheckConcrete), or none.
template <ExplorableModel Model, Abstraction Abs>
std::vector<TraceStep> ShortestViolatingRun(Model& model, const Abs& abs,
                                            const std::function<bool(StateView)>& concrete,
                                            LimitWatch* limits, std::uint64_t max_calls) {
  AbstractTracker<Abs> tracker(abs);
  if (concrete) tracker.CheckConcrete(concrete);
  FreeSearch<Model, AbstractTracker<Abs>> bfs(model, tracker, limits);
  bfs.SetBudget(max_calls);
  bfs.Run([](StateView /*state*/) { return std::string(); });
  if (!tracker.violation_record()) return {};
  const std::vector<TraceStep> steps = bfs.Trace(*tracker.violation_record());
  return AsRoundRobin(model, steps.front().state, StepsOf(steps));
}

}  // namespace druba
