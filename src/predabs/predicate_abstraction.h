// Predicate abstraction for `.drb` programs (paper Sec. 5, DESIGN.md section 4): an abstract
// state is the tracked program counters, the truth values of the predicates (both from thread 0's
// point of view) and whether some thread failed. Respect (Def. 4) and the abstract successors of
// the disrespecting actions are decided by the solver, never sampled.
//
// Soundness, and where druba is stricter than the paper's text:
// * Actions are total (DESIGN.md 1): a statement that is not enabled for the thread leaves the
//   state as it is. Respect is decided for that total relation: two states with one abstraction
//   must have successors with one abstraction, including when the statement is enabled in one and
//   not in the other. This is what the proof of Thm. 7 uses ("thread i can execute x in s0"):
//   reading Def. 4 only over states where the statement is enabled is unsound when the
//   abstraction does not determine enabledness (e.g. another thread's location, which alpha does
//   not track). An undecided respect query counts as disrespect (more closure work, never less).
// * The closure test (Def. 6) enumerates, for every reached abstract state a and every
//   disrespecting action, all abstract successors of all states s with alpha(s) = a that are
//   well formed (declared types, locations in range, no failed thread) and, for symmetric programs
//   (one template, no `self`, no fixed thread index), whose every thread's view is also reached:
//   alpha_k(s) in A for every thread k. That invariant is proved jointly with the closure test by
//   induction on path length: the states reachable in <= m steps are closed under thread
//   permutations, and alpha(pi s) = alpha_k(s) for the permutation swapping 0 and k, so if they all
//   map into A so do all their views. Any `unknown` from the solver makes the verdict `unknown`.
// * Thread count left symbolic (CheckAllThreadCounts): A is the exact abstract reachable set of
//   an N-thread program, N >= 2 (its own DrUBA run said `safe`). Suppose alpha(initial state of
//   every m >= n0) is in A, and every action that disrespects alpha across thread counts (two
//   states of programs with any counts >= n0 and one abstraction must have successors with one
//   abstraction) has all its abstract successors (any m >= n0) in A. Then by induction on path
//   length every reachable state of every m >= n0 has its abstraction in A: for a respecting step
//   of thread i from s, pick s0 in R_N with alpha(s0) = alpha(s) and let thread 0 (i = 0) or
//   thread 1 (i != 0) take the same statement; its successor is in R_N, so its abstraction, which
//   equals alpha(s'), is in A. Thread indices of a symbolic count are an uninterpreted sort.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "abstraction/abstraction.h"
#include "common/resources.h"
#include "explore/state_store.h"
#include "interp/model.h"
#include "smt/solver.h"

namespace druba::predabs {

class Solver;

// One action of the closure test: a statement executed by thread 0, by a thread given by index
// (non-symmetric programs), or by "another thread" (symmetric programs: any index but 0, symbolic).
struct ActionClass {
  std::uint32_t stmt = 0;
  std::uint32_t thread = 0;  // 0 = thread 0; for kOther the role's number in the closure report
  bool other = false;        // any thread but 0 (symbolic index)
  bool respects = false;
  bool undecided = false;  // the respect query came back unknown
};

inline constexpr std::uint32_t kOtherThread = 0xFFFFFFFEU;

struct SolverStats {
  std::uint64_t queries = 0;
  double seconds = 0;
  std::uint64_t work = 0;  // in the solver's resource units (Solver::Work)
};

// Throws InputError unless `spec` fits `program` run by `n` threads: a thread index in a
// predicate is a number below n or a quantified thread variable, a tracked pc[k] has k below n.
// Without n, only what holds for every count is checked. With `own_indices`, a program that is
// not symmetric may also index by a thread's own value (`victim[lv]`); refinement proposes no
// such predicate (at a fixed count it sent Ricart-Agrawala's search after `req[k]`: over 18
// minutes and 2.3 GB where the invariants from finite instances answer in 52 s).
void CheckAbstractionFits(const Program& program, const AbstractionSpec& spec,
                          std::optional<std::uint32_t> n, bool own_indices = true);

class PredicateAbstraction {
 public:
  // Throws InputError when the abstraction does not fit the model (e.g. a thread index beyond
  // the thread count).
  PredicateAbstraction(const IntModel& model, const AbstractionSpec& spec, unsigned timeout_ms);
  ~PredicateAbstraction();
  PredicateAbstraction(const PredicateAbstraction&) = delete;
  PredicateAbstraction& operator=(const PredicateAbstraction&) = delete;

