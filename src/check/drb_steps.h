// The statements of a `.drb` program as SMT, shared by the checker's two encodings (one thread
// count: drb_check.cc, threads unrolled; every count: drb_every_count.cc, threads a sort of their
// own). A statement's body runs path by path (docs/drb.md): every subexpression is evaluated, a
// runtime error anywhere (division by zero, a negative nat, an index out of range) or a false
// assert sends the thread to `error`, a false assume ends the path, division is Euclidean.
//
// Derived (CRTP) says what a thread and a state are:
//   z3::expr Eval(const Expr&, const State&, const ThreadId& self, std::vector<z3::expr>& bound,
//                 z3::expr* fail);            the value of an expression, errors into *fail
//   z3::expr OutOfRange(const Instr::Target&, const z3::expr& index);   an index it cannot have
//   void Write(State&, const Instr::Target&, const ThreadId&, const z3::expr* index,
//              const z3::expr& value);     index: the target's, evaluated (null: none)
//   void MoveTo(State&, const ThreadId&, std::uint32_t location);
//   std::uint32_t EachCount(); z3::expr IsThread(const ThreadId&, std::uint32_t j);
//   z3::expr LocalOf(const State&, std::uint32_t var, std::uint32_t j);
//                                          for `forall j: a[j] := ...` (one count only)
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <z3++.h>

#include "check/result.h"
#include "drb/ast.h"

