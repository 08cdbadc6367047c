// What may lie directly below a stack symbol: the invariant the top-of-stack abstraction assumes
// when it computes the abstract successors of a pop (DESIGN.md section 4: the closure test may
// assume any invariant of the reachable states, if it is sound and documented).
//
// It is computed relative to S, the set of abstract states the exploration reached, from the
// visible tuples (g, top of stack 0, ..., top of stack n-1) of S. Two relations per thread t, with
// kBottom standing for "nothing: this is the bottom symbol":
//   Top(t, g, x, y):  in a reachable state with shared state g and top symbol x on t's stack,
//                     y lies directly below x;
//   Deep(t, u, v):    a symbol u that is not on top of t's stack has v directly below it.
// They are the least relations closed under these rules (a Datalog fixpoint), where Vis(t, g, x)
// means "some visible tuple of S has shared state g and top x for t":
//   (I)  t's initial stack w0..wm (bottom to top) and initial shared state g0:
//          Top(t, g0, wm, w(m-1) or kBottom), Deep(t, wj, w(j-1) or kBottom) for j < m;
//   (E)  Top(t, g, x, y), a visible tuple of S with shared g and top x for t, and a rule of another
//        thread t' matching g and t''s top in that tuple, taking g to g':  Top(t, g', x, y);
//   (O)  Top(t, g, x, y) and t's rule  g x -> g' x':        Top(t, g', x', y);
//   (P)  Top(t, g, x, y) and t's rule  g x -> g' l1 l2:     Top(t, g', l1, l2), Deep(t, l2, y);
//   (Q)  Top(t, g, x, y), y != kBottom, t's rule g x -> g' -, and Deep(t, y, z):  Top(t, g', y, z);
// and a Top fact is only kept when Vis(t, g, x) holds.
//
// Soundness. Suppose S = abstract R(r,d) met the plateau condition of Thm. 7 and the closure test,
// run with pop successors drawn from these relations, passed. Claim: every reachable state s has
// (a) alpha(s) in S and (b) "for each thread t with a non-empty stack, its top x and the y below it
// (or kBottom) have Top(t, g, x, y), and every adjacent pair (u over v) below the top has
// Deep(t, u, v)". By induction on the path to s. The initial state satisfies (a) and, by (I), (b).
// Let s satisfy (a), (b) and take a step to s'.
//   (a) for s': if the action respects alpha (push, overwrite, stutter), the proof of Thm. 7 gives
//       alpha(s') in S from alpha(s) in S and the plateau. If it is a pop, its y satisfies
//       Top(t, g, x, y) by (b) for s, so alpha(s') is among the enumerated pop successors of
//       alpha(s), which are in S by the closure test.
//   (b) for s': since alpha(s') in S, the filter Vis keeps the facts s' needs. A step of another
//       thread t' changes only g (and its own stack), by a rule enabled in s, whose visible tuple
//       is in S: rule (E). A step of t by an overwrite keeps the symbol under the top (O); a push
//       makes l1 the top over l2 and moves the old (x over y) down as (l2 over y) (P); a pop
//       exposes y, whose lower neighbour z was a pair below the top, so Deep(t, y, z) held (Q).
//       Other pairs are untouched; a stutter changes nothing.
// So alpha(R) is a subset of S, and "safe" stays sound. Without the reached set (every tuple
// visible) the same rules give a cruder relation that is sound on its own.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include <absl/container/flat_hash_map.h>
#include <absl/container/flat_hash_set.h>

#include "cpds/cpds.h"
#include "explore/state_store.h"

namespace druba::cpds {

// What the relations read off the visible tuples of S, per thread t: the pairs (g, x) that some
// tuple shows for t (Vis), and for each such pair the shared states g2 != g that a rule of another
// thread, enabled in a tuple with g and x, moves g to (the premise of rule (E)). Nothing else of S
// enters the relations, so the facts of the parts of a set merge by union into the facts of the
// whole (the distributed upper bound reads them off each process's part).
class VisibleFacts {
 public:
  static constexpr Symbol kBottom = 0xFFFFFFFFU;

