// Plain exhaustive search under free scheduling: every thread may move in every state, no rounds,
// no delays (the `explicit` baseline). Exact when it finishes; a `too_big` predicate on states
// (for CPDS: a stack deeper than a limit) stops it with a reason instead of running forever.
//
// Reduced by a thread symmetry (ReduceBy), it stores one state per orbit, its canonical form
// (explore/canonical.h). That is sound for a model whose threads in each class are
// interchangeable: a permutation p of a class maps the successors of s under thread t onto the
// successors of p(s) under thread p(t), so by induction on the length of a run every reachable
// state lies in the orbit of a stored one (the initial states' forms are stored; the forms of the
// successors of a stored state are stored), and every stored state is reachable (the form of a
// reachable state is a permutation of it). When the search finishes, the stored forms are the
// orbits of the reachable states. The listener sees the states of each new form's orbit (all
// reachable), so that its abstract set is alpha(R): every one of them (OrbitViews::kAll), or,
// for an abstraction invariant under the permutations that fix thread 0 (a .drb abstraction from
// thread 0's point of view with no fixed thread index), the form with thread 0 swapped with each
// thread of its class (kSwapsWithThread0: as many as threads, not up to n!). A trace to a stored
// form is a concrete run (Trace: each step is a real step of a real thread, found again by
// matching forms).
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/resources.h"
#include "explore/canonical.h"
#include "explore/explorer.h"
#include "explore/trace.h"

namespace druba {

// Which states of a stored form's orbit the listener of a reduced search sees: the form alone
// (kFormOnly: for a listener that closes what it sees under the symmetry itself, the sandwich
// proof's Sym(U)), or as the top of this file says.
enum class OrbitViews : std::uint8_t { kAll, kSwapsWithThread0, kFormOnly };

template <ExplorableModel Model, ExploreListener Listener>
class FreeSearch {
 public:
  FreeSearch(Model& model, Listener& listener, LimitWatch* limits = nullptr)
      : model_(model), listener_(listener), limits_(limits), states_(model.state_width()) {}

  enum class Status : std::uint8_t { kRunning, kDone, kStopped };

  // Breadth-first, so a violation's trace is a shortest one. False if stopped.
  template <class TooBig>
  bool Run(TooBig&& too_big) {
    return Advance(std::numeric_limits<std::uint64_t>::max(), too_big) == Status::kDone;
  }

