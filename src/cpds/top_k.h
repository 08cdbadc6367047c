// The top-K-of-each-stack abstraction (paper Ex. 5 for K = 1; DESIGN.md section 4):
//   alpha(g, w0..wn-1) = (g, topK(w0), ..., topK(wn-1)),
// laid out as [g, thread 0's K slots from the top down, thread 1's, ...], kNone past a stack's end.
//
// Respect (Def. 4): a rule of thread t is enabled iff g and the top of w_t match, both visible.
// Overwrite and push only change the top one or two symbols and keep the rest, and push adds
// symbols the rule names, so topK after them is a function of (g, topK before): they respect alpha.
// A stutter (no enabled rule) keeps the state. A pop exposes the symbol under the K-th, which alpha
// hides: pops disrespect alpha, and their abstract successors are all the ways to fill the freed
// slot with a symbol that may lie below the K-th (MayLieBelow, sound by the argument in below.h),
// or nothing when the K-th may be the bottom. When the stack is shorter than K, alpha shows all of
// it and the successor is exact.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <absl/container/flat_hash_map.h>

#include "abstraction/abstraction.h"
#include "abstraction/symmetry.h"
#include "abstraction/upper_bound.h"
#include "cpds/below.h"
#include "cpds/model.h"
#include "explore/state_store.h"

namespace druba::cpds {

class TopKAbstraction {
 public:
  static constexpr Word kNone = 0xFFFFFFFFU;
  static constexpr std::uint32_t kStutter = 0xFFFFFFFFU;  // the "action" of a blocked thread
  static_assert(kNone == MayLieBelow::kBottom, "an empty slot and the bottom marker agree");

  // `target`, if any, must name at most K symbols per stack (CheckTarget).
  TopKAbstraction(const CpdsModel& model, std::uint32_t k, std::optional<TargetPattern> target);

  // Empty if `target` can be decided on top-K abstract states; otherwise why not.
  static std::string CheckTarget(const TargetPattern& target, std::uint32_t k);

  std::size_t width() const { return 1 + n_ * k_; }
  std::uint32_t k() const { return k_; }

  void Abstract(StateView state, std::span<Word> out) const {
    const StackTable& stacks = model_.stacks();
    out[0] = state[0];
    Word* slot = out.data() + 1;
    for (std::uint32_t t = 0; t < n_; ++t) {
      StackId id = state[1 + t];
      for (std::uint32_t j = 0; j < k_; ++j) {
        *slot++ = id == StackTable::kEmpty ? kNone : stacks.Top(id);
        if (id != StackTable::kEmpty) id = stacks.Rest(id);
      }
    }
  }

  // The target, if any, and with SetDeadlock a deadlocked state: no thread can move (a thread's
  // moves depend on the shared state and its top symbol only, so the abstraction decides it) and
  // some thread has not finished (a non-empty stack).
  bool Violates(StateView abstract) const;
  void SetDeadlock(bool on) { deadlock_ = on; }
  bool deadlock() const { return deadlock_; }
  bool Deadlocked(StateView abstract) const;

  class ClosureOracle;
  // Pop successors, with what may lie below drawn from the relations of below.h relative to
  // `reached` (their soundness argument is there).
  ClosureOracle MakeClosureOracle(const StateStore& reached) const;
  // What those relations read off `reached` (merged over the parts of a set, the whole set's),
  // and the oracle made from them.
  VisibleFacts Facts(const StateStore& reached) const;
  ClosureOracle MakeOracle(const VisibleFacts& facts) const;
  // Pop successors drawn from the relations of below.h with every tuple visible: sound without
  // any reached set (the static relation of a sandwich proof's upper bound).
  ClosureOracle MakeStaticOracle() const;

  // The classes of interchangeable threads: identical PDA blocks (the same rules, in any order)
  // and identical initial stacks. Thread t's component is its K slots.
  ThreadSymmetry Symmetry() const;

  // "g|t0,t1,...": each thread's visible symbols bottom to top joined by '.', '-' when empty.
  std::string Describe(StateView abstract) const;
  std::string DescribeAction(std::uint32_t thread, std::uint32_t action) const;

 private:
  bool MatchesTarget(StateView abstract) const;
  static std::uint64_t Key(Word g, Word top) { return static_cast<std::uint64_t>(g) << 32 | top; }

  const CpdsModel& model_;
  bool deadlock_ = false;
  std::uint32_t k_;
  std::uint32_t n_;
  std::optional<TargetPattern> target_;
  // Per thread: (shared, top) -> the rules that match, and the pop rules among them.
  std::vector<absl::flat_hash_map<std::uint64_t, std::vector<std::uint32_t>>> rules_;
  std::vector<absl::flat_hash_map<std::uint64_t, std::vector<std::uint32_t>>> pops_;
};

class TopKAbstraction::ClosureOracle {
 public:
  // `visible`: the facts of the reached set's visible tuples (MayLieBelow); nullptr: every tuple.
  ClosureOracle(const TopKAbstraction& abs, const VisibleFacts* visible)
      : abs_(abs), below_(abs.model_.cpds(), abs.model_.init(), visible) {}