  std::size_t width() const { return spec_.pcs.size() + spec_.predicates.size() + 1; }
  void Abstract(StateView state, std::span<Word> out) const;
  bool Violates(StateView abstract) const { return abstract.back() != 0; }

  class ClosureOracle {
   public:
    ClosureOracle(const PredicateAbstraction& abs, const StateStore& reached)
        : abs_(abs), reached_(reached) {}
    template <class F>
    void ForEachDisrespectSuccessor(StateView abstract, F&& yield) const {
      Enumerate(abstract, false, yield);
    }
    template <class F>
    void ForEachAbstractSuccessor(StateView abstract, F&& yield) const {
      Enumerate(abstract, true, yield);
    }
    // Non-empty when a solver query could not be decided: the closure test has failed.
    const std::string& undecided() const { return undecided_; }

   private:
    template <class F>
    void Enumerate(StateView abstract, bool all, F& yield) const {
      for (const ActionClass& c : abs_.Classes()) {
        if (!all && c.respects) continue;
        if (!undecided_.empty()) return;
        abs_.Successors(
            c, abstract, reached_,
            [&](StateView to) { yield(c.other ? kOtherThread : c.thread, c.stmt, to); },
            &undecided_);
      }
    }
    const PredicateAbstraction& abs_;
    const StateStore& reached_;
    mutable std::string undecided_;
  };
  ClosureOracle MakeClosureOracle(const StateStore& reached) const {
    return ClosureOracle(*this, reached);
  }

  // "" when no well-formed state admitted by an abstract state of `set` (every thread's view in
  // `set`, for a symmetric program) has every thread blocked and some thread unfinished: each
  // abstract state one solver query; otherwise why not. One thread count only.
  std::string DeadlockFree(const StateStore& set) const;

  // "pc=3, s == l, !(m == 1)".
  std::string Describe(StateView abstract) const;
  std::string DescribeAction(std::uint32_t thread, std::uint32_t action) const;
  // The action of a step from `from` to `to`, with how the statement fails when `to` is the first
  // of the two where some thread has failed: "..., where pause, a nat, would go below zero".
  std::string DescribeStep(std::uint32_t thread, std::uint32_t action, StateView from,
                           StateView to) const;

  // The respect classification (computed on first use).
  const std::vector<ActionClass>& Classes() const;
  const SolverStats& solver_stats() const { return stats_; }
  const AbstractionSpec& spec() const { return spec_; }
  // Solver work stops (as `unknown`) when these limits are reached.
  void SetLimits(LimitWatch* limits) { limits_ = limits; }
  // Every solver query (and each model of the all-SAT enumeration) is reported to `log`.
  void SetSolverLog(SolverLog log) { log_ = std::move(log); }

  // Enumerates the abstract successors of `abstract` under `c` into `yield`; on an undecided
  // query sets *undecided and stops.
  template <class F>
  void Successors(const ActionClass& c, StateView abstract, const StateStore& reached, F&& yield,
                  std::string* undecided) const {
    std::vector<std::vector<Word>> found;
    SuccessorsInto(c, abstract, reached, &found, undecided);
    for (const auto& to : found) yield(StateView(to));
  }

 private:
  friend class Checker;
  void SuccessorsInto(const ActionClass& c, StateView abstract, const StateStore& reached,
                      std::vector<std::vector<Word>>* out, std::string* undecided) const;