  // Expands stored states for at most `calls` more successor calls (kRunning: it may go on),
  // until every stored state is expanded (kDone) or it stops (kStopped: a limit, the budget, the
  // listener or `too_big`; stop_reason says which).
  template <class TooBig>
  Status Advance(std::uint64_t calls, TooBig&& too_big) {
    if (!started_) {
      started_ = true;
      if (model_.num_threads() > kMaxThreads) {  // as the bounded search (Explorer)
        stopped_ = true;
        stop_reason_ = "more than " + std::to_string(kMaxThreads) + " threads";
        return Status::kStopped;
      }
      model_.ForEachInitial([&](StateView s) { Add(s, kNoParent, 0, 0, too_big); });
    }
    const bool capped = image_calls_ >= max_calls_ || calls > max_calls_ - image_calls_;
    const std::uint64_t until = capped ? max_calls_ : image_calls_ + calls;
    for (; next_ < states_.size() && !stopped_; ++next_) {
      if (limits_ != nullptr) {  // a memory limit stops it before its table doubles, not after
        if (auto reason = limits_->Poll([this] { return NextGrowth(); })) {
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
      if (image_calls_ >= until) return Status::kRunning;
      const std::uint32_t next = next_;
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
    return stopped_ ? Status::kStopped : Status::kDone;
  }

  // Stores one state per orbit of `symmetry` (see the top of this file). Call before Run.
  void ReduceBy(ThreadSymmetry symmetry, OrbitViews views) {
    canonical_.emplace(std::move(symmetry));
    views_ = views;
    form_.resize(model_.state_width());
    view_.resize(model_.state_width());
  }
  bool reduced() const { return canonical_.has_value(); }

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

  // The steps from an initial state to state `id`, each with its thread and action. Reduced, a
  // concrete run to a state in the orbit of the stored form `id`.
  std::vector<TraceStep> Trace(std::uint32_t id) {
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
    std::reverse(trace.begin(), trace.end());
    if (canonical_) Concretise(trace);
    return trace;
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
    if (canonical_) {
      canonical_->Apply(s, std::span<Word>(form_));
      s = StateView(form_);
    }
    const auto found = states_.FindOrInsert(s);
    if (!found.is_new) return;
    parents_.push_back({parent, thread, action});
    if (const std::string why = too_big(s); !why.empty()) {
      stopped_ = true;
      stop_reason_ = why;
      return;
    }
    // The listener's "record" here is the state id; Trace() turns it into steps.
    const bool go =
        canonical_ ? ShowViews(found.id) : listener_.OnNewState(found.id, states_.Get(found.id));
    if (!go && !stopped_) {
      stopped_ = true;
      stop_reason_ = "listener";
    }
  }

  // The states of the orbit of the stored form `id` that the listener sees (OrbitViews).
  bool ShowViews(std::uint32_t id) {
    const StateView form = states_.Get(id);
    if (views_ == OrbitViews::kFormOnly) return listener_.OnNewState(id, form);
    view_.assign(form.begin(), form.end());
    if (views_ == OrbitViews::kAll) return ShowOrbit(id, form, 0);
    const std::size_t w = canonical_->symmetry().component_width;
    const auto component = [&](std::uint32_t t) { return form.data() + canonical_->Offset(t); };
    std::vector<std::uint32_t> shown;
    for (const std::vector<std::uint32_t>& cls : canonical_->symmetry().classes) {
      if (cls.front() != 0) continue;  // classes are sorted: only the first can hold thread 0
      for (const std::uint32_t k : cls) {
        const bool again = std::any_of(shown.begin(), shown.end(), [&](std::uint32_t j) {
          return std::equal(component(k), component(k) + w, component(j));
        });
        if (again) continue;
        shown.push_back(k);
        std::copy(form.begin(), form.end(), view_.begin());
        std::copy(component(k), component(k) + w, view_.data() + canonical_->Offset(0));
        std::copy(component(0), component(0) + w, view_.data() + canonical_->Offset(k));
        if (!listener_.OnNewState(id, StateView(view_))) return false;
      }
    }
    return !shown.empty() || listener_.OnNewState(id, form);
  }

  // Every arrangement of the components of classes `cls` onwards (earlier ones as in view_), each
  // distinct state once: the components of a class are permuted as a multiset.
  bool ShowOrbit(std::uint32_t id, StateView form, std::size_t cls) {
    const ThreadSymmetry& sym = canonical_->symmetry();
    if (cls == sym.classes.size()) {
      // An orbit holds up to n! states (40 threads, half at one location: 10^11): the limits are
      // polled between them, not only between forms.
      if (limits_ != nullptr) {
        if (auto reason = limits_->Poll([this] { return NextGrowth(); })) {
          stopped_ = true;
          stop_reason_ = *reason;
          return false;
        }
      }
      return listener_.OnNewState(id, StateView(view_));
    }
    const std::vector<std::uint32_t>& members = sym.classes[cls];
    const std::size_t w = sym.component_width;
    const auto component = [&](std::uint32_t t) { return form.data() + canonical_->Offset(t); };
    // The form's components of a class are sorted: equal ones get one rank.
    std::vector<std::uint32_t> ranks(members.size(), 0);
    for (std::size_t i = 1; i < members.size(); ++i) {
      const bool same = std::equal(component(members[i - 1]), component(members[i - 1]) + w,
                                   component(members[i]));
      ranks[i] = same ? ranks[i - 1] : static_cast<std::uint32_t>(i);
    }
    do {
      for (std::size_t i = 0; i < members.size(); ++i) {
        std::copy(component(members[ranks[i]]), component(members[ranks[i]]) + w,
                  view_.data() + canonical_->Offset(members[i]));
      }
      if (!ShowOrbit(id, form, cls + 1)) return false;
    } while (std::next_permutation(ranks.begin(), ranks.end()));
    return true;
  }

  // A run of stored forms made concrete: from an initial state whose form is the first, each next
  // state is a successor (any thread, any action) whose form is the next stored one. One exists:
  // the stored step from the form, permuted.
  void Concretise(std::vector<TraceStep>& trace) {
    std::vector<Word> form(model_.state_width());
    const auto matches = [&](StateView s, const std::vector<Word>& stored) {
      canonical_->Apply(s, std::span<Word>(form));
      return form == stored;
    };
    bool found = false;
    model_.ForEachInitial([&](StateView s) {
      if (found || !matches(s, trace.front().state)) return;
      trace.front().state.assign(s.begin(), s.end());
      found = true;
    });
    for (std::size_t k = 1; k < trace.size() && found; ++k) {
      found = false;
      scratch_ = trace[k - 1].state;
      for (std::uint32_t t = 0; t < model_.num_threads() && !found; ++t) {
        model_.ForEachSuccessor(StateView(scratch_), t, [&](std::uint32_t action, StateView s) {
          if (found || !matches(s, trace[k].state)) return;
          trace[k].thread = t;
          trace[k].action = action;
          trace[k].state.assign(s.begin(), s.end());
          found = true;
        });
      }
    }
    if (!found) throw std::logic_error("FreeSearch: a run of canonical forms has no concrete run");
  }

  // What the next growth of its tables and its listener's (an abstract set, which an orbit's
  // states can make far larger than the store) allocates at once.
  Growth NextGrowth() const {
    Growth growth = states_.NextGrowth();
    if constexpr (requires { listener_.NextGrowth(); }) growth += listener_.NextGrowth();
    return growth;
  }

  Model& model_;
  Listener& listener_;
  LimitWatch* limits_;
  StateStore states_;
  std::vector<Parent> parents_;
  std::vector<Word> scratch_;
  std::optional<CanonicalForm> canonical_;  // ReduceBy
  std::vector<Word> form_;
  std::vector<Word> view_;
  OrbitViews views_ = OrbitViews::kAll;
  std::uint32_t next_ = 0;  // the next stored state to expand
  bool started_ = false;
  std::uint64_t image_calls_ = 0;
  std::uint64_t max_calls_ = std::numeric_limits<std::uint64_t>::max();
  bool stopped_ = false;
  std::string stop_reason_;
};

}  // namespace druba