  template <class F>
  void ForEachDisrespectSuccessor(StateView abstract, F&& yield) const {
    std::vector<Word> succ(abstract.begin(), abstract.end());
    for (std::uint32_t t = 0; t < abs_.n_; ++t) {
      const Word* slots = abstract.data() + 1 + std::size_t{t} * abs_.k_;
      if (slots[0] == kNone) continue;
      const auto it = abs_.pops_[t].find(Key(abstract[0], slots[0]));
      if (it == abs_.pops_[t].end()) continue;
      Word* out = succ.data() + 1 + std::size_t{t} * abs_.k_;
      for (std::uint32_t j = 0; j + 1 < abs_.k_; ++j) out[j] = slots[j + 1];
      for (const std::uint32_t action : it->second) {
        succ[0] = abs_.model_.rule(t, action).new_shared;
        const Word last = slots[abs_.k_ - 1];
        if (last == kNone) {  // the whole stack is visible: the pop is exact
          out[abs_.k_ - 1] = kNone;
          yield(t, action, StateView(succ));
          continue;
        }
        // With K = 1 the popped symbol was the top, seen with the shared state; otherwise the
        // K-th symbol is under the top and only the shared-state-free relation applies.
        const std::vector<Symbol>& candidates =
            abs_.k_ == 1 ? below_.BelowTop(t, abstract[0], last) : below_.BelowDeep(t, last);
        for (const Symbol below : candidates) {
          out[abs_.k_ - 1] = below == MayLieBelow::kBottom ? kNone : below;
          yield(t, action, StateView(succ));
        }
      }
      for (std::uint32_t j = 0; j < abs_.k_; ++j) out[j] = slots[j];
      succ[0] = abstract[0];
    }
  }

  // The relation decides every successor: never undecided.
  std::string_view undecided() const { return {}; }

  // Successors under every action of every thread (the `ai` baseline): overwrites and pushes are
  // exact on the top K symbols, pops as above, and a thread with no enabled rule stutters.
  template <class F>
  void ForEachAbstractSuccessor(StateView abstract, F&& yield) const {
    ForEachDisrespectSuccessor(abstract, yield);
    std::vector<Word> succ(abstract.begin(), abstract.end());
    const std::uint32_t k = abs_.k_;
    for (std::uint32_t t = 0; t < abs_.n_; ++t) {
      const Word* slots = abstract.data() + 1 + std::size_t{t} * k;
      const auto it = slots[0] == kNone ? abs_.rules_[t].end()
                                        : abs_.rules_[t].find(Key(abstract[0], slots[0]));
      if (it == abs_.rules_[t].end()) {
        yield(t, kStutter, abstract);
        continue;
      }
      Word* out = succ.data() + 1 + std::size_t{t} * k;
      for (const std::uint32_t action : it->second) {
        const Rule& rule = abs_.model_.rule(t, action);
        if (rule.kind == RuleKind::kPop) continue;
        succ[0] = rule.new_shared;
        if (rule.kind == RuleKind::kOverwrite) {
          out[0] = rule.new_top;
        } else {  // push: l1 over l2, which replaces the old top; the K-th symbol drops out of view
          for (std::uint32_t j = k; j-- > 2;) out[j] = slots[j - 1];
          if (k > 1) out[1] = rule.below;
          out[0] = rule.new_top;
        }
        yield(t, action, StateView(succ));
        for (std::uint32_t j = 0; j < k; ++j) out[j] = slots[j];
      }
      succ[0] = abstract[0];
    }
  }

  const MayLieBelow& below() const { return below_; }
  // Whether `other` enumerates the same successors (the same relation; upper_bound.h).
  bool SameAs(const ClosureOracle& other) const { return below_ == other.below_; }

 private:
  const TopKAbstraction& abs_;
  MayLieBelow below_;
};

// The sandwich proof for a top-K abstraction (DESIGN.md section 8): O computed with pops by the
// may-lie-below relation of below.h, `joint` (relative to O itself, whose soundness argument is
// upper_bound.h's with below.h's induction) or static (every tuple visible), and the thread
// symmetry of identical blocks with identical initial stacks. `abs` must outlive the result.
SandwichSetup MakeSandwich(const TopKAbstraction& abs, bool joint, bool has_property);

static_assert(Abstraction<TopKAbstraction>);

}  // namespace druba::cpds
