// The `.drb` model language after parsing and name resolution: shared and thread-local integer,
// natural and Boolean variables, thread templates of labelled atomic statements, and named
// abstractions (tracked program counters and predicates). The language is described in
// docs/drb.md.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <boost/multiprecision/cpp_int.hpp>

#include "common/diagnostics.h"

namespace druba::drb {

using Int = boost::multiprecision::cpp_int;

enum class Type : std::uint8_t { kInt, kNat, kBool };

// What an expression denotes after type checking.
enum class Sort : std::uint8_t { kInt, kBool, kPc };

struct Expr {
  enum class Kind : std::uint8_t {
    kNumber,  // value
    kBool,    // value (0 or 1)
    kShared,  // var
    kLocal,   // var; args[0] is the thread index, absent for the executing/viewing thread
    kPc,      // args[0] is the thread index, absent for self
    kLabel,   // value = the statement index the label names (compared with kPc only)
    kSelf,    // the executing (or viewing) thread's index
    kBound,   // var = the slot of the quantifier that binds it
    kUnary,   // op, args[0]
    kBinary,  // op, args[0], args[1]
    kForall,  // var = slot, args[0] = body; exclude_self
    kExists,  // as kForall
    kCount,   // as kForall; an integer
    // An element of a fixed-size array chosen at run time: var = its first element (a shared
    // variable, or for kLocalElement the viewing thread's local), value = the array's size,
    // args[0] = the index (outside 0..size-1 a runtime error). A literal index is the element
    // itself (kShared, kLocal).
    kSharedElement,
    kLocalElement,
    // An entry of a per-pair array `shared T a[threads][threads]`: var = the array (an index
    // into Program::pairs), args[0] = the row's thread, args[1] = the column's (either outside
    // the thread range a runtime error).
    kPair,
    // `x := *`: any value of the target's type (an int, a nat, or either Boolean), chosen when the
    // statement runs. Only as a whole right-hand side of an assignment; its sort is the target's.
    kHavoc,
    // `if c then a else b` as an expression: args[0] = c, args[1] = a, args[2] = b; only the
    // branch c picks is evaluated (a failure in the other is none), as C's `c ? a : b`.
    kIte,
  };
  enum class Op : std::uint8_t {
    kNone,
    kNeg,
    kNot,
    kAdd,
    kSub,
    kMul,
    kDiv,
    kMod,
    kEq,
    kNe,
    kLt,
    kLe,
    kGt,
    kGe,
    kAnd,
    kOr,
    kImplies,
  };
  Kind kind = Kind::kNumber;
  Op op = Op::kNone;
  Sort sort = Sort::kInt;
  bool exclude_self = false;
  std::uint32_t var = 0;
  Int value;
  std::vector<std::unique_ptr<Expr>> args;
  SourceLocation where;
  // The height of the tree below: the parser bounds it, so that every recursion over an
  // expression (evaluator, encoder) is bounded whatever the input.
  std::uint32_t height = 1;
};
using ExprPtr = std::unique_ptr<Expr>;

// Calls `visit` on e and on every expression below it, parents first.
inline void WalkExpr(const Expr& e, const std::function<void(const Expr&)>& visit) {
  visit(e);
  for (const ExprPtr& arg : e.args) WalkExpr(*arg, visit);
}

// One instruction of a statement's body. A statement is one atomic action: its body runs to the end
// (then control goes to the next statement) or to a goto; a false `assume` disables the path, a
// false `assert` (or a runtime error) sends the thread to the error location.
struct Instr {
  // kAssignEach: `forall j: a[j] := e, ...`, every thread's entry written at once (Cubicle's
  // `X[j] := case ...`): for every thread j (but the actor's with exclude_self) the targets,
  // per-thread variables with no index, are j's copies; each right-hand side is evaluated
  // with quantifier slot `slot` bound to j, in the state before the instruction.
  enum class Kind : std::uint8_t { kAssign, kAssume, kAssert, kIf, kChoice, kGoto, kAssignEach };
  struct Target {
    bool local = false;
    std::uint32_t var = 0;
    // a[e] := ... with e evaluated at run time (before any write of the statement): for a
    // fixed-size array (size > 0) var is its first element and e picks one (outside 0..size-1 a
    // runtime error); for a per-thread array (size == 0, local) e names the thread whose entry
    // is written (outside the thread range a runtime error). Null: var itself.
    ExprPtr index;
    std::uint32_t size = 0;
    // An entry of a per-pair array (var indexes Program::pairs): index names the row's thread,
    // column the column's, both evaluated at run time.
    bool pair = false;
    ExprPtr column;
  };
  Kind kind = Kind::kAssign;
  std::vector<Target> targets;  // kAssign: written simultaneously
  std::vector<ExprPtr> exprs;   // kAssign: right-hand sides; others: exprs[0] = condition
  std::vector<std::vector<Instr>> blocks;  // kIf: then, else; kChoice: the alternatives
  std::uint32_t label = 0;                 // kGoto: the target location
  // kAssert: the check of an `unsafe` property (where: its declaration), not an assertion written
  // in the statement.
  bool unsafe = false;
  std::uint32_t slot = 0;     // kAssignEach: the slot of its thread variable
  bool exclude_self = false;  // kAssignEach: `forall j != self`
  SourceLocation where;
};

struct Statement {
  std::string label;  // as written, or "@line" when it had none
  std::uint32_t thread_template = 0;
  std::uint32_t next = 0;  // where control goes after the body
  std::string text;        // the statement's source text, for traces
  SourceLocation where;
  std::vector<Instr> body;
};

struct ThreadTemplate {
  std::string name;
  std::uint32_t count = 1;
  // `thread T * N..`: a program for every count from N (threads created without bound, as a C
  // program's `while (1) pthread_create(...)`), which --threads gives N.. unless told otherwise.
  bool every_count = false;
  std::uint32_t first = 0;  // its statements are [first, first + size)
  std::uint32_t size = 0;
  std::uint32_t end_pc = 0;  // the location of a finished thread
  SourceLocation where;
};

struct Variable {
  std::string name;
  Type type = Type::kInt;
  Int init;
  SourceLocation where;
  // `shared T x = *;`: any initial value of its type (init is 0 until the run's first step
  // chooses it: Program::initially).
  bool any = false;
  // The values the variable may hold: a nat's lower bound is 0; `int[lo, hi]` bounds both
  // sides (C's unsigned int is `int[0, 4294967295]`). A write outside fails, as a nat going
  // negative does; a well-formed state holds values inside.
  std::optional<Int> lower;
  std::optional<Int> upper;

