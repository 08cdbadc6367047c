// `count(i: c)` as an integer value with the thread count left symbolic (docs/drb.md, "Every
// thread count"). A count whose body reads only the counted thread's own location and locals
// ("a count of the threads' own states") changes by at most one when a thread steps: only the
// stepping thread's entry changes (a symmetric program writes no other thread's entry). Both
// symbolic encodings (druba's, predabs/encoder.cc, and the checker's, check/drb_every_count.cc)
// give such a count one integer per state and update it by the stepping thread's change; these
// helpers, shared by both, say which counts qualify and which are the same count.
#pragma once

#include "drb/ast.h"

namespace druba::drb {

// Whether `e`, the body of a count binding slot `var`, reads only the counted thread's location
// and locals (`pc[i]`, `l[i]`), numbers, labels and Booleans.
inline bool ReadsOwnStateOnly(const Expr& e, std::uint32_t var) {
  switch (e.kind) {
    case Expr::Kind::kNumber:
    case Expr::Kind::kBool:
    case Expr::Kind::kLabel:
      return true;
    case Expr::Kind::kLocal:
    case Expr::Kind::kPc:
      return e.args.size() == 1 && e.args[0]->kind == Expr::Kind::kBound && e.args[0]->var == var;
    case Expr::Kind::kUnary:
    case Expr::Kind::kBinary:
      for (const auto& arg : e.args) {
        if (!ReadsOwnStateOnly(*arg, var)) return false;
      }
      return true;
    default:
      return false;
  }
}

// A count of the threads' own states (the body read by ReadsOwnStateOnly).
inline bool CountsOwnStates(const Expr& count) {
  return count.kind == Expr::Kind::kCount && ReadsOwnStateOnly(*count.args[0], count.var);
}

// `count(i: true)` or `count(i != self: true)`: the thread count (less one).
inline bool CountsEveryThread(const Expr& count) {
  const Expr& body = *count.args[0];
  return count.kind == Expr::Kind::kCount && body.kind == Expr::Kind::kBool && body.value != 0;
}

// Whether two bodies are the same condition, each over its own binder (`var_a`, `var_b`).
inline bool SameBody(const Expr& a, std::uint32_t var_a, const Expr& b, std::uint32_t var_b) {
  if (a.kind != b.kind || a.op != b.op || a.value != b.value || a.args.size() != b.args.size()) {
    return false;
  }
  if (a.kind == Expr::Kind::kBound && (a.var == var_a || b.var == var_b)) {
    return a.var == var_a && b.var == var_b;
  }
  if (a.var != b.var) return false;
  for (std::size_t i = 0; i < a.args.size(); ++i) {
    if (!SameBody(*a.args[i], var_a, *b.args[i], var_b)) return false;
  }
  return true;
}

// The same threads counted (over all threads; a count of the others is the count less the
// viewing thread's own term).
inline bool SameCount(const Expr& a, const Expr& b) {
  return SameBody(*a.args[0], a.var, *b.args[0], b.var);
}

}  // namespace druba::drb
