// What may lie directly below a stack symbol: the invariant the top-of-stack abstraction assumes
// when it computes the abstract successors of a pop (DESIGN.md section 4: the closure test may
// assume any invariant of the reachable states, if it is sound and documented).
//
// Two relations per thread t, with kBottom standing for "nothing: this is the bottom symbol":
//   Top(t, g, x, y):  in a reachable state with shared state g and top symbol x on t's stack,
//                     y lies directly below x;
//   Deep(t, u, v):    in a reachable state, a symbol u that is not on top of t's stack has v
//                     directly below it.
// They are the least relations closed under these rules (a Datalog fixpoint):
//   (I)  t's initial stack w0..wm (bottom to top) and initial shared state g0:
//          Top(t, g0, wm, w(m-1) or kBottom), Deep(t, wj, w(j-1) or kBottom) for j < m;
//   (E)  Top(t, g, x, y) and a rule of another thread t' != t taking g to g':  Top(t, g', x, y);
//   (O)  Top(t, g, x, y) and t's rule  g x -> g' x':        Top(t, g', x', y);
//   (P)  Top(t, g, x, y) and t's rule  g x -> g' l1 l2:     Top(t, g', l1, l2), Deep(t, l2, y);
//   (Q)  Top(t, g, x, y), y != kBottom, t's rule g x -> g' -, and Deep(t, y, z):  Top(t, g', y, z).
// Soundness: every reachable state satisfies "for each thread t with a non-empty stack, its top x
// and the y below it (or kBottom) have Top(t, g, x, y), and every adjacent pair (u, v) under the top
// has Deep(t, u, v)". By induction on paths: (I) covers the initial state. A step of another thread
// changes only g (by one of its rules, (E)) and its own stack. A step of t by an overwrite changes
// g and the top symbol and keeps the one below (O); a push makes l1 the top with l2 under it and
// pushes the old pair (x over y) down as (l2 over y) (P); a pop exposes y, whose lower neighbour z
// was a pair under the top, so Deep(t, y, z) held (Q); other pairs are untouched. A stutter changes
// nothing. (E) ignores the other threads' stacks, which only makes the relations larger.
#pragma once

#include <cstdint>
#include <vector>

#include <absl/container/flat_hash_map.h>

#include "cpds/cpds.h"

namespace druba::cpds {

class MayLieBelow {
 public:
  static constexpr Symbol kBottom = 0xFFFFFFFFU;

  MayLieBelow(const Cpds& cpds, const InitialState& init);

  // Each sorted, kBottom (if present) last; empty when the premise never holds.
  const std::vector<Symbol>& BelowTop(std::uint32_t thread, Shared shared, Symbol top) const;
  const std::vector<Symbol>& BelowDeep(std::uint32_t thread, Symbol symbol) const;

 private:
  static std::uint64_t Key(std::uint32_t a, std::uint32_t b) {
    return static_cast<std::uint64_t>(a) << 32 | b;
  }
  void Solve(const Cpds& cpds, const InitialState& init, std::uint32_t thread);

  std::vector<absl::flat_hash_map<std::uint64_t, std::vector<Symbol>>> top_;  // (g, x) -> ys
  std::vector<absl::flat_hash_map<Symbol, std::vector<Symbol>>> deep_;       // u -> vs
  std::vector<Symbol> none_;
};

}  // namespace druba::cpds
