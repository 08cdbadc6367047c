// Abstraction refinement for `.drb` programs (docs/drb.md, "Refinement"): when the closure test
// fails at a break (a reached abstract state a, an action, an unreached abstract successor b),
// either b is reachable or the abstraction is too coarse at a. The refiner adds one or two
// predicates that make the step from a to b impossible in the states the abstraction admits, and
// the caller verifies again with the finer abstraction.
//
// Candidates come from the program text, in this order:
//  1. the atoms of every condition (assume, assert, if, while), a disequality as the equality and
//     `a >= b` as `a < b` (a predicate and its negation split the states alike);
//  2. every Boolean variable, every integer variable equal to its initial value, every pair of
//     integer variables compared (==, < both ways), and for every element of a fixed-size array
//     the code picks at run time, its index inside the array (`0 <= e && e < N`);
//  3. for a program of one thread template, the forms over the other threads: for every label L
//     `forall i != self: pc[i] != L`; for every atom q of 1 and 2 on the thread's own locals, q of
//     every thread (`forall i: q[i]`) and of every other thread that has given its locals a value
//     (`forall i != self: pc[i] == D || q[i]` and `... || !q[i]`, D the statements that assign
//     those locals before reading them); every other thread's assertion where it is made (under
//     its branch); every atom of 1 and 2 relating a local to shared state, of every other
//     thread at each location where the local is live (`forall i != self: pc[i] != L || q[i]`);
//     and for every integer local y, that no other such thread holds the same value
//     (`forall i != self: pc[i] == D || y != y[i]`).
// At each break, the preconditions of the current predicates and of the assertions through the
// breaking statement join them (refine/preconditions.h).
// A candidate is kept when it parses and type checks (and, for every thread count, is symmetric).
//
// Choosing: the concrete states the round stored are grouped by their abstract state; a
// candidate's score is the number of groups in which it takes both values. The moves are single
// candidates, pairs and (at most kMaxTriples) triples with a score sum of at most kPairScore, in
// score order; a move removes the break when, for each value combination its predicates take in
// the stored states at a, no step of the action from a reaches b, asked of the solver exactly as
// the closure test asks, with the same view invariant (without stored states at a: some combination
// admitted by a well-formed state blocks every step to b). The first move that removes the break is
// taken.
//
// Search: whether the part of a the move keeps is reachable is for the next round to find out.
// When no move removes a break, Backtrack drops the last move and bans it at its depth: a
// depth-first search, bounded by kMaxRefinements predicates and a number of rounds. Soundness does
// not depend on the choice: each round is a complete run of the paper's algorithm with a (finer)
// abstraction.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <absl/container/flat_hash_map.h>
#include <absl/container/flat_hash_set.h>

#include "abstraction/abstraction.h"
#include "common/resources.h"
#include "explore/state_store.h"
#include "interp/program.h"
#include "predabs/predicate_abstraction.h"
#include "smt/solver.h"