  explicit VisibleFacts(const Cpds& cpds);
  // The facts of a set of top-k abstract states ([g, k slots of thread 0, ...]: the top of each
  // stack is its first slot).
  static VisibleFacts OfTopK(const Cpds& cpds, const StateStore& set, std::uint32_t k);

  // A visible tuple, 1 + n words [g, top of stack 0, ...], kBottom for an empty stack.
  void Add(const Symbol* tuple);
  void Merge(const VisibleFacts& other);
  // Self-contained bytes (explore/portable.h's varints); Read merges what Write wrote and returns
  // false when the bytes are not facts of this CPDS.
  void Write(std::vector<std::uint8_t>& out) const;
  bool Read(std::span<const std::uint8_t> bytes);

  bool Visible(std::uint32_t thread, Shared g, Symbol x) const {
    return visible_[thread].contains(Key(g, x));
  }
  // The g2 of rule (E) for (g, x) of `thread`; null when there are none.
  const absl::flat_hash_set<Shared>* Moves(std::uint32_t thread, Shared g, Symbol x) const {
    const auto it = env_[thread].find(Key(g, x));
    return it == env_[thread].end() ? nullptr : &it->second;
  }

 private:
  static std::uint64_t Key(std::uint32_t a, std::uint32_t b) {
    return static_cast<std::uint64_t>(a) << 32 | b;
  }

  const Cpds* cpds_;
  // Per thread: (shared, top) -> the rules that match.
  std::vector<absl::flat_hash_map<std::uint64_t, std::vector<std::uint32_t>>> lhs_;
  std::vector<const std::vector<std::uint32_t>*> enabled_;   // Add's: per thread, its rules
  std::vector<absl::flat_hash_set<std::uint64_t>> visible_;  // (g, x)
  std::vector<absl::flat_hash_map<std::uint64_t, absl::flat_hash_set<Shared>>> env_;  // -> g2
};

class MayLieBelow {
 public:
  static constexpr Symbol kBottom = VisibleFacts::kBottom;

  // `visible`: the facts of the visible tuples of S; nullptr means every tuple is visible.
  MayLieBelow(const Cpds& cpds, const InitialState& init, const VisibleFacts* visible);

  // Each sorted, kBottom (if present) last; empty when the premise never holds.
  const std::vector<Symbol>& BelowTop(std::uint32_t thread, Shared shared, Symbol top) const;
  const std::vector<Symbol>& BelowDeep(std::uint32_t thread, Symbol symbol) const;

  // Every fact (certificates): f(thread, g, x, y) for Top, then d(thread, u, v) for Deep.
  template <class F, class D>
  void ForEachFact(F&& f, D&& d) const {
    for (std::uint32_t t = 0; t < top_.size(); ++t) {
      for (const auto& [key, ys] : top_[t]) {
        for (const Symbol y : ys) {
          f(t, static_cast<Shared>(key >> 32), static_cast<Symbol>(key & 0xFFFFFFFFU), y);
        }
      }
      for (const auto& [u, vs] : deep_[t]) {
        for (const Symbol v : vs) d(t, u, v);
      }
    }
  }

  bool operator==(const MayLieBelow& other) const {
    return top_ == other.top_ && deep_ == other.deep_;
  }

 private:
  static std::uint64_t Key(std::uint32_t a, std::uint32_t b) {
    return static_cast<std::uint64_t>(a) << 32 | b;
  }
  void Solve(const Cpds& cpds, const InitialState& init, std::uint32_t thread,
             const VisibleFacts* visible);

  std::vector<absl::flat_hash_map<std::uint64_t, std::vector<Symbol>>> top_;  // (g, x) -> ys
  std::vector<absl::flat_hash_map<Symbol, std::vector<Symbol>>> deep_;        // u -> vs
  std::vector<Symbol> none_;
};

}  // namespace druba::cpds
