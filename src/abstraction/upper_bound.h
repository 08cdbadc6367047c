// The upper half of a sandwich proof (DESIGN.md section 8): a set O of abstract states that
// contains alpha(R), the abstraction of every state reachable under free scheduling, computed on
// abstract states alone.
//
// O is the least set S that contains alpha of the initial states and is closed under
// `oracle(S).ForEachAbstractSuccessor`, the abstract post of every action of every thread, where
// the oracle may resolve what the abstraction hides (a popped symbol, the values behind a
// predicate) by an invariant computed from S itself. Soundness is the induction that proves the
// `ai` baseline's verdict, now run over every action instead of after a plateau: suppose every
// oracle the abstraction makes from a set S enumerates, for each a in S, the abstraction of every
// successor of every concrete state s with alpha(s) = a that satisfies the oracle's invariant, and
// that invariant is preserved by every step whose source and target abstractions lie in S (for
// CPDS the may-lie-below relation of cpds/below.h, whose proof uses exactly that; for predicate
// abstraction "every thread's view lies in S"). Then, by induction on the length of a path, every
// reachable state has its abstraction in S and satisfies the invariant: the initial states by
// construction, and a step from s to s' because alpha(s') is enumerated from alpha(s) in S.
// Nothing here depends on Round-Robin bounds: O bounds alpha(R) for free scheduling, and so bounds
// alpha(R(r,d)) for every r and d.
//
// Kleene iteration: each pass makes the oracle from the set as it stands and expands every state
// with it; the states a pass adds are expanded in the same pass. At the end of a pass S is closed
// under the oracle the pass used. If S did not grow, that oracle was oracle(S); if the abstraction
// can tell that the oracle made from the grown S enumerates nothing the pass's oracle did not
// (`SameAs`: for CPDS, the same may-lie-below relation), S is closed under oracle(S) too. Either
// way S is the result. Passes only add states and the domain is finite, so the loop ends (or a
// limit stops it first; the set is then not an upper bound and must not be used).
//
// The search is resumable: the driver gives it a budget of work at a time (Advance), so that O
// costs a bounded share of a run whose exploration would answer sooner anyway.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "abstraction/symmetry.h"
#include "common/resources.h"
#include "explore/state_store.h"

namespace druba {

struct UpperBoundStats {
  std::size_t passes = 0;
  std::uint64_t successors = 0;  // abstract successors enumerated
  double time_s = 0;
};

class UpperBoundSearch {
 public:
  enum class Status { kRunning, kDone, kStopped };
  virtual ~UpperBoundSearch() = default;
  // Goes on until about `budget` abstract successors more were enumerated, O is complete (kDone),
  // or a limit or an undecided query stopped it (kStopped; stop_reason says why).
  virtual Status Advance(std::uint64_t budget, LimitWatch* limits) = 0;
  // O once Advance returned kDone; before that, an incomplete set.
  virtual const StateStore& set() const = 0;
  virtual const std::string& stop_reason() const = 0;
  virtual const UpperBoundStats& stats() const = 0;
};

// What the sandwich proof needs from the model kind (DESIGN.md section 8).
struct SandwichSetup {
  // Starts the computation of O from a set holding alpha of the initial states.
  std::function<std::unique_ptr<UpperBoundSearch>(std::unique_ptr<StateStore> initial)> upper_bound;
  std::string relation;  // how O resolves what the abstraction hides, for the report
  ThreadSymmetry symmetry;
  // A property was given: O is computed in full before any exploration, and when no state of it
  // violates the property the verdict is `safe` at once. (Without one, `verify` computes
  // alpha(R), and O is computed alongside the exploration: see share.)
  bool has_property = false;
  // Without a property, O may take this share of the exploration's successor calls so far (plus
  // `head_start` abstract successors), so that it never slows a run by much more than the share.
  double share = 1.0 / 8;
  std::uint64_t head_start = 1024;
  // The symmetry of the concrete states (empty classes: none). With one, the lower bound is also
  // sought by a search over canonical representatives under free scheduling
  // (abstraction/symmetric_search.h): `symmetric_head_start` successor calls as soon as O is
  // complete, then `symmetric_share` of the Round-Robin search's calls.
  ThreadSymmetry concrete_symmetry;
  std::uint64_t symmetric_head_start = std::uint64_t{1} << 22;
  double symmetric_share = 1.0 / 2;
};

// Kleene iteration over `make_oracle(set)`, as above.
template <class MakeOracle>
class KleeneUpperBound final : public UpperBoundSearch {
 public:
  using Oracle = decltype(std::declval<MakeOracle&>()(std::declval<const StateStore&>()));