namespace druba::predabs {

// The candidate predicates of `program` as source text, in the order above, each once (some may
// not parse or type check: the refiner keeps those that do, and for every thread count only the
// symmetric ones).
std::vector<std::string> CandidatePredicates(const Program& program);

// `spec` written as an abstraction block named `name` that parses back to it.
std::string AbstractionBlock(const Program& program, const AbstractionSpec& spec,
                             const std::string& name);

struct RefineFigures {
  std::uint32_t rounds = 1;                 // verification rounds, the first included
  std::size_t candidates = 0;               // candidates that parse and type check
  std::size_t horn_candidates = 0;          // of those, from the Horn solver's invariant
  std::size_t precondition_candidates = 0;  // of those, preconditions at a break
  std::size_t too_deep = 0;  // predicates whose preconditions lay too deep (kMaxPreconditionDepth)
  std::uint64_t tested = 0;  // candidate tests run
  SolverStats stats;         // the solver work of those tests
  std::vector<std::string> added;        // the predicates added, in order
  std::uint32_t backtracks = 0;          // predicates dropped again at a dead end
  std::string stopped;                   // why refinement stopped short of a proof
  std::vector<std::string> round_notes;  // per refinement: the break and the predicate chosen
  // The Round-Robin searches of the rounds after the first: their successor calls, and the
  // states they took on from the round before without one (--reuse-search).
  std::uint64_t search_calls = 0;
  std::uint64_t replayed_states = 0;
};

// Bounds on the search (documented in docs/drb.md).
inline constexpr std::size_t kMaxRefinements = 16;
inline constexpr std::size_t kMaxCandidates = 200;
inline constexpr std::uint32_t kMaxRounds = 64;
inline constexpr std::size_t kWeighedStates = 1 << 14;  // sampled states that weigh candidates
inline constexpr std::uint32_t kPairScore = 2;          // pairs are tried up to this score
inline constexpr std::size_t kMaxTriples = 64;          // triples, up to the same score
// A precondition of a precondition of ... is a candidate up to this depth: deeper, the chain is
// a loop unrolled one step at a time (`x + 1 == K`, `x + 1 + 1 == K`, ... through `x := x + 1`),
// which never ends; refinement then meets a dead end, and the every-count route may go on to the
// invariants from finite instances (strategy/verify.cc).
inline constexpr std::uint32_t kMaxPreconditionDepth = 3;
inline constexpr std::size_t kMaxMoves = 2000;  // moves tried at one break
// The solver's work (Z3's resource units, about 2 million a second) the candidate tests at one
// break may spend: a break is a dead end when none of the moves tried within it removes the break.
// The bundled models' breaks that were removed took at most 4.8 million; a dead end of
// models/refcount.drb took 56 million (deterministic, unlike a time limit).
inline constexpr std::uint64_t kMaxBreakWork = 16'000'000;
inline constexpr std::size_t kMaxGroup =
    8;  // the Horn solver's atoms are tried together up to this
// A candidate test's solver query that takes longer counts as "does not remove the break".
inline constexpr unsigned kTestTimeoutMs = 1000;

class Refiner {
 public:
  // `source` is the text `program` was parsed from; `start` is the abstraction of the first round
  // (a block of `program` or the default one).
  // The search ends after `max_rounds` verification rounds (counted by CountRound). `log`, when
  // given, receives a line per candidate, break, choice and dead end (the library prints nothing).
  // `first` are candidates that go before the program text's (the atoms of a Horn solver's
  // invariant, invariants/horn.h).
  Refiner(std::string source, const Program& program, const AbstractionSpec& start,
          bool every_count, unsigned timeout_ms, std::uint32_t max_rounds = kMaxRounds,
          const SolverLog* log = nullptr, const std::vector<std::string>& first = {});
  ~Refiner();
  Refiner(const Refiner&) = delete;
  Refiner& operator=(const Refiner&) = delete;
  // Movable: what it points to is the caller's or on the heap (owned_).
  Refiner(Refiner&&) = default;
  Refiner& operator=(Refiner&&) = delete;

  // The program and abstraction of the current round (the first round's are the caller's).
  const Program& program() const { return *program_; }
  const AbstractionSpec& spec() const { return *spec_; }

  // What a round that ended `unknown` leaves for refinement: its closure break, the abstract set
  // it was found with, at `count` threads (empty: the count symbolic, from `min_threads`), and
  // concrete states of a `sample_threads`-thread run, one after another (may be null).
  struct Break {
    const ClosureFailure& failure;
    const StateStore& reached;
    std::optional<std::uint32_t> count;
    std::uint32_t min_threads = 0;
    const std::vector<Word>* sample = nullptr;
    std::uint32_t sample_threads = 0;
  };
  // Adds a candidate that removes the break and returns true, or returns false with
  // figures().stopped saying why.
  bool Refine(const Break& at, LimitWatch* limits);

  // After Refine found no candidate: drops the predicate added last and bans it at its place, so
  // that the next round (with the shorter list, which meets the same break) tries the next
  // candidate there: a depth-first search over the candidates, within kMaxRounds rounds. False
  // when nothing is left to drop.
  bool Backtrack();

