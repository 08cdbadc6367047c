// The small solver interface the predicate abstraction decides its queries with. Terms are
// handles owned by the solver; the only implementation is Z3 (z3_solver.cc, the one file that
// includes z3++.h).
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/resources.h"
#include "interp/program.h"

namespace druba::predabs {

// Where the solver's queries and models are reported one line at a time, when the front end asks
// for it (a library never writes to stderr itself).
using SolverLog = std::function<void(const std::string&)>;

enum class SatResult : std::uint8_t { kSat, kUnsat, kUnknown };

enum class Fn : std::uint8_t {
  kAdd,
  kSub,
  kMul,
  kDiv,
  kMod,
  kNeg,  // integers (div/mod as in SMT-LIB)
  kLt,
  kLe,
  kEq,  // comparisons (kEq on any sort)
  kAnd,
  kOr,
  kNot,
  kImplies,
  kIte,  // Boolean connectives; kIte on any sort
};

// What a term is, for reading a solver's answer back (the Horn solver's invariants): a number, a
// Boolean constant, a free variable (by name) or an application of `fn` (n-ary kAdd, kMul, kAnd and
// kOr; `a >= b` reads as kLe(b, a), `a > b` as kLt(b, a), a binary distinct as kNot(kEq));
// anything else is kOther.
struct TermView {
  enum class Kind : std::uint8_t { kNumber, kBool, kVariable, kApply, kOther };
  Kind kind = Kind::kOther;
  Fn fn = Fn::kAnd;
  Int value;  // kNumber; kBool: 0 or 1
  std::string name;
  std::vector<std::uint32_t> args;
};

class Solver {
 public:
  using Term = std::uint32_t;
  virtual ~Solver() = default;

  virtual Term IntValue(const Int& value) = 0;
  virtual Term BoolValue(bool value) = 0;
  virtual Term FreshInt(const std::string& hint) = 0;
  virtual Term FreshBool(const std::string& hint) = 0;
  virtual Term FreshIntArray(const std::string& hint) = 0;  // Int -> Int
  virtual Term ConstIntArray(const Int& value) = 0;         // Int -> Int, `value` everywhere
  // (Int, Int) -> Int: a per-pair array, indexed by the row's thread and the column's.
  virtual Term FreshIntArray2(const std::string& hint) = 0;
  virtual Term ConstIntArray2(const Int& value) = 0;
  virtual Term Select2(Term array, Term row, Term column) = 0;
  virtual Term Store2(Term array, Term row, Term column, Term value) = 0;
  // Threads of a symbolic count: an uninterpreted sort, so that quantifiers over threads stay in
  // a fragment the solver decides well (finite model finding).
  virtual Term FreshThread(const std::string& hint) = 0;
  virtual Term FreshThreadArray(const std::string& hint, bool boolean) = 0;  // Thread -> Int|Bool
  virtual Term Select(Term array, Term index) = 0;
  virtual Term Store(Term array, Term index, Term value) = 0;
  virtual Term Apply(Fn fn, const std::vector<Term>& args) = 0;
  // Binds `variable` (a FreshInt) in `body`.
  virtual Term Quantify(bool forall, Term variable, Term body) = 0;