  const IntModel& model_;
  const AbstractionSpec& spec_;
  unsigned timeout_ms_;
  mutable std::unique_ptr<class Checker> checker_;
  mutable std::optional<std::vector<ActionClass>> classes_;
  mutable SolverStats stats_;
  LimitWatch* limits_ = nullptr;
  SolverLog log_;
};

static_assert(Abstraction<PredicateAbstraction>);

// The outer loop's closure test with the thread count left symbolic (see the header comment).
struct AllCountsResult {
  bool closed = false;
  std::string reason;                          // why not, when not closed
  std::optional<ClosureFailure> failure;       // a reached state and its unreached successor
  std::vector<std::vector<Word>> bad_initial;  // initial abstract states outside A
  std::vector<ActionClass> classes;
  std::uint64_t closure_checks = 0;
  SolverStats stats;
  // The reached set and the abstract states added to close it (null when none was added): an
  // unreached successor that has not failed joins the set and is expanded in its turn under
  // every action (no run covers its respecting steps), until the set is closed or the budget
  // below is spent; a failed successor is never added (the set is then not closed). Closed,
  // it is the proof: it holds the initial states, is closed under every step of any thread
  // with every view in it, and has no failed state (the certificate lists it, and `druba check`
  // decides exactly that). It reaches what the runs cannot: a counter at 2^32 - 1.
  std::shared_ptr<const StateStore> completed;
};
// The completion's budget: states added (or as many as were reached), solver queries and the
// solver's resource units (Solver::Work: models/bounded-counter.drb needs 413 queries and 1.5
// million units), all three deterministic; time only as a backstop (the added states' queries
// stop when it is up; one left undecided spends the budget too).
inline constexpr std::size_t kMaxCompletion = 256;
inline constexpr std::uint64_t kMaxCompletionQueries = 1000;
inline constexpr std::uint64_t kMaxCompletionWork = 4'000'000;
inline constexpr std::chrono::seconds kMaxCompletionTime{30};
AllCountsResult CheckAllThreadCounts(const Program& program, const AbstractionSpec& spec,
                                     const StateStore& reached, std::uint32_t min_threads,
                                     unsigned timeout_ms, LimitWatch* limits = nullptr,
                                     const SolverLog* log = nullptr);

// The abstract successors of `abstract` under one action, computed as the closure test computes
// them (for a symmetric program, assuming every thread's view lies in `reached`), for `count`
// threads or, with `count` empty, for every count >= `min_threads`. Refinement tests its
// candidate predicates with it. False (and *why) when a query was undecided. `solver` (null: a
// new one) lends a solver context: making one costs more than a small query.
// Every way executing `statement` can fail: "the assertion fails or an index out of range" ("" when
// it cannot).
std::string HowItFails(const Program& program, const Statement& statement);

bool AbstractSuccessorsOf(const Program& program, const AbstractionSpec& spec,
                          std::optional<std::uint32_t> count, std::uint32_t min_threads,
                          const ActionClass& action, StateView abstract, const StateStore& reached,
                          unsigned timeout_ms, LimitWatch* limits, SolverStats* stats,
                          std::vector<std::vector<Word>>* out, std::string* why,
                          Solver* solver = nullptr);

// Whether some well-formed state has the abstraction `abstract` (for a symmetric program, with
// every thread's view in `reached`), asked as AbstractSuccessorsOf asks.
SatResult AbstractStateAdmitted(const Program& program, const AbstractionSpec& spec,
                                std::optional<std::uint32_t> count, std::uint32_t min_threads,
                                StateView abstract, const StateStore& reached, unsigned timeout_ms,
                                LimitWatch* limits, SolverStats* stats, Solver* solver = nullptr);

// Describes an abstract state of `spec` (shared by the report and --dump-abstract).
std::string DescribeAbstract(const Program& program, const AbstractionSpec& spec,
                             StateView abstract);

}  // namespace druba::predabs