  // The current abstraction as a block to paste into the model.
  std::string Block() const;
  const RefineFigures& figures() const { return figures_; }
  // Records that another round ran.
  void CountRound() { ++figures_.rounds; }
  void CountSearch(std::uint64_t calls, std::uint64_t replayed) {
    figures_.search_calls += calls;
    figures_.replayed_states += replayed;
  }

 private:
  // The source with `predicates` (lines after the current ones) appended as one block; null when
  // it does not parse.
  std::unique_ptr<Program> WithPredicates(const std::vector<std::string>& extra) const;
  // The sampled concrete states (at most kWeighedStates), each with its class under the current
  // abstraction and whether that class is the break's `from`.
  struct Weights {
    std::vector<std::vector<Word>> states;
    std::vector<std::uint32_t> group;
    std::vector<bool> at_from;
    std::size_t num_groups = 0;
  };
  // Candidates (indices into pool_) added together, and their score (see Scores).
  struct Move {
    std::vector<std::size_t> picks;
    std::uint32_t score = 0;
  };
  Weights Weigh(const Break& at) const;
  std::vector<Word> ValuesOn(const Program& candidate, const Weights& weights,
                             std::uint32_t threads) const;
  // The moves to try at `depth`, in order: the groups (GroupMoves), then the singles, pairs and
  // triples by score (SmallMoves).
  std::vector<Move> Moves(const Weights& weights, const std::vector<std::vector<Word>>& values,
                          std::size_t depth) const;
  // Each candidate's score: in how many of the current abstraction's classes of sampled states it
  // takes both values.
  std::vector<std::uint32_t> Scores(const Weights& weights,
                                    const std::vector<std::vector<Word>>& values) const;
  // Singles, pairs and triples of the `open` candidates (usable and not taken), lowest score first.
  static std::vector<Move> SmallMoves(const std::vector<std::uint32_t>& score,
                                      const std::vector<bool>& open);
  // The Horn solver's atoms all at once, and the counting atoms with the Boolean variables,
  // put before `moves`.
  void GroupMoves(const std::vector<std::uint32_t>& score, const std::vector<bool>& open,
                  std::vector<Move>& moves) const;
  bool Taken(std::size_t candidate, std::size_t depth) const;
  bool TryMove(const Move& move, const Break& at, const Weights& weights,
               const std::vector<std::vector<Word>>& values, LimitWatch* limits);
  bool RemovesBreak(const Program& candidate, const Break& at,
                    const std::vector<std::vector<Word>>& combos, LimitWatch* limits);
  Solver* Shared();
  void Log(const std::string& line) const;
  // Adds `text` to the pool when it parses, fits and is new; returns whether it did.
  // `generation`: how many preconditions deep it lies below a predicate of the program's text.
  bool AddCandidate(const std::string& text, std::uint32_t generation = 0);
  // Adds the preconditions of the current predicates and of the assertions through the break's
  // statement (refine/preconditions.h), up to kMaxPreconditionPaths of them.
  void AddPreconditions(const Break& at);

  std::string source_;
  std::string name_;
  unsigned timeout_ms_;
  std::uint32_t max_rounds_;
  std::vector<std::string> pcs_;            // "track ...;" lines
  std::vector<std::string> lines_;          // "predicate ...;" lines
  std::vector<std::string> pool_;           // the candidates, in order
  absl::flat_hash_set<std::string> known_;  // the candidates and predicates, as the reader prints
  // Of those that are preconditions, how deep (AddCandidate), by the same text.
  absl::flat_hash_map<std::string, std::uint32_t> generation_;
  bool every_count_ = false;
  // Per depth of the search, the candidates that led to a dead end there.
  std::vector<absl::flat_hash_set<std::string>> banned_;
  bool stuck_ = false;              // the last Refine found no candidate
  std::vector<Move> moves_;         // the moves made, in order (the search's path)
  std::unique_ptr<Solver> solver_;  // one context for every candidate test
  std::unique_ptr<Program> owned_;  // the current round's program, after a refinement
  const Program* program_;
  const AbstractionSpec* spec_;
  RefineFigures figures_;
  const SolverLog* log_;           // null: quiet
  std::uint32_t fit_threads_ = 0;  // the thread count candidates must fit (0: any count)
};

}  // namespace druba::predabs