  bool Holds(const Int& v) const { return (!lower || *lower <= v) && (!upper || v <= *upper); }
};

struct Predicate {
  std::string name;  // as given, or the expression's text
  ExprPtr expr;
};

struct TrackedPc {
  std::optional<std::uint32_t> thread;  // none: the viewing thread (thread 0)
};

struct AbstractionSpec {
  std::string name;
  // No fixed thread index or `self`: thread permutations that fix thread 0 do not change it.
  bool symmetric = true;
  std::vector<TrackedPc> pcs;
  std::vector<Predicate> predicates;
  SourceLocation where;
};

struct Program {
  std::string file;
  std::vector<Variable> shared;
  std::vector<Variable> locals;
  // Per-pair arrays, `shared T a[threads][threads]`: an entry a[i][j] for every ordered pair of
  // threads (i == j included), which any thread reads and writes.
  std::vector<Variable> pairs;
  std::vector<ThreadTemplate> templates;
  std::vector<Statement> statements;
  std::vector<AbstractionSpec> abstractions;
  std::uint32_t num_slots = 0;  // quantifier slots
  std::uint32_t error_pc = 0;   // the location of a thread that failed an assertion
  // True when every thread runs one template and no statement names `self` or a fixed thread
  // index: then thread permutations map reachable states to reachable states.
  bool symmetric = false;
  // When the code tells threads apart by their numbers: where it first does, and how.
  SourceLocation asymmetric_at;
  std::string asymmetric_what;
  // Ordered symmetry (drb/ordered.h): threads that tell each other apart only by comparing ids;
  // when the program is not, where it first stops being and how.
  bool ordered_symmetric = false;
  SourceLocation unordered_at;
  std::string unordered_what;
  // Where a statement first chooses an integer freely (`x := *` of an int or a nat); empty when
  // none does. The explicit search then runs a sample of the values, so it proves nothing by
  // exhausting them, and such a statement is never taken to respect an abstraction.
  SourceLocation chooses_at;
  // Where a statement first updates every thread's entry in one step (`forall j: a[j] := ...`);
  // empty when none does. Such a program is checked one thread count at a time.
  SourceLocation updates_every_at;
  // `check deadlock;`: a state where no thread can move and some has not finished violates too.
  bool check_deadlock = false;
  // `initially EXPR;` over shared variables: the initial states are those where EXPR holds, the
  // variables declared `= *` taking any values. The parser makes the run's first step choose them
  // (drb/unsafe.h: ChooseInitialValues), guarded by the shared Boolean `__started`.
  std::vector<ExprPtr> initially;
  // `unsafe EXPR;`: the states where EXPR holds violate. The parser checks them in every step
  // (an assertion of `!EXPR` before each way out of every statement, and at the start of each
  // template's first statement for the initial state); kept here for reports and docs.
  std::vector<Predicate> unsafe;

  std::uint32_t NumThreads() const {
    std::uint32_t n = 0;
    for (const ThreadTemplate& t : templates) n += t.count;
    return n;
  }
  // The label of a location: a statement's, or "end"/"error".
  std::string PcName(std::uint32_t pc) const;
};

// The variable an assignment's target writes: a shared variable, a local, or a per-pair array.
inline const Variable& TargetVariable(const Program& program, const Instr::Target& target) {
  return target.pair    ? program.pairs[target.var]
         : target.local ? program.locals[target.var]
                        : program.shared[target.var];
}

}  // namespace druba::drb
