// Ordered symmetry (docs/drb.md): a program whose threads run one template and use their numbers
// only as thread ids, so that renaming the threads by a map that keeps their order (thread i of
// N threads becomes thread f(i) of M >= N, f increasing) maps runs to runs. Such a program may
// compare ids (`j < self`, `owner == self`), index per-thread entries by an id (`flag[j]`),
// store ids in variables (`victim[lv] := self`, with a negative number for "no thread") and
// range over the threads (`forall j != self: ...`, `count(...)`), but not compute with an id
// (`self + 1`), compare one with a number (`j < 3`, `self == 0`), name a fixed thread (`pc[1]`)
// or index a fixed-size array by one. The protocols that tell threads apart by comparing their
// ids (a bakery's tie-break, Szymanski's `forall j < self`) are of this kind; a symmetric program
// is one that does not compare ids either.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/diagnostics.h"
#include "drb/ast.h"

namespace druba::drb {

// Where a program first stops being ordered-symmetric, and why.
struct OrderedBreach {
  SourceLocation where;
  std::string what;
};

// The first place in the code (its templates, statements and initial values; not its abstraction
// blocks) that keeps `program` from being ordered-symmetric; none when it is.
std::optional<OrderedBreach> OrderedSymmetryBreach(const Program& program);

// The variables that hold thread ids (by index into Program::shared and ::locals), as the check
// above infers them.
struct IdVariables {
  std::vector<bool> shared;
  std::vector<bool> locals;
};
IdVariables IdHolders(const Program& program);
// The variables that name threads: those that hold ids (IdHolders) and those a thread indexes
// another's entry with (`flag[j]`, `pc[turn]`), ids computed by arithmetic included.
IdVariables ThreadNamers(const Program& program);

// The expressions `body` names other threads with: the index of another thread's location or
// entry it reads (`pc[j]`, `flag[turn]`, inside quantifiers too) and of a per-thread array's entry
// it writes (`flag[j] := ...`).
void ThreadIndexExprs(const std::vector<Instr>& body, std::vector<const Expr*>& out);

// Marks in `out` (by index into Program::locals) the per-thread variables `body` reads or writes
// another thread's entry of (`flag[j]`, `flag[j] := ...`).
void OthersLocals(const std::vector<Instr>& body, std::vector<bool>& out);

// Whether `e` depends on the viewing thread (`self`, its locals, its location).
bool NamesSelf(const Expr& e);
// Whether `e` names a quantifier's variable.
bool NamesBound(const Expr& e);
// Whether `e` reads nothing but the locations and per-thread variables of the viewing thread and
// of threads bound outside it (no shared variable, no quantifier of its own).
bool OwnStatesOnly(const Expr& e);
// Whether a statement's body writes another thread's entry of a per-thread array.
bool WritesOthers(const std::vector<Instr>& body);

}  // namespace druba::drb
