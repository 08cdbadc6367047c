// Shorter traces for a violation (what a bug hunter reads): the statements of a violating run are
// dropped, chunks first and then one at a time, while a concrete re-execution of the rest, in
// the same order, still reaches a violating state (it is cut at the first one), until no single
// statement can go (1-minimal, as delta debugging's last stage). Stutters and delays are dropped
// with them: the run that is left is an interleaving of steps, turned back into a Round-Robin
// schedule by delaying every thread whose turn comes before the next step's thread (so it may
// use more delays than the run it came from).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "explore/model.h"
#include "explore/trace.h"

namespace druba {

// One step of an interleaving: its thread, its action and the state it led to in the run it came
// from (preferred when the action has several successors).
struct RunStep {
  std::uint32_t thread = 0;
  std::uint32_t action = 0;
  std::vector<Word> state;
};

// Takes `step` from `state` into `next`: the successor by the step's action, the one equal to the
// state the step led to in its run when there are several. False when the action is not enabled.
template <ExplorableModel Model>
bool TakeStep(Model& model, const std::vector<Word>& state, const RunStep& step,
              std::vector<Word>& next) {
  bool found = false;
  bool recorded = false;
  model.ForEachSuccessor(StateView(state), step.thread, [&](std::uint32_t action, StateView s) {
    if (action != step.action || recorded) return;
    recorded = std::equal(s.begin(), s.end(), step.state.begin(), step.state.end());
    if (!found || recorded) next.assign(s.begin(), s.end());
    found = true;
  });
  return found;
}

// Re-executes `steps` from `initial`; returns how many steps lead to the first violating state
// (0 when `initial` violates), or nothing when a step is not enabled or no state violates.
// Counts the successor calls in `*calls`.
template <ExplorableModel Model, class Violates>
std::optional<std::size_t> ReplaySteps(Model& model, const std::vector<Word>& initial,
                                       const std::vector<RunStep>& steps, Violates& violates,
                                       std::uint64_t* calls) {
  std::vector<Word> state = initial;
  if (violates(StateView(state))) return 0;
  std::vector<Word> next;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    ++*calls;
    if (!TakeStep(model, state, steps[i], next)) return std::nullopt;
    state.swap(next);
    if (violates(StateView(state))) return i + 1;
  }
  return std::nullopt;
}

// The steps of a trace (its stutters and delays left out).
inline std::vector<RunStep> StepsOf(const std::vector<TraceStep>& trace) {
  std::vector<RunStep> steps;
  for (const TraceStep& s : trace) {
    if (s.kind == TraceStep::Kind::kStep) steps.push_back({s.thread, s.action, s.state});
  }
  return steps;
}

// `steps` as a Round-Robin trace from `initial`: before each step, a delay for every thread whose
// turn comes first. The states are those of a re-execution (ReplaySteps must have accepted it).
template <ExplorableModel Model>
std::vector<TraceStep> AsRoundRobin(Model& model, const std::vector<Word>& initial,
                                    const std::vector<RunStep>& steps) {
  const std::uint32_t n = model.num_threads();
  std::vector<TraceStep> trace;
  TraceStep slot;
  slot.kind = TraceStep::Kind::kInitial;
  slot.thread = n - 1;
  slot.state = initial;
  trace.push_back(slot);
  std::uint32_t finder = n - 1;
  const auto advance = [&](TraceStep::Kind kind, std::uint32_t action) {
    finder = finder + 1 == n ? 0 : finder + 1;
    slot.kind = kind;
    slot.thread = finder;
    slot.action = action;
    if (finder == 0) ++slot.rounds;
    if (kind == TraceStep::Kind::kDelay) ++slot.delays;
  };
  for (const RunStep& step : steps) {
    while ((finder + 1) % n != step.thread) {
      advance(TraceStep::Kind::kDelay, 0);
      trace.push_back(slot);
    }
    advance(TraceStep::Kind::kStep, step.action);
    std::vector<Word> next;
    TakeStep(model, slot.state, step, next);
    slot.state = std::move(next);
    trace.push_back(slot);
  }
  return trace;
}

// A 1-minimal subsequence of the steps of `trace` (a violating run from its first slot's state)
// whose re-execution still violates, as a Round-Robin trace; `trace` itself when nothing can be
// dropped or when `max_calls` successor calls were spent first (then the shortest found so far).
template <ExplorableModel Model, class Violates>
std::vector<TraceStep> ShortenTrace(Model& model, const std::vector<TraceStep>& trace,
                                    Violates&& violates, std::uint64_t max_calls = 1U << 22) {
  if (trace.empty()) return trace;
  const std::vector<Word>& initial = trace.front().state;
  std::vector<RunStep> steps = StepsOf(trace);
  std::uint64_t calls = 0;
  const auto cut = ReplaySteps(model, initial, steps, violates, &calls);
  if (!cut) return trace;  // not a violating run of steps alone: leave it
  steps.resize(*cut);
  // Chunks of halving size, then single steps, until a pass drops nothing.
  for (std::size_t chunk = std::max<std::size_t>(1, steps.size() / 2); chunk >= 1;) {
    bool dropped = false;
    for (std::size_t begin = 0; begin < steps.size() && calls < max_calls;) {
      std::vector<RunStep> fewer(steps.begin(), steps.begin() + static_cast<std::ptrdiff_t>(begin));
      const std::size_t end = std::min(steps.size(), begin + chunk);
      fewer.insert(fewer.end(), steps.begin() + static_cast<std::ptrdiff_t>(end), steps.end());
      if (const auto left = ReplaySteps(model, initial, fewer, violates, &calls)) {
        fewer.resize(*left);
        steps = std::move(fewer);
        dropped = true;
      } else {
        begin += chunk;
      }
    }
    if (calls >= max_calls) break;
    if (chunk == 1) {
      if (!dropped) break;
    } else {
      chunk /= 2;
    }
  }
  std::vector<TraceStep> shorter = AsRoundRobin(model, initial, steps);
  return StatementsIn(shorter) < StatementsIn(trace) ? shorter : trace;
}

}  // namespace druba
