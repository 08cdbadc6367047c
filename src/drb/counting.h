// `count(i: c)` as an integer value with the thread count left symbolic (docs/drb.md, "Every
// thread count"). A count whose body reads only the counted thread's own location and locals
// ("a count of the threads' own states") changes by at most one when a thread steps: only the
// stepping thread's entry changes (a symmetric program writes no other thread's entry). Both
// symbolic encodings (druba's, smt/encoder.cc, and the checker's, check/drb_every_count.cc)
// give such a count one integer per state and update it by the stepping thread's change; these
// helpers, shared by both, say which counts qualify and which are the same count.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

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

// `count(...) OP k` with k a number and OP a comparison (either side): the symbolic encodings
// state it with k distinct witnesses, not as a value.
inline bool ComparedWithNumber(const Expr& e) {
  const auto is = [&](Expr::Kind a, Expr::Kind b) {
    return e.args[0]->kind == a && e.args[1]->kind == b;
  };
  return e.kind == Expr::Kind::kBinary && e.op >= Expr::Op::kEq && e.op <= Expr::Op::kGe &&
         (is(Expr::Kind::kCount, Expr::Kind::kNumber) ||
          is(Expr::Kind::kNumber, Expr::Kind::kCount));
}

// Appends to `out` the counts of the threads' own states that `e` uses as values (not compared
// with a number, not the thread count), one of each (SameCount): those an encoding keeps per state.
inline void ValueCounts(const Expr& e, std::vector<const Expr*>& out) {
  if (ComparedWithNumber(e)) return;  // stated with witnesses; the body has no count of its own
  if (e.kind == Expr::Kind::kCount && CountsOwnStates(e) && !CountsEveryThread(e) &&
      std::none_of(out.begin(), out.end(), [&](const Expr* c) { return SameCount(*c, e); })) {
    out.push_back(&e);
  }
  for (const auto& arg : e.args) ValueCounts(*arg, out);
}

// A rank count (docs/drb.md, "Counting threads by rank"): a count inside a quantifier over
// threads whose body reads the counted thread's own state (ReadsOwnStateOnly) and the
// quantifier's variable p, the parameter, which it compares with the thread's own values only as
// a lower bound (`e >= p`, `e > p`, `p <= e`, `p < e`) in atoms joined by && and ||
// (`count(i: pc[i] == up && lv[i] >= j || lv[i] > j)`): the threads it counts at p + 1 are among
// those it counts at p. With the thread count symbolic and ids ordered (numbers below it), such a
// count is a function of p in each state. Sets `param` to p; false when `e` is not such a body.
inline bool RankBody(const Expr& e, std::uint32_t var, std::optional<std::uint32_t>& param) {
  if (ReadsOwnStateOnly(e, var)) return true;
  if (e.kind != Expr::Kind::kBinary) return false;
  if (e.op == Expr::Op::kAnd || e.op == Expr::Op::kOr) {
    return RankBody(*e.args[0], var, param) && RankBody(*e.args[1], var, param);
  }
  const auto parameter = [&](const Expr& p) {
    return p.kind == Expr::Kind::kBound && p.var != var && (!param || *param == p.var);
  };
  const bool right = (e.op == Expr::Op::kGe || e.op == Expr::Op::kGt) && parameter(*e.args[1]) &&
                     ReadsOwnStateOnly(*e.args[0], var);
  const bool left = (e.op == Expr::Op::kLe || e.op == Expr::Op::kLt) && parameter(*e.args[0]) &&
                    ReadsOwnStateOnly(*e.args[1], var);
  if (!right && !left) return false;
  param = e.args[right ? 1 : 0]->var;
  return true;
}

// The parameter's slot of rank count `e`, or none (not a count, or not of a rank).
inline std::optional<std::uint32_t> RankParameter(const Expr& e) {
  if (e.kind != Expr::Kind::kCount) return std::nullopt;
  std::optional<std::uint32_t> param;
  if (!RankBody(*e.args[0], e.var, param)) return std::nullopt;
  return param;
}

// Appends to `out` the rank counts `e` uses as values, one of each (SameCount).
inline void RankCounts(const Expr& e, std::vector<const Expr*>& out) {
  if (ComparedWithNumber(e)) return;
  if (RankParameter(e) &&
      std::none_of(out.begin(), out.end(), [&](const Expr* c) { return SameCount(*c, e); })) {
    out.push_back(&e);
  }
  for (const auto& arg : e.args) RankCounts(*arg, out);
}

// The same for every expression of a statement body (right-hand sides, conditions, target indices).
inline void ValueCounts(const std::vector<Instr>& body, std::vector<const Expr*>& out) {
  for (const Instr& op : body) {
    for (const auto& e : op.exprs) ValueCounts(*e, out);
    for (const Instr::Target& t : op.targets) {
      if (t.index) ValueCounts(*t.index, out);
    }
    for (const std::vector<Instr>& block : op.blocks) ValueCounts(block, out);
  }
}

}  // namespace druba::drb
