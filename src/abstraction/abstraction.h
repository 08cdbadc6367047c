// The abstraction interface (paper Sec. 3, DESIGN.md section 4) and the listener that watches the
// abstract image of the reached states.
//
// An abstraction maps a program state to a fixed-width word vector (an element of a finite
// domain), decides the property on abstract states (so the property respects it by construction),
// and, through a closure oracle made from the reached abstract set (so it may assume invariants
// proved jointly with the closure test), enumerates for an abstract state its abstract successors
// under the actions that disrespect it. Actions not enumerated there must respect it (Def. 4); each
// abstraction documents why.
#pragma once

#include <concepts>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "explore/state_store.h"

namespace druba {

// Everything the driver asks of an abstraction: its width, the abstraction of a program state,
// the property on abstract states, and a closure oracle over a reached abstract set that
// enumerates the abstract successors under the disrespecting actions (the closure test), under
// every action (the `ai` baseline and the upper bound O), and says why it could not decide, if it
// could not (empty when it did; a solver's unknown).
template <class A>
concept Abstraction = requires(const A& abs, StateView state, std::span<Word> out,
                               const StateStore& reached) {
  { abs.width() } -> std::convertible_to<std::size_t>;
  abs.Abstract(state, out);
  { abs.Violates(state) } -> std::convertible_to<bool>;
  abs.MakeClosureOracle(reached).ForEachDisrespectSuccessor(
      state, [](std::uint32_t /*thread*/, std::uint32_t /*action*/, StateView /*successor*/) {});
  abs.MakeClosureOracle(reached).ForEachAbstractSuccessor(
      state, [](std::uint32_t /*thread*/, std::uint32_t /*action*/, StateView /*successor*/) {});
  { abs.MakeClosureOracle(reached).undecided() } -> std::convertible_to<std::string_view>;
};

// Listener for the explorer: keeps the set of abstract states reached so far, counts new ones, and
// stops the search at the first state that violates the property.
template <Abstraction A>
class AbstractTracker {
 public:
  explicit AbstractTracker(const A& abs) : abs_(abs), set_(abs.width()), scratch_(abs.width()) {}

  bool OnNewState(std::uint32_t record, StateView state) {
    if (held_) return true;
    if (concrete_ && concrete_(state)) {
      violation_record_ = record;
      return false;
    }
    abs_.Abstract(state, std::span<Word>(scratch_));
    const auto found = set_.FindOrInsert(StateView(scratch_));
    if (!found.is_new) return true;
    ++new_abstract_;
    if (on_new_abstract_ && !on_new_abstract_(set_.Get(found.id))) return false;
    if (abs_.Violates(set_.Get(found.id))) {
      violation_record_ = record;
      return false;
    }
    return true;
  }

  // Abstract states added since the last call.
  std::size_t TakeNewCount() {
    const std::size_t count = new_abstract_;
    new_abstract_ = 0;
    return count;
  }

  const StateStore& set() const { return set_; }
  Growth NextGrowth() const { return set_.NextGrowth(); }
  std::optional<std::uint32_t> violation_record() const { return violation_record_; }
  // Called with each abstract state the first time it is reached (the sandwich proof's Sym(U));
  // returning false stops the search (Explorer::stopped) without a violation.
  void OnNewAbstract(std::function<bool(StateView)> call) { on_new_abstract_ = std::move(call); }
  // A property of concrete states the abstraction does not decide: checked on every new program
  // state (true: it violates), beside the abstraction's own.
  void CheckConcrete(std::function<bool(StateView)> violates) { concrete_ = std::move(violates); }
  // While held, new states pass unseen (abstraction/search_replay.h shows them later, within
  // bounds).
  void Hold(bool held) { held_ = held; }

 private:
  bool held_ = false;
  std::function<bool(StateView)> on_new_abstract_;
  std::function<bool(StateView)> concrete_;
  const A& abs_;
  StateStore set_;
  std::vector<Word> scratch_;
  std::size_t new_abstract_ = 0;
  std::optional<std::uint32_t> violation_record_;
};

// An abstract state whose successor under a disrespecting action was not reached.
struct ClosureFailure {
  std::vector<Word> from;
  std::uint32_t thread = 0;
  std::uint32_t action = 0;
  std::vector<Word> to;
  std::string undecided;  // set instead when a solver could not decide the closure test
};

// Def. 6: is `set` closed under the actions that disrespect `abs`? Counts the successor
// membership tests in `*checks`.
// With `all_actions`, closure under every action instead (the `ai` baseline); the oracle then
// needs ForEachAbstractSuccessor.
template <Abstraction A>
std::optional<ClosureFailure> CheckClosure(const A& abs, const StateStore& set,
                                           std::uint64_t* checks, bool all_actions = false) {
  std::optional<ClosureFailure> failure;
  const auto oracle = abs.MakeClosureOracle(set);
  for (std::uint32_t id = 0; id < set.size() && !failure; ++id) {
    const StateView from = set.Get(id);
    const auto check = [&](std::uint32_t thread, std::uint32_t action, StateView to) {
      if (failure) return;
      ++*checks;
      if (!set.Find(to)) {
        failure =
            ClosureFailure{{from.begin(), from.end()}, thread, action, {to.begin(), to.end()}, {}};
      }
    };
    if (all_actions) {
      oracle.ForEachAbstractSuccessor(from, check);
    } else {
      oracle.ForEachDisrespectSuccessor(from, check);
    }
    if (!failure && !oracle.undecided().empty()) {
      failure =
          ClosureFailure{{from.begin(), from.end()}, 0, 0, {}, std::string(oracle.undecided())};
    }
  }
  return failure;
}

}  // namespace druba
