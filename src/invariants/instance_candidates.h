// Candidate invariants read off finite instances (ordered_invariant.h, steps 1 and 2): the program
// is explored at a few thread counts, every state, and what no reached state contradicts, from
// any thread's view, becomes a candidate in `.drb` text.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/resources.h"
#include "interp/program.h"
#include "invariants/cube_candidates.h"

namespace druba::predabs {

struct OrderedFigures {
  struct Instance {
    std::uint32_t threads = 0;
    std::uint64_t states = 0;
    bool complete = false;  // every reachable state explored
    bool failed = false;    // a thread failed (the search stopped there)
  };
  std::vector<Instance> instances;
  std::uint64_t candidates = 0;       // read off the instances, and given
  std::uint64_t given = 0;            // of them, from the abstraction block
  std::uint64_t blocking = 0;         // of them, blocking counterexamples to induction
  std::uint64_t blocking_rounds = 0;  // Houdini runs again with new blocking candidates
  std::uint64_t own_states = 0;       // of them, the second stage's (OwnStateCandidates)
  std::uint64_t dropped = 0;          // by the symbolic checks
  std::uint64_t queries = 0;
  std::string undecided;  // the solver's reason, when a query was undecided
  // The fixed count where the candidates left did not exclude a failure (0: every count, or none).
  std::uint32_t failure_threads = 0;
  double seconds = 0;
};

// A location by its label, or none when it has no name a predicate can use.
std::optional<std::string> LabelOf(const Program& p, std::uint32_t pc);

// The template's locations: those a predicate can name (by label) one by one, and the others
// (statements without a label) as one group, "at none of the named ones".
struct Places {
  std::vector<std::uint32_t> named;
  std::vector<std::string> labels;
  std::vector<std::uint32_t> unnamed;
  std::string none_named;  // `pc[self] == a || ... || ` over the named ones
  std::string j, k, m;     // names for bound threads that no variable or label has
};
Places PlacesOf(const Program& p);

// `OP` such that `a OP b` holds exactly for the orders seen between a and b (bits: 1 below, 2
// equal, 4 above); "" for none or all.
inline constexpr const char* kOrderOps[8] = {"", "<", "==", "<=", ">", "!=", ">=", ""};
// How a compares with b, in those bits; whether orders seen leave one out (kOrderOps says it).
inline std::uint8_t Order(const Int& a, const Int& b) {
  return a < b ? 1 : a == b ? 2 : 4;
}
inline bool Informative(std::uint8_t seen) {
  return seen != 0 && seen != 7;
}

// States explored per finite instance at most.
inline constexpr std::uint64_t kOrderedInstanceStates = 400'000;

namespace instance_detail {
struct Observations;  // instance_observations.h
}  // namespace instance_detail
class RelationReader;    // pair_candidates.h
class RankReader;        // rank_candidates.h
class EntryReader;       // rank_candidates.h
class DifferenceReader;  // rank_candidates.h
class WeightReader;      // weight_candidates.h

class CandidateReader {
 public:
  explicit CandidateReader(const Program& program);  // one thread template
  ~CandidateReader();
  CandidateReader(const CandidateReader&) = delete;
  CandidateReader& operator=(const CandidateReader&) = delete;

  // Explores the program at `n` threads (up to `most` states) and records what its states show;
  // true when a thread failed (the search stops there).
  bool Explore(std::uint32_t n, LimitWatch* limits, OrderedFigures::Instance& figures,
               std::uint64_t most = kOrderedInstanceStates);

  // What no explored state contradicts, from any thread `self`'s view: which own states
  // (location and per-thread variables) two threads i < j never stand in together, which values
  // and bounds a variable keeps at a location, how an id-like one compares with `self` and the
  // thread count, and which atoms some other thread satisfies whenever a thread is in an own
  // state.
  std::vector<std::string> Candidates() const;
  // Counters as weighted counts of threads by location (weight_candidates.h), apart: they may
  // make a query the solver cannot decide, and Houdini then runs again without them.
  std::vector<std::string> WeightedCandidates() const;
  // Some rank candidate (rank_candidates.h) is among them.
  bool CountsByRank() const;
  // A second stage, for when Candidates() do not exclude a failure: the same, but with own states
  // of the locals that may be read again, those of many values left out (a backoff delay), and
  // which values a shared variable keeps while a thread is in one (`pc[self] != test ||
  // got[self] != 0 || lock == 1`; state_candidates.h). Read off the explored states again; not
  // the first stage because where that suffices, the own states it brings in only cost queries
  // (02_inc_cas's 291 candidates would become 875).
  // None when `limits` stop the reading.
  std::vector<std::string> OwnStateCandidates(LimitWatch* limits) const;

  // What the explored states showed to every pair of threads, for candidates that block
  // counterexamples to induction: recorded at the first call (most runs never need it), from the
  // explored states, which are kept.
  const CubeBlocker& Blocker();

  using Observations = instance_detail::Observations;  // what the explored states showed

 private:
  std::vector<std::string> Candidates(const Observations& seen) const;
  const Program& program_;
  std::unique_ptr<Observations> seen_;
  std::unique_ptr<RelationReader> relations_;      // per-pair arrays; numbers against counters
  std::unique_ptr<RankReader> ranks_;              // threads counted by rank
  std::unique_ptr<EntryReader> entries_;           // the thread an entry at an own index names
  std::unique_ptr<DifferenceReader> differences_;  // own numbers a constant apart
  std::unique_ptr<WeightReader> weights_;          // counters as weighted counts of threads
  CubeBlocker blocker_;
  bool blocked_ = false;  // blocker_ has recorded the explored states
  struct Explored;        // an instance's model and states, for Blocker() and OwnStateCandidates()
  std::vector<std::unique_ptr<Explored>> explored_;
};

}  // namespace druba::predabs