namespace druba::check {

using Abstract = std::vector<std::uint32_t>;  // an abstract state: locations, predicates as 0/1

inline std::string Text(const Abstract& a) {
  return fmt::format("[{}]", fmt::join(a, ", "));
}

// alpha is one of the abstract states of S.
inline z3::expr InSet(z3::context& ctx, const std::vector<z3::expr>& alpha,
                      const std::vector<Abstract>& set) {
  z3::expr_vector options(ctx);
  for (const Abstract& a : set) {
    z3::expr_vector same(ctx);
    for (std::size_t i = 0; i < alpha.size(); ++i) {
      same.push_back(alpha[i] == static_cast<int>(a[i]));
    }
    options.push_back(z3::mk_and(same));
  }
  return z3::mk_or(options);
}

// `solver`'s check, interrupted by a signal or the time limit of `limits` (Z3's own timeout can
// overshoot, and Z3 does not hear signals here). Once interrupted, the check has stopped
// (CheckStopped), whatever Z3 answered: the interruption may come just after the query ended,
// and it leaves the context cancelled until its next query (a push then throws "push canceled").
inline z3::check_result CheckInterruptibly(z3::solver& solver, LimitWatch* limits) {
  std::atomic<bool> interrupted{false};
  z3::check_result result = z3::unknown;
  {
    const CancelGuard cancel = CancelOnStop(limits, [&ctx = solver.ctx(), &interrupted] {
      interrupted = true;
      ctx.interrupt();
    });
    result = solver.check();
  }
  if (interrupted.load()) {
    PollLimits(limits);  // throws: the canceller fires only when the limits say stop
    throw CheckStopped{"interrupted"};
  }
  return result;
}

// One query on `solver` (in a scope of its own), within its time and the limits: a query the time
// limit cut short stops the check (CheckStopped), it is not undecided. Z3 does not catch SIGINT
// meanwhile: the signal is the run's to hear. `timeout_set` is the timeout last set on `solver`
// (none yet: empty): Z3's set_params takes its global parameter lock and looks each name up again
// (13 % of checking the Ticket Lock's certificate for every count when set before every query).
inline z3::check_result DecideWithin(z3::solver& solver, const z3::expr& query, unsigned timeout_ms,
                                     LimitWatch* limits, std::optional<unsigned>& timeout_set) {
  PollLimits(limits);
  if (const unsigned ms = QueryTimeoutMs(timeout_ms, limits); ms != timeout_set) {
    z3::params params(solver.ctx());
    params.set("timeout", ms);
    params.set("ctrl_c", false);
    solver.set(params);
    timeout_set = ms;
  }
  solver.push();
  solver.add(query);
  const z3::check_result result = CheckInterruptibly(solver, limits);
  solver.pop();
  if (result == z3::unknown) PollLimits(limits);
  return result;
}

// Adds what `from` asserts to `to`.
inline void AddAssertionsOf(const z3::solver& from, z3::solver& to) {
  const z3::expr_vector assertions = from.assertions();
  for (int i = 0; i < static_cast<int>(assertions.size()); ++i) to.add(assertions[i]);
}

// The same, asked of a solver of its own holding `solver`'s assertions and `query`: no
// incremental state, so that Z3's preprocessing of quantifiers applies (the ordered every-count
// queries, with integer thread ids, take several times longer incrementally). A `ground` query
// (no quantifier) is asked without relevancy propagation, which only pays where quantifiers are
// instantiated (the ground closure of Eisenberg-McGuire's invariant: 2 to 3 times faster).
// `work`, when not 0, bounds the solver's work (Z3's rlimit) besides the time.
inline z3::check_result DecideAlone(const z3::solver& solver, const z3::expr& query,
                                    unsigned timeout_ms, LimitWatch* limits, bool ground = false,
                                    unsigned work = 0) {
  PollLimits(limits);
  z3::solver fresh(solver.ctx());
  z3::params params(solver.ctx());
  params.set("timeout", QueryTimeoutMs(timeout_ms, limits));
  params.set("ctrl_c", false);
  if (ground) params.set("smt.relevancy", 0U);
  if (work != 0) params.set("rlimit", work);
  fresh.set(params);
  AddAssertionsOf(solver, fresh);
  fresh.add(query);
  const z3::check_result result = CheckInterruptibly(fresh, limits);
  if (result == z3::unknown) PollLimits(limits);
  return result;
}

template <class Derived, class State, class ThreadId>
class StatementEncoder {
 public:
  // One way through a statement: its guard, the state after, and whether the thread failed.
  struct Outcome {
    z3::expr guard;
    State post;
    bool failed;
  };
  // Thread t executing statement `stmt` from s. A value the statement chooses (`x := *`) is a
  // fresh constant, free in the outcomes' guards and posts; Chosen() lists those of this call.
  std::vector<Outcome> Execute(const ThreadId& t, std::uint32_t stmt, const State& s) {
    std::vector<Outcome> out;
    chosen_ = z3::expr_vector(ctx_);
    Run(p_.statements[stmt].body, 0, t, stmt, Path{ctx_.bool_val(true), s, {}}, out);
    return out;
  }
  // Whether some outcome of the last Execute is possible: its guards' disjunction with the chosen
  // values bound (a statement is blocked when it is blocked for every value it may choose).
  z3::expr AnyMove(const std::vector<Outcome>& outcomes) const {
    z3::expr_vector moves(ctx_);
    for (const Outcome& o : outcomes) moves.push_back(o.guard);
    const z3::expr any = z3::mk_or(moves);
    return chosen_.empty() ? any : z3::exists(chosen_, any);
  }

 protected:
  using Expr = drb::Expr;
  using Instr = drb::Instr;
  using Op = Expr::Op;

  StatementEncoder(const drb::Program& p, z3::context& ctx) : p_(p), ctx_(ctx) {}

