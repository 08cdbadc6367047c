// Houdini over candidate invariants of a program of one thread template (ordered_invariant.h,
// step 3): at a fixed thread count, or for every count from a first one at once, with thread ids
// the integers below a symbolic count (Encoder::Ordered).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/resources.h"
#include "drb/counting.h"
#include "drb/ordered.h"
#include "interp/model.h"
#include "interp/program.h"
#include "invariants/cube_candidates.h"
#include "smt/encoder.h"
#include "smt/solver.h"

namespace druba::predabs {

// Houdini::Grounded: rounds of instantiation, and the largest count whose models it checks.
constexpr int kGroundRounds = 3;
constexpr unsigned kGroundTimeoutMs = 2000;  // each of its queries
constexpr std::uint32_t kGroundCount = 8;
// Counterexamples to induction kept per Houdini run.
constexpr std::size_t kMaxCtis = 48;

// A counterexample to induction: the state a step starts from, and the blocking candidates
// (cube_candidates.h) that step broke.
struct Cti {
  ConcreteState state;
  std::vector<std::size_t> dropped;
};

class Houdini {
 public:
  // At `fixed` threads, or with `fixed` empty for every count >= `first`; `alive` marks the
  // candidates still in.
  // Candidates from `derived` on block counterexamples to induction (cube_candidates.h): where
  // one is dropped, or a failure is not excluded, the state the step starts from is kept (ctis()).
  // `work_limit` (0: none) bounds each query's solver work (Solver::SetWorkLimit), which ends it
  // undecided as a timeout would, but the same way on every run.
  Houdini(const Program& program, std::optional<std::uint32_t> fixed, std::uint32_t first,
          std::vector<bool> alive, std::size_t derived, unsigned timeout_ms, LimitWatch* limits,
          std::uint64_t work_limit = 0)
      : p_(program),
        solver_(MakeZ3Solver(timeout_ms)),
        s_(*solver_),
        enc_(program, s_),
        ids_(drb::IdHolders(program)),
        limits_(limits),
        alive_(std::move(alive)),
        derived_(derived) {
    s_.WatchLimits(limits);
    s_.SetWorkLimit(work_limit);
    count_ = fixed ? enc_.Fixed(*fixed) : enc_.Ordered(first, facts_);
    for (const Predicate& pred : p_.abstractions.back().predicates) {
      enc_.TrackCounts(*pred.expr);
      global_.push_back(!drb::NamesSelf(*pred.expr));
      const Expr& e = *pred.expr;
      std::vector<const Expr*> ranks;
      drb::RankCounts(e, ranks);
      rank_.push_back(!fixed && global_.back() && e.kind == Expr::Kind::kForall && !ranks.empty());
      if (rank_.back() && alive_[rank_.size() - 1]) enc_.TrackRanks(e);
      own_.push_back(e.kind == Expr::Kind::kForall ? drb::OwnStatesOnly(*e.args[0])
                                                   : drb::OwnStatesOnly(e));
    }
  }

  // Drops the candidates that fail in some initial state; false when undecided.
  bool Initial();
  // Drops candidates until a step of every statement from a state that satisfies them all keeps
  // them all. `*failure` names a statement that can still fail; with `failure` null, failures
  // are not asked about (the greatest inductive subset of the candidates). False when undecided.
  bool Steps(std::string* failure);
  // The threads a step of `stmt` by t from `pre` names (t, the ids the statement indexes by or
  // reads, the id-valued variables): the invariant is instantiated at them.
  std::vector<Term> NamedThreads(std::uint32_t stmt, const SymState& pre, Term t);

  std::vector<bool> alive() const { return alive_; }
  const std::vector<Cti>& ctis() const { return ctis_; }
  std::uint64_t queries() const { return queries_; }
  const std::string& undecided() const { return undecided_; }

 private:
  std::size_t Kept() const {
    return static_cast<std::size_t>(std::count(alive_.begin(), alive_.end(), true));
  }
  const Predicate& Candidate(std::size_t c) const { return p_.abstractions.back().predicates[c]; }

  // The state a step starts from, which satisfies the candidates left, and the threads the step
  // names (the one that moves, those it reads or writes the entries of).
  struct Hypothesis {
    const SymState* pre = nullptr;
    std::vector<Term> threads;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> pairs;  // and these pairs of threads
  };
  // Whether `goal` can hold in `context` (whose entry `invariant_at` is the invariant at the
  // pre-state): with a hypothesis at every count, first with the invariant instantiated at the
  // hypothesis's threads (Grounded), then quantified. Unknown at a limit or an undecided query.
  SatResult Ask(const std::vector<Term>& context, std::size_t invariant_at, Hypothesis* hyp,
                Term goal);

  // The candidates left that name `self`, at viewer k and (those over pairs) thread j; the ones
  // over one thread only with `first_j`.
  Term PairInvariant(const SymState& s, Term k, Term j, bool first_j);

  // Asks `context`, whose entry `at` is the invariant over the state hyp.pre, with the invariant
  // at the pairs of hyp.threads only. Unsatisfiable so: unsatisfiable (those instances are
  // implied). A model of it whose count is small and that satisfies the invariant at every pair
  // of its threads is a model of the whole query: kSat, the model kept. Otherwise the pairs it
  // breaks join the instances and it asks again, a few times; then kUnknown (ask with the
  // quantifier). Model-based instantiation, done here where the threads are integers.
  SatResult Grounded(std::vector<Term> context, std::size_t at, Hypothesis& hyp);

