// Rebuilds the schedule that led to a record: every slot from an initial node, as a step (with
// the action that produced it), a stutter (the thread had no enabled action) or a delay.
#pragma once

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "explore/explorer.h"

namespace druba {

struct TraceStep {
  enum class Kind { kInitial, kStep, kStutter, kDelay };
  Kind kind = Kind::kInitial;
  std::uint32_t thread = 0;  // the thread whose slot this is
  std::uint32_t action = 0;  // the action taken, for kStep
  std::uint32_t rounds = 0;  // counters after this slot
  std::uint32_t delays = 0;
  std::vector<Word> state;  // program state after this slot
};

// The name traces use for a slot's kind ("initial", "step", "stutter", "delay").
inline const char* TraceKindName(TraceStep::Kind kind) {
  switch (kind) {
    case TraceStep::Kind::kInitial:
      return "initial";
    case TraceStep::Kind::kStep:
      return "step";
    case TraceStep::Kind::kStutter:
      return "stutter";
    case TraceStep::Kind::kDelay:
      return "delay";
  }
  return "?";
}

// How many of a trace's slots are steps (statements or rules taken).
inline std::size_t StatementsIn(const std::vector<TraceStep>& trace) {
  return static_cast<std::size_t>(std::count_if(trace.begin(), trace.end(), [](const TraceStep& s) {
    return s.kind == TraceStep::Kind::kStep;
  }));
}

// Given each slot's thread, counters and state (the first slot an initial state), names each
// later slot: a delay when its delays grew, else the step of the action that leads to its state,
// or a stutter when the thread had no enabled action. The search that found the path (one
// process's or several's) knows no more than that.
template <ExplorableModel Model>
void NameSlots(Model& model, std::vector<TraceStep>& trace) {
  for (std::size_t i = 0; i < trace.size(); ++i) {
    TraceStep& step = trace[i];
    if (i == 0) {
      step.kind = TraceStep::Kind::kInitial;
      continue;
    }
    const TraceStep& before = trace[i - 1];
    if (step.delays > before.delays) {
      step.kind = TraceStep::Kind::kDelay;
      continue;
    }
    std::vector<Word> copy = before.state;
    bool found = false;
    bool any = false;
    model.ForEachSuccessor(StateView(copy), step.thread, [&](std::uint32_t action, StateView succ) {
      any = true;
      if (!found && std::equal(succ.begin(), succ.end(), step.state.begin())) {
        found = true;
        step.action = action;
      }
    });
    if (!found && any) {
      throw std::logic_error("trace: no action of thread " + std::to_string(step.thread) +
                             " leads to the recorded state");
    }
    step.kind = found ? TraceStep::Kind::kStep : TraceStep::Kind::kStutter;
  }
}

template <ExplorableModel Model, ExploreListener Listener>
std::vector<TraceStep> ReconstructTrace(const Explorer<Model, Listener>& explorer, Model& model,
                                        std::uint32_t record) {
  std::vector<TraceStep> trace;
  for (const std::uint32_t id : explorer.PathTo(record)) {
    const NodeRecord& node = explorer.record(id);
    TraceStep step;
    step.thread = node.finder;
    step.rounds = node.rounds;
    step.delays = node.delays;
    step.state = explorer.state(node.state);
    trace.push_back(std::move(step));
  }
  NameSlots(model, trace);
  return trace;
}

}  // namespace druba
