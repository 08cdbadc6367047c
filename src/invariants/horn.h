// Invariants of a `.drb` program at a fixed thread count from a Horn solver (Z3's Spacer): the
// program as constrained Horn clauses, one relation per tuple of thread locations, over the
// shared variables and every thread's locals.
//
// Encoding. The location tuples are those the control flow reaches from the initial one, data
// ignored (each statement goes to its next one, to a goto's target, or to the error location).
// Per tuple L, the relation R_L(x) holds of the reachable states at L. Rules: the initial state is
// in R_L0; for each tuple L, thread i whose location in L is a statement s, and target t of s,
// R_L(x) && well-formed(x) && step_s,i(x, x') with thread i at t after => R_L[i:=t](x') (with t the
// error location, a query instead: the step fails); with `check deadlock;`, R_L(x) && no thread
// enabled (and one not finished) is a query. The steps are predabs::Encoder's, the same encoding
// the closure test uses, states written as Store chains of scalars so that every array read is a
// scalar.
//
// When the solver finds no query derivable, each relation's interpretation is an inductive
// invariant at its tuple that excludes every failure. It is read back as `.drb` text (thread 0's
// view, thread i's copy of a local as `l[i]`): refinement takes its atoms as candidate predicates.
// Nothing here is a proof by itself: the predicates it yields go through the usual closure test.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "interp/program.h"
#include "smt/solver.h"

namespace druba::predabs {

// More location tuples than this and the encoding is not built (its size grows with their
// product: measured in perf/, see docs/drb.md).
inline constexpr std::size_t kMaxHornTuples = 4096;
// A second attempt, after refinement ended unknown as well, gets this many times
// kHornTimeoutMs (strategy/options.h; without a time limit; with one, what it leaves).
inline constexpr double kHornSecondShare = 4;

// The two encodings: one relation per location tuple (Spacer keeps lemmas per tuple: far faster on
// the bakery and the producer/consumer), or one relation with each thread's location as an
// integer argument (its size grows with the number of statements, not with their product: far
// faster on the Ticket Lock from 3 threads on; perf/horn_benchmarks.cc). Its invariant is read
// back at each tuple the control flow reaches, when there are at most kMaxHornTuples.
enum class HornForm : std::uint8_t { kTuples, kLocationArguments };

using Tuple = std::vector<std::uint32_t>;  // a location per thread

// An invariant at one location tuple: every reachable state whose threads stand at `at` satisfies
// `formula` (`.drb` text, thread 0's view).
struct LocatedFormula {
  Tuple at;
  std::string formula;
};

struct HornResult {
  // kUnsat: an inductive invariant excludes every failure; kSat: a failure is derivable (a
  // counterexample the explorer will find or refute on its own); kUnknown: undecided.
  SatResult answer = SatResult::kUnknown;
  HornForm form = HornForm::kTuples;  // the encoding that answered (or was tried)
  // kUnknown: the solver ran until its time share was over (not stopped by a limit or a signal,
  // and not given up): a longer share may answer.
  bool out_of_time = false;
  std::string reason;  // kUnknown: why
  // kUnsat: the invariant's atoms as `.drb` text, each once, in the order met (atoms that name
  // what `.drb` text cannot, such as another thread's element of a local array, are left out).
  std::vector<std::string> atoms;
  // kUnsat, when every relation's interpretation has `.drb` text: the invariant per location
  // tuple, tuples no state reaches left out.
  std::vector<LocatedFormula> invariant;
  std::size_t tuples = 0;  // location tuples the control flow reaches
  std::size_t rules = 0;
  double seconds = 0;
};

// Asks Spacer for an invariant of `program` at `threads` threads within `timeout_ms`; `deadlock`
// (or the program's `check deadlock;`): one that also excludes deadlocks.
HornResult SolveHorn(const Program& program, std::uint32_t threads, bool deadlock,
                     unsigned timeout_ms, HornForm form = HornForm::kTuples);

// Both forms within `timeout_ms`: side by side in two threads when `jobs` >= 2 (the first answer
// stops the other), else one after the other with half the time each. `stop` (polled every 10
// ms: a time or memory limit, a signal) interrupts them. Returns the answer, or the tuple form's
// `unknown`.
HornResult SolveHornEitherForm(const Program& program, std::uint32_t threads, bool deadlock,
                               unsigned timeout_ms, unsigned jobs,
                               const std::function<bool()>& stop = {});

}  // namespace druba::predabs