  // Every thread satisfies every candidate left: one quantifier over pairs of threads (k, j),
  // expanded at a fixed count; with `at`, only at the pairs of its threads and its pairs of
  // numbered threads (weaker: a query that is unsatisfiable with it is with the whole invariant).
  Term Invariant(const SymState& s, const Hypothesis* at = nullptr);

  // With `context`: drops every candidate some thread of `s` can fail, asking until none can;
  // `failed` (when given) is asked for beside them, and sets failed_ when it can hold. With the
  // count symbolic each query is asked alone (Solver::CheckAlone): the solver's incremental mode
  // handles these quantifiers far worse; at a fixed count, CheckScoped.
  // `mover`: the thread that stepped, when it wrote no other thread's entry.
  // `hyp`: the invariant holds in the state the step starts from; where the count is symbolic, each
  // query is first asked with it instantiated at the threads of the step and of the break, and
  // with the quantified invariant only where that one is satisfiable.
  bool Prune(std::vector<Term> context, const SymState& s, std::optional<Term> failed,
             std::optional<Term> mover = std::nullopt, Hypothesis* hyp = nullptr);

  // At a fixed count (quantifiers expanded) the solver's incremental mode, pushed and popped, is
  // faster than a solver of the query's own: Lamport's fast mutex 34 s -> 19 s, Burns 3.7 ->
  // 2.1 s, Eisenberg-McGuire 45 -> 35 s (one run each).
  SatResult CheckScoped(const std::vector<Term>& all);

  // Drops the candidates the solver's last model breaks; whether there were any.
  bool DropBroken(const std::vector<std::pair<std::size_t, Term>>& breaks, const Hypothesis* hyp);
  // Where the last model breaks a candidate its evaluation could not name (a quantifier the model
  // does not decide): halves the candidates still alive in `breaks`, asking `ask` of the first
  // half, until a model names one, or one is left, which is dropped. Whether one was dropped;
  // none when a query was undecided.
  std::optional<bool> Halve(const std::vector<std::pair<std::size_t, Term>>& breaks,
                            const std::function<SatResult(Term)>& ask, Hypothesis* hyp);

  // Keeps the state the step of `hyp` starts from in the solver's last model, where that model
  // has a known number of threads (a fixed count, or a ground query's).
  // `always`: past kMaxCtis too (the failure's).
  void Capture(const Hypothesis* hyp, std::vector<std::size_t> dropped, bool always = false);

  // `forall j: body` (`forall j != self: body`) at viewer k for thread j: its body there (true
  // where j is k and the quantifier leaves the viewer out).
  Term Pair(const Expr& e, const SymState& s, Term k, Term j);

  // Some thread (and for a candidate over pairs, some thread j) of `s` falsifies candidate c;
  // with `mover`, one of them is that thread. A rank candidate: some level (a new one of
  // levels_, with the one below it) falsifies it.
  Term Break(std::size_t c, const SymState& s, Term v, Term w, std::optional<Term> mover);

  // Where candidates count threads by rank (drb::RankParameter, `forall j: count(i: lv[i] > j)
  // <= count(i: true) - j`), a query states the counts at the levels it names only: the last
  // level below the count, those its breaks name, and the numbers the model checks of Grounded
  // add. The rank candidates hold at those levels in the state a step starts from.
  struct Levels {
    std::vector<Term> at;
    std::function<Term(Term)> facts;      // the encoder's facts at one level
    std::vector<const SymState*> states;  // those whose counts a model must get right
    std::vector<Term> mover;  // where the mover's terms can change (Encoder::RankThresholds)
  };
  // The reads in `body` of an id-holding variable at another thread's entry (`victim[lv]`), whose
  // index names no quantifier's variable.
  std::vector<const Expr*> IdReads(const std::vector<Instr>& body) const;
  // The levels every query of a step names (Break adds its own): the last below the count, and
  // those where the mover's terms can change with one below each (levels_.mover).
  void NameLevels();
  // Every level's facts, and in each state RankExact up to kGroundCount threads.
  Term LevelFacts();
  // `invariant` and, where ranks are tracked, LevelFacts(): the query unchanged without them.
  Term WithLevels(Term invariant);
  // In the solver's model of `threads` threads: whether the rank candidates hold in `pre` at
  // every level below the count, with the counts its threads give; the levels where not join
  // levels_.
  bool RanksHold(const SymState& pre, std::uint32_t threads);

  const Program& p_;
  std::unique_ptr<Solver> solver_;
  Solver& s_;
  Encoder enc_;
  drb::IdVariables ids_;  // the variables that hold thread ids
  LimitWatch* limits_;
  std::vector<Term> facts_;
  ThreadCount count_;
  std::vector<bool> alive_;
  std::vector<bool> global_;  // names no `self`
  std::vector<bool> rank_;    // `forall j: ...` over a rank count, the count symbolic
  Levels levels_;
  // Reads the own states (locations, per-thread variables) of `self` and the pair's other thread
  // only: a step of a thread that writes no other thread's entry breaks it only where that
  // thread is one of them.
  std::vector<bool> own_;
  std::size_t derived_;  // candidates from here on block counterexamples to induction
  std::vector<Cti> ctis_;
  std::optional<std::uint32_t> model_threads_;   // the last model's thread count, where known
  std::optional<std::uint32_t> ground_threads_;  // the last ground query's
  bool failed_ = false;
  std::uint64_t queries_ = 0;
  std::string undecided_;
};

}  // namespace druba::predabs
