// The sandwich proof of DESIGN.md section 8 for one run of the driver (driver.h): the upper bound O
// of alpha(R), computed first or alongside the exploration, and the lower bound Sym(U), the
// reached abstract states closed under the thread symmetry, from the Round-Robin search (the
// tracker's new abstract states) and, with interchangeable threads, from a search over canonical
// representatives under free scheduling (symmetric_search.h). When Sym(U) covers O, alpha(R) = O.
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "abstraction/abstraction.h"
#include "abstraction/run_result.h"
#include "abstraction/symmetric_search.h"
#include "abstraction/symmetry.h"
#include "abstraction/upper_bound.h"
#include "common/resources.h"
#include "explore/model.h"

namespace druba {

// The reasons of a `safe` from O (also the distributed run's, src/distributed).
inline std::string UpperBoundProofReason(std::size_t size) {
  return "no abstract state of the upper bound O (" + std::to_string(size) +
         " states, closed under every action) violates the property";
}
inline std::string SandwichProofReason(std::size_t size) {
  return "the upper bound O (" + std::to_string(size) +
         " abstract states, closed under every action) equals the reached abstract states closed "
         "under the thread symmetry, so it is exactly alpha(R)";
}

template <ExplorableModel Model, Abstraction Abs>
class SandwichProof {
 public:
  SandwichProof(Model& model, const Abs& abs, SandwichSetup setup)
      : model_(model), abs_(abs), setup_(std::move(setup)) {}

  // Advances the computation of O by its share of the work (all of it when a property was
  // given, or with a thread symmetry for the canonical search), and once O is complete starts to
  // watch U (`tracker`: the Round-Robin search's abstract states; `explorer_calls`: its
  // successor calls so far). True when O alone answers (no state of it
  // violates the property, which was given).
  bool Advance(RunResult& result, std::uint64_t explorer_calls, LimitWatch* limits,
               AbstractTracker<Abs>& tracker) {
    if (sandwich_over_) return false;
    if (!upper_search_) StartUpperSearch();
    std::uint64_t budget = std::numeric_limits<std::uint64_t>::max();
    // With a property, or with a thread symmetry for the search over canonical representatives
    // (which needs O to know when to stop), O is computed in full first.
    if (!setup_.has_property && setup_.concrete_symmetry.classes.empty()) {
      const double allowed = static_cast<double>(setup_.head_start) +
                             setup_.share * static_cast<double>(explorer_calls) -
                             static_cast<double>(upper_search_->stats().successors);
      if (!(allowed >= 1)) return false;
      if (allowed < 1e18) budget = static_cast<std::uint64_t>(allowed);
    }
    const auto status = upper_search_->Advance(budget, limits);
    result.upper_bound_stats = upper_search_->stats();
    if (status == UpperBoundSearch::Status::kRunning) return false;
    sandwich_over_ = true;
    if (status == UpperBoundSearch::Status::kStopped) {
      result.upper_bound_note = "no upper bound: " + upper_search_->stop_reason();
      return false;
    }
    upper_ = &upper_search_->set();
    result.upper_bound = upper_->size();
    bool violating = false;
    for (std::uint32_t id = 0; id < upper_->size() && !violating; ++id) {
      violating = abs_.Violates(upper_->Get(id));
    }
    if (!violating && setup_.has_property) {
      answered_by_upper_ = true;
      result.verdict = Verdict::kSafe;
      result.proof = Proof::kUpperBound;
      result.reason = UpperBoundProofReason(upper_->size());
      return true;
    }
    if (violating) {
      result.upper_bound_note = "the upper bound holds a state that violates the property";
      return false;
    }
    WatchReached(tracker);
    if (!setup_.concrete_symmetry.classes.empty()) {
      symmetric_ = std::make_unique<SymmetricLowerBound<Model, Abs>>(
          model_, abs_, setup_.concrete_symmetry, limits);
      return Holds(result, explorer_calls);
    }
    return false;
  }

  // O's search, from the abstract initial states.
  void StartUpperSearch() {
    auto initial = std::make_unique<StateStore>(abs_.width());
    std::vector<Word> a(abs_.width());
    model_.ForEachInitial([&](StateView state) {
      abs_.Abstract(state, std::span<Word>(a));
      initial->FindOrInsert(StateView(a));
    });
    upper_search_ = setup_.upper_bound(std::move(initial));
  }