  virtual void SetTimeout(unsigned timeout_ms) = 0;  // for the following checks
  // For each following check, at most `units` of Work (0: no limit); beyond it, kUnknown.
  virtual void SetWorkLimit(std::uint64_t units) = 0;
  // The following checks are interrupted (kUnknown) within about 10 ms of a signal or of the time
  // limit that `limits` watch (null: none); the caller hears why from `limits`.
  virtual void WatchLimits(LimitWatch* limits) = 0;
  virtual void Push() = 0;
  virtual void Pop() = 0;
  virtual void Assert(Term formula) = 0;
  virtual SatResult Check() = 0;
  // `formulas` alone (not the assertions above), in a solver of their own: no incremental
  // state, so that the solver's preprocessing of quantifiers applies. Sets the model as Check.
  // `timeout_ms` (when not 0) instead of the solver's own, if shorter.
  virtual SatResult CheckAlone(const std::vector<Term>& formulas, unsigned timeout_ms = 0) = 0;
  // After kSat: the value of a term in the model (completed where unconstrained).
  virtual bool ModelBool(Term formula) = 0;
  virtual Int ModelInt(Term term) = 0;
  // After kUnknown: the solver's reason.
  virtual std::string ReasonUnknown() = 0;
  virtual std::uint64_t num_checks() const = 0;
  // The work the checks so far cost, in the solver's own resource units (Z3's rlimit count): a
  // budget in them does not depend on the machine's speed or load, as one in seconds does.
  virtual std::uint64_t Work() const = 0;
  // The terms made so far; ForgetTermsFrom(mark) drops those made after `mark` (none of them may
  // be used again): a solver lent to many short-lived users keeps only its own.
  virtual std::size_t num_terms() const = 0;
  virtual void ForgetTermsFrom(std::size_t mark) = 0;
  // How often the solver's parameters (its timeout) were set: once when it was made, then only
  // when SetTimeout changes the timeout (setting them costs more than a small query).
  virtual std::uint64_t num_parameter_sets() const = 0;
  virtual TermView View(Term term) = 0;

  // Constrained Horn clauses over relations of integers, decided by Z3's Spacer (independent of
  // the Push/Assert/Check solver above). A rule is `body => head`, universally closed over the
  // free variables in it; `head` is a relation applied to terms, or false (a query).
  virtual std::uint32_t HornRelation(const std::string& name, std::size_t arity) = 0;
  virtual Term HornApply(std::uint32_t relation, const std::vector<Term>& args) = 0;
  // False when the body simplifies to false: the rule is left out.
  virtual bool HornRule(Term body, std::optional<Term> head) = 0;
  // Whether a query rule's body is derivable: kSat (yes), kUnsat (no: HornModel gives each
  // relation an interpretation that is an inductive invariant excluding every query), or kUnknown
  // (`timeout_ms` ran out, or the solver gave up: HornReason says why).
  virtual SatResult HornSolve(unsigned timeout_ms) = 0;
  // After kUnsat: relation's interpretation applied to `args`.
  virtual Term HornModel(std::uint32_t relation, const std::vector<Term>& args) = 0;
  virtual std::string HornReason() = 0;
  // From another thread: makes the running (or the next) HornSolve, Check or CheckAlone return
  // kUnknown soon, and every one after it (the solver asks its back end nothing more).
  virtual void Interrupt() = 0;

  // Conveniences.
  Term Apply(Fn fn, std::initializer_list<Term> args) { return Apply(fn, std::vector<Term>(args)); }
  Term And(const std::vector<Term>& args) {
    return args.empty() ? BoolValue(true) : args.size() == 1 ? args[0] : Apply(Fn::kAnd, args);
  }
  Term Or(const std::vector<Term>& args) {
    return args.empty() ? BoolValue(false) : args.size() == 1 ? args[0] : Apply(Fn::kOr, args);
  }
  Term Not(Term a) { return Apply(Fn::kNot, {a}); }
  Term Eq(Term a, Term b) { return Apply(Fn::kEq, {a, b}); }
  Term Ite(Term c, Term a, Term b) { return Apply(Fn::kIte, {c, a, b}); }
  Term Implies(Term a, Term b) { return Apply(Fn::kImplies, {a, b}); }
  Term Lt(Term a, Term b) { return Apply(Fn::kLt, {a, b}); }
  Term Le(Term a, Term b) { return Apply(Fn::kLe, {a, b}); }
  Term Num(std::int64_t v) { return IntValue(drb::Int(v)); }
};

// `timeout_ms` bounds each Check(); a query that runs out of time is kUnknown.
std::unique_ptr<Solver> MakeZ3Solver(unsigned timeout_ms);

}  // namespace druba::predabs