  z3::expr Truth(const z3::expr& c) { return z3::ite(c, ctx_.int_val(1), ctx_.int_val(0)); }
  // That `x` holds a value of `v`'s declared type (a nat is not negative, an `int[lo, hi]`
  // inside its range, a Boolean 0 or 1).
  static void Typed(const drb::Variable& v, const z3::expr& x, z3::expr_vector& parts) {
    if (v.type == drb::Type::kBool) {
      parts.push_back(x == 0 || x == 1);
      return;
    }
    if (v.lower) parts.push_back(x >= x.ctx().int_val(v.lower->str().c_str()));
    if (v.upper) parts.push_back(x <= x.ctx().int_val(v.upper->str().c_str()));
  }
  // That writing `x` to `v` fails: outside its range.
  static z3::expr Outside(const drb::Variable& v, const z3::expr& x) {
    z3::expr_vector parts(x.ctx());
    Typed(v, x, parts);
    return v.type == drb::Type::kBool || parts.empty() ? x.ctx().bool_val(false)
                                                       : !z3::mk_and(parts);
  }
  z3::expr Binary(Op op, const z3::expr& a, const z3::expr& b, z3::expr* fail) {
    switch (op) {
      case Op::kAdd:
        return a + b;
      case Op::kSub:
        return a - b;
      case Op::kMul:
        return a * b;
      case Op::kDiv:
      case Op::kMod: {
        *fail = *fail || b == 0;
        // Euclidean, as Z3's div and mod are; the value at b == 0 does not matter (it fails).
        const z3::expr safe = z3::ite(b == 0, ctx_.int_val(1), b);
        return op == Op::kDiv ? z3::expr(ctx_, Z3_mk_div(ctx_, a, safe))
                              : z3::expr(ctx_, Z3_mk_mod(ctx_, a, safe));
      }
      case Op::kEq:
        return Truth(a == b);
      case Op::kNe:
        return Truth(a != b);
      case Op::kLt:
        return Truth(a < b);
      case Op::kLe:
        return Truth(a <= b);
      case Op::kGt:
        return Truth(a > b);
      case Op::kGe:
        return Truth(a >= b);
      case Op::kAnd:
        return Truth(a != 0 && b != 0);
      case Op::kOr:
        return Truth(a != 0 || b != 0);
      default:
        return Truth(a == 0 || b != 0);  // implies
    }
  }

  const drb::Program& p_;
  z3::context& ctx_;

 private:
  z3::expr_vector chosen_{ctx_};
  std::uint64_t chosen_count_ = 0;  // every constant a name of its own
  struct Path {
    z3::expr guard;
    State state;
    std::vector<std::pair<const std::vector<Instr>*, std::size_t>> frames;
  };
  Derived& self() { return static_cast<Derived&>(*this); }

  void Finish(const Path& path, const ThreadId& t, std::uint32_t target, bool failed,
              std::vector<Outcome>& out) {
    State post = path.state;
    self().MoveTo(post, t, target);
    out.push_back({path.guard, std::move(post), failed});
  }

  // `e` on the path; the failing branch goes to `out` and the path narrows to where it does not.
  z3::expr Value(const Expr& e, Path& path, const ThreadId& t, std::vector<Outcome>& out) {
    std::vector<z3::expr> bound(p_.num_slots, ctx_.int_val(0));
    z3::expr fail = ctx_.bool_val(false);
    z3::expr v = self().Eval(e, path.state, t, bound, &fail);
    Finish(Path{path.guard && fail, path.state, {}}, t, p_.error_pc, true, out);
    path.guard = path.guard && !fail;
    return v;
  }

  // Every right-hand side and target index is evaluated before anything is written; a negative
  // nat or an index out of range fails the statement.
  void Assign(const Instr& op, Path& path, const ThreadId& t, std::vector<Outcome>& out) {
    std::vector<z3::expr> values;
    for (std::size_t i = 0; i < op.exprs.size(); ++i) {
      if (op.exprs[i]->kind != Expr::Kind::kHavoc) {
        values.push_back(Value(*op.exprs[i], path, t, out));
        continue;
      }
      // `x := *`: any value of the target's type (a Boolean as 0 or 1, as Truth gives).
      const auto& x = op.targets[i];
      const z3::expr v = ctx_.int_const(fmt::format("any!{}", chosen_count_++).c_str());
      chosen_.push_back(v);
      z3::expr_vector typed(ctx_);
      Typed(drb::TargetVariable(p_, x), v, typed);
      if (!typed.empty()) path.guard = path.guard && z3::mk_and(typed);
      values.push_back(v);
    }
    std::vector<z3::expr> indices;
    std::vector<z3::expr> columns;        // of a per-pair array's entry (its row is the index)
    z3::expr bad = ctx_.bool_val(false);  // then nothing is written
    for (std::size_t i = 0; i < op.targets.size(); ++i) {
      const auto& x = op.targets[i];
      const auto& var = drb::TargetVariable(p_, x);
      bad = bad || Outside(var, values[i]);
      if (x.index) {
        indices.push_back(Value(*x.index, path, t, out));
        bad = bad || self().OutOfRange(x, indices.back());
      } else {
        indices.push_back(ctx_.int_val(0));
      }
      if (x.pair) {
        columns.push_back(Value(*x.column, path, t, out));
        bad = bad || self().OutOfRange(x, columns.back());
      } else {
        columns.push_back(ctx_.int_val(0));
      }
    }
    Finish(Path{path.guard && bad, path.state, {}}, t, p_.error_pc, true, out);
    path.guard = path.guard && !bad;
    for (std::size_t i = 0; i < op.targets.size(); ++i) {
      const auto& x = op.targets[i];
      if (x.pair) {
        self().WritePair(path.state, x, indices[i], columns[i], values[i]);
      } else {
        self().Write(path.state, x, t, x.index ? &indices[i] : nullptr, values[i]);
      }
    }
  }