  // O is complete: Sym(U) gets the abstract states reached so far and every one reached from now
  // on, and the search stops as soon as |Sym(U)| reaches |O| (or U leaves O): SandwichHolds
  // decides.
  void WatchReached(AbstractTracker<Abs>& tracker) {
    sandwich_live_ = true;
    lower_ = std::make_unique<SymmetricImage>(abs_.width(), setup_.symmetry);
    const auto watch = [this](StateView reached) {
      if (!upper_->Find(reached)) outside_ = true;
      lower_->Add(reached);
      return !outside_ && lower_->size() < upper_->size();
    };
    const StateStore& reached = tracker.set();
    for (std::uint32_t id = 0; id < reached.size(); ++id) watch(reached.Get(id));
    tracker.OnNewAbstract(watch);
  }

  // Advances the search over canonical representatives by its share; each abstract state it
  // reaches joins Sym(U) as the Round-Robin search's do (both find reachable states only).
  void AdvanceSymmetric(RunResult& result, std::uint64_t explorer_calls) {
    if (!symmetric_ || symmetric_over_) return;
    const double allowed = static_cast<double>(setup_.symmetric_head_start) +
                           setup_.symmetric_share * static_cast<double>(explorer_calls) -
                           static_cast<double>(symmetric_->successor_calls());
    if (!(allowed >= 1)) return;
    const auto budget = allowed < 1e18 ? static_cast<std::uint64_t>(allowed)
                                       : std::numeric_limits<std::uint64_t>::max();
    const auto status = symmetric_->Advance(
        budget,
        [&](StateView abstract) {
          if (!upper_->Find(abstract)) outside_ = true;
          lower_->Add(abstract);
        },
        [&] { return outside_ || lower_->size() >= upper_->size(); });
    symmetric_over_ = status != SymmetricLowerBound<Model, Abs>::Status::kRunning;
    result.symmetric_search_states = symmetric_->states();
    result.symmetric_search_calls = symmetric_->successor_calls();
  }

  // After a raise: does Sym(U) cover O? Then alpha(R) = O (DESIGN.md section 8).
  bool Holds(RunResult& result, std::uint64_t explorer_calls) {
    if (!sandwich_live_) return false;
    const std::size_t before = lower_->size();
    AdvanceSymmetric(result, explorer_calls);
    result.symmetric_reached = lower_->size();
    if (outside_) {
      throw std::logic_error(
          "a reached abstract state lies outside the upper bound O: O is not an upper bound");
    }
    if (lower_->size() != upper_->size()) return false;
    for (std::uint32_t id = 0; id < upper_->size(); ++id) {
      if (!lower_->Contains(upper_->Get(id))) {
        throw std::logic_error(
            "|Sym(U)| = |O| but O holds a state outside Sym(U): O is not closed under the thread "
            "symmetry");
      }
    }
    answered_by_upper_ = true;
    result.lower_bound_by_symmetric_search = before < upper_->size();
    result.verdict = Verdict::kSafe;
    result.proof = Proof::kSandwich;
    result.reason = SandwichProofReason(upper_->size());
    return true;
  }

  // |O| once computed and free of violations (the lower bound is being watched).
  std::optional<std::size_t> upper_bound_size() const {
    return sandwich_live_ ? std::optional<std::size_t>(upper_->size()) : std::nullopt;
  }
  // O, when it answered (an upper-bound or sandwich proof); null otherwise.
  const StateStore* answer() const { return answered_by_upper_ ? upper_ : nullptr; }

  // At the end of a run: a note when O was not complete.
  void NoteUnfinished(RunResult& result) const {
    if (upper_search_ && !sandwich_over_) {
      result.upper_bound_note = "O was not complete when the run ended (it takes at most " +
                                std::to_string(static_cast<int>(setup_.share * 100)) +
                                "% of the exploration's successor calls)";
    }
  }

 private:
  Model& model_;
  const Abs& abs_;
  SandwichSetup setup_;
  std::unique_ptr<UpperBoundSearch> upper_search_;
  const StateStore* upper_ = nullptr;                           // O, once complete
  std::unique_ptr<SymmetricImage> lower_;                       // Sym(U)
  std::unique_ptr<SymmetricLowerBound<Model, Abs>> symmetric_;  // beside the Round-Robin search
  bool symmetric_over_ = false;                                 // it exhausted or was stopped
  bool sandwich_over_ = false;                                  // O complete, or given up
  bool sandwich_live_ = false;      // O complete and free of violations: watching U
  bool outside_ = false;            // a state of U outside O (an internal error)
  bool answered_by_upper_ = false;  // answer() is O
};

}  // namespace druba