  KleeneUpperBound(std::unique_ptr<StateStore> initial, MakeOracle make_oracle,
                   std::size_t max_states)
      : set_(std::move(initial)),
        make_oracle_(std::move(make_oracle)),
        max_states_(max_states),
        from_(set_->width()) {}

  Status Advance(std::uint64_t budget, LimitWatch* limits) override {
    if (status_ != Status::kRunning) return status_;
    const Stopwatch clock;
    const std::size_t width = set_->width();
    const std::uint64_t until = stats_.successors + budget;
    while (status_ == Status::kRunning && stats_.successors < until) {
      if (!oracle_) {
        ++stats_.passes;
        pass_start_size_ = set_->size();
        cursor_ = 0;
        oracle_.emplace(make_oracle_(static_cast<const StateStore&>(*set_)));
      }
      if (cursor_ == set_->size()) {
        EndPass();
        continue;
      }
      const StateView state = set_->Get(cursor_++);
      from_.assign(state.begin(), state.end());
      found_.clear();
      oracle_->ForEachAbstractSuccessor(
          StateView(from_), [&](std::uint32_t /*thread*/, std::uint32_t /*action*/, StateView to) {
            found_.insert(found_.end(), to.begin(), to.end());
          });
      stats_.successors += 1 + found_.size() / width;
      for (std::size_t at = 0; at < found_.size(); at += width) {
        set_->FindOrInsert(StateView(found_.data() + at, width));
      }
      if (!oracle_->undecided().empty()) {
        Stop("a solver query was undecided: " + std::string(oracle_->undecided()));
      }
      if (set_->size() > max_states_) {
        Stop("it has more than " + std::to_string(max_states_) + " abstract states");
      } else if (limits != nullptr) {
        // The set's next doubling counts before it happens: a memory limit stops the search
        // ahead of the allocation, not after it.
        if (auto reason = limits->Poll([&] { return set_->NextGrowth(); })) Stop(*reason);
      }
    }
    stats_.time_s += clock.Seconds();
    return status_;
  }

  const StateStore& set() const override { return *set_; }
  const std::string& stop_reason() const override { return stop_reason_; }
  const UpperBoundStats& stats() const override { return stats_; }

 private:
  void EndPass() {
    if (set_->size() == pass_start_size_) {
      status_ = Status::kDone;
      return;
    }
    if constexpr (requires(const Oracle& a, const Oracle& b) { a.SameAs(b); }) {
      Oracle next = make_oracle_(static_cast<const StateStore&>(*set_));
      if (next.SameAs(*oracle_)) {
        status_ = Status::kDone;
        return;
      }
    }
    oracle_.reset();
  }
  void Stop(std::string reason) {
    status_ = Status::kStopped;
    stop_reason_ = std::move(reason);
  }

  std::unique_ptr<StateStore> set_;
  MakeOracle make_oracle_;
  std::size_t max_states_;
  std::optional<Oracle> oracle_;  // the current pass's
  std::size_t pass_start_size_ = 0;
  std::uint32_t cursor_ = 0;
  std::vector<Word> from_;
  std::vector<Word> found_;  // a state's successors, stored after the oracle returns
  Status status_ = Status::kRunning;
  std::string stop_reason_;
  UpperBoundStats stats_;
};

template <class MakeOracle>
std::unique_ptr<UpperBoundSearch> MakeKleeneUpperBound(std::unique_ptr<StateStore> initial,
                                                       MakeOracle make_oracle,
                                                       std::size_t max_states) {
  return std::make_unique<KleeneUpperBound<MakeOracle>>(std::move(initial), std::move(make_oracle),
                                                        max_states);
}

}  // namespace druba