  // `forall j: a[j] := e, ...`: every thread's values in the state before, then the writes; a
  // negative nat anywhere fails the statement, with nothing written.
  void AssignEach(const Instr& op, Path& path, const ThreadId& t, std::vector<Outcome>& out) {
    struct Write {
      std::uint32_t thread;
      std::uint32_t var;
      z3::expr value;
    };
    std::vector<Write> writes;
    z3::expr bad = ctx_.bool_val(false);
    const State before = path.state;
    for (std::uint32_t j = 0; j < self().EachCount(); ++j) {
      std::vector<z3::expr> bound(p_.num_slots, ctx_.int_val(0));
      bound[op.slot] = ctx_.int_val(j);
      const z3::expr writes_j = op.exclude_self ? !self().IsThread(t, j) : ctx_.bool_val(true);
      for (std::size_t i = 0; i < op.targets.size(); ++i) {
        const std::uint32_t var = op.targets[i].var;
        z3::expr fail = ctx_.bool_val(false);
        const z3::expr v = self().Eval(*op.exprs[i], before, t, bound, &fail);
        fail = fail || Outside(p_.locals[var], v);
        bad = bad || (writes_j && fail);
        writes.push_back({j, var, z3::ite(writes_j, v, self().LocalOf(before, var, j))});
      }
    }
    Finish(Path{path.guard && bad, path.state, {}}, t, p_.error_pc, true, out);
    path.guard = path.guard && !bad;
    for (const Write& w : writes) {
      const Instr::Target x{true, w.var, nullptr, 0, false, nullptr};
      const z3::expr thread = ctx_.int_val(w.thread);
      self().Write(path.state, x, t, &thread, w.value);
    }
  }

  void Run(const std::vector<Instr>& ops, std::size_t index, const ThreadId& t, std::uint32_t stmt,
           Path path, std::vector<Outcome>& out) {
    const std::vector<Instr>* block = &ops;
    for (;;) {
      if (index == block->size()) {
        if (path.frames.empty()) return Finish(path, t, p_.statements[stmt].next, false, out);
        std::tie(block, index) = path.frames.back();
        path.frames.pop_back();
        continue;
      }
      const Instr& op = (*block)[index++];
      switch (op.kind) {
        case Instr::Kind::kAssign:
          Assign(op, path, t, out);
          break;
        case Instr::Kind::kAssignEach:
          AssignEach(op, path, t, out);
          break;
        case Instr::Kind::kAssume:
          path.guard = path.guard && Value(*op.exprs[0], path, t, out) != 0;
          break;
        case Instr::Kind::kAssert: {
          const z3::expr c = Value(*op.exprs[0], path, t, out);
          Finish(Path{path.guard && c == 0, path.state, {}}, t, p_.error_pc, true, out);
          path.guard = path.guard && c != 0;
          break;
        }
        case Instr::Kind::kIf: {
          const z3::expr c = Value(*op.exprs[0], path, t, out);
          path.frames.emplace_back(block, index);
          Path other = path;
          other.guard = path.guard && c == 0;
          Run(op.blocks[1], 0, t, stmt, other, out);
          path.guard = path.guard && c != 0;
          block = &op.blocks[0];
          index = 0;
          break;
        }
        case Instr::Kind::kChoice:
          path.frames.emplace_back(block, index);
          for (const auto& alternative : op.blocks) Run(alternative, 0, t, stmt, path, out);
          return;
        case Instr::Kind::kGoto:
          return Finish(path, t, op.label, false, out);
      }
    }
  }
};

}  // namespace druba::check
