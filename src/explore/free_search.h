// Plain exhaustive search under free scheduling: every thread may move in every state, no rounds,
// no delays (the `explicit` baseline). Exact when it finishes; a `too_big` predicate on states
// (for CPDS: a stack deeper than a limit) stops it with a reason instead of running forever.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "common/resources.h"
#include "explore/explorer.h"
#include "explore/trace.h"

namespace druba {

template <ExplorableModel Model, ExploreListener Listener>
class FreeSearch {
 public:
  FreeSearch(Model& model, Listener& listener, LimitWatch* limits = nullptr)
      : model_(model), listener_(listener), limits_(limits), states_(model.state_width()) {}

  // Breadth-first, so a violation's trace is a shortest one. False if stopped.
  template <class TooBig>
  bool Run(TooBig&& too_big) {
    if (model_.num_threads() > kMaxThreads) {  // as the bounded search (Explorer)
      stopped_ = true;
      stop_reason_ = "more than " + std::to_string(kMaxThreads) + " threads";
      return false;
    }
    model_.ForEachInitial([&](StateView s) { Add(s, kNoParent, 0, 0, too_big); });
    for (std::uint32_t next = 0; next < states_.size() && !stopped_; ++next) {
      if (limits_ != nullptr) {
        if (auto reason = limits_->Poll()) {
          stopped_ = true;
          stop_reason_ = *reason;
          break;
        }
      }
      if (image_calls_ >= max_calls_) {
        stopped_ = true;
        stop_reason_ = "its budget of " + std::to_string(max_calls_) + " successor calls was spent";
        break;
      }
      scratch_.assign(states_.Get(next).begin(), states_.Get(next).end());
      for (std::uint32_t t = 0; t < model_.num_threads() && !stopped_; ++t) {
        ++image_calls_;
        model_.ForEachSuccessor(StateView(scratch_), t, [&](std::uint32_t action, StateView s) {
          if (!stopped_) Add(s, next, t, action, too_big);
        });
      }
    }
    // A stop asked for while the last state was expanded is a stop too.
    if (limits_ != nullptr && !stopped_) {
      if (auto reason = limits_->Poll()) {
        stopped_ = true;
        stop_reason_ = *reason;
      }
    }
    return !stopped_;
  }

  // At most `calls` successor calls (then it stops, incomplete).
  void SetBudget(std::uint64_t calls) { max_calls_ = calls; }
  bool stopped() const { return stopped_; }
  const std::string& stop_reason() const { return stop_reason_; }
  std::size_t num_states() const { return states_.size(); }
  StateView state(std::uint32_t id) const { return states_.Get(id); }
  std::uint64_t image_calls() const { return image_calls_; }
  std::size_t MemoryBytes() const {
    return states_.MemoryBytes() + parents_.capacity() * sizeof(Parent);
  }

  // The steps from an initial state to state `id`, each with its thread and action.
  std::vector<TraceStep> Trace(std::uint32_t id) const {
    std::vector<TraceStep> trace;
    for (std::uint32_t s = id; s != kNoParent; s = parents_[s].state) {
      TraceStep step;
      step.kind =
          parents_[s].state == kNoParent ? TraceStep::Kind::kInitial : TraceStep::Kind::kStep;
      step.thread = parents_[s].thread;
      step.action = parents_[s].action;
      step.state.assign(states_.Get(s).begin(), states_.Get(s).end());
      trace.push_back(std::move(step));
    }
    return {trace.rbegin(), trace.rend()};
  }

 private:
  struct Parent {
    std::uint32_t state;
    std::uint32_t thread;
    std::uint32_t action;
  };

  template <class TooBig>
  void Add(StateView s, std::uint32_t parent, std::uint32_t thread, std::uint32_t action,
           TooBig& too_big) {
    const auto found = states_.FindOrInsert(s);
    if (!found.is_new) return;
    parents_.push_back({parent, thread, action});
    if (const std::string why = too_big(s); !why.empty()) {
      stopped_ = true;
      stop_reason_ = why;
      return;
    }
    // The listener's "record" here is the state id; Trace() turns it into steps.
    if (!listener_.OnNewState(found.id, states_.Get(found.id))) {
      stopped_ = true;
      stop_reason_ = "listener";
    }
  }

  Model& model_;
  Listener& listener_;
  LimitWatch* limits_;
  StateStore states_;
  std::vector<Parent> parents_;
  std::vector<Word> scratch_;
  std::uint64_t image_calls_ = 0;
  std::uint64_t max_calls_ = std::numeric_limits<std::uint64_t>::max();
  bool stopped_ = false;
  std::string stop_reason_;
};

}  // namespace druba
