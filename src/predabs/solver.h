// The small solver interface the predicate abstraction decides its queries with. Terms are
// handles owned by the solver; the only implementation is Z3 (z3_solver.cc, the one file that
// includes z3++.h).
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include "predabs/program.h"

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

class Solver {
 public:
  using Term = std::uint32_t;
  virtual ~Solver() = default;

  virtual Term IntValue(const Int& value) = 0;
  virtual Term BoolValue(bool value) = 0;
  virtual Term FreshInt(const std::string& hint) = 0;
  virtual Term FreshBool(const std::string& hint) = 0;
  virtual Term FreshIntArray(const std::string& hint) = 0;  // Int -> Int
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
  virtual void Push() = 0;
  virtual void Pop() = 0;
  virtual void Assert(Term formula) = 0;
  virtual SatResult Check() = 0;
  // After kSat: the value of a term in the model (completed where unconstrained).
  virtual bool ModelBool(Term formula) = 0;
  virtual Int ModelInt(Term term) = 0;
  // After kUnknown: the solver's reason.
  virtual std::string ReasonUnknown() = 0;
  virtual std::uint64_t num_checks() const = 0;

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
