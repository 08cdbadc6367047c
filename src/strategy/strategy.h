// How `druba verify` proves a `.drb` program (docs/drb.md): one round runs the paper's algorithm
// at every thread count the run covers with one abstraction (strategy/thread_counts.h), and when a
// round ends `unknown` at a closure break, refinement (refine/refine.h) adds predicates and runs
// another, until a round decides or the search is over. The front end reads the program, chooses
// the counts and the abstraction, and reports the round this returns; the tests call the same
// loop.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "common/resources.h"
#include "interp/program.h"
#include "invariants/horn.h"
#include "invariants/invariant.h"
#include "refine/refine.h"
#include "run/options.h"
#include "run/progress.h"
#include "run/run_count.h"
#include "smt/solver.h"
#include "strategy/options.h"
#include "strategy/thread_counts.h"

namespace druba::predabs {

// A `.drb` request: the kind-free options, the kind's own, and the program's text.
struct DrbRequest {
  const run::RunOptions& options;
  const DrbOptions& drb;
  const std::string& source;
  std::string digest;  // ContentDigest of `source` (certificates)
};

struct SearchCache;  // strategy/run_hooks.h

// One thread count's run of `program` with abstraction `spec` (`fixed_count`: not a run of
// `--threads N..`), as run::RunCount reports it, with the DrbKept the strategy reads.
using CountRunner =
    std::function<run::CountRun(const DrbRequest& request, const Program& program,
                                const AbstractionSpec& spec, std::uint32_t n, bool fixed_count)>;

// What the front end hands the strategy: sinks for debug lines and the progress line.
struct StrategyHooks {
  const SolverLog* solver_log = nullptr;  // every solver query and model (null: quiet)
  const SolverLog* refine_log = nullptr;  // refinement's candidates, breaks and choices
  run::ProgressSink progress;             // the progress line (empty: none)
  // The searches a round hands on to the next (Verify sets it for its rounds; null: none).
  SearchCache* cache = nullptr;
  // Runs a count in place of druba's own search (druba-mpi's distributed one; empty: druba's).
  // Such runs hand no search on to the next round.
  CountRunner run_count;
};

// What the Horn solver did in a run (it runs at most once, at one thread count).
struct HornFigures {
  HornResult result;
  // 2: the answer of a second, longer attempt after refinement ended unknown (the first's time
  // is in `first_seconds`).
  std::uint32_t attempt = 1;
  double first_seconds = 0;
  std::optional<InvariantCheck> check;  // when its invariant was checked as a proof
  bool proved = false;                  // the verdict is `safe` by that proof
};

// One verification round: every thread count the run covers, with one abstraction.
struct Round {
  std::vector<run::CountRun> runs;
  ThreadCountsResult counts;
  std::optional<HornFigures> horn;  // of the run, on the round reported
};

// One round of `program` with abstraction `spec`.
Round RunRound(const DrbRequest& request, const Program& program, const AbstractionSpec& spec,
               const ThreadCounts& threads, LimitWatch& limits, const StrategyHooks& hooks);

// What `verify` found: the round to report, and refinement's state when it ran.
struct Verified {
  Round round;
  std::optional<Refiner> refiner;  // set when refinement ran (its rounds and moves)
  // Refinement decided: the round is the refined one, and its program and abstraction are the
  // refiner's (else the round is the first, reported as it found an `unknown`, with the exact
  // search that went on).
  bool refined = false;

  const Program& program(const Program& given) const {
    return refined ? refiner->program() : given;
  }
  const AbstractionSpec& spec(const AbstractionSpec& given) const {
    return refined ? refiner->spec() : given;
  }
};

// `verify` (or `test`): the proof attempts in order. The first round with `chosen`; the Horn
// solver's invariant at one count; when the round ended `unknown` and refinement applies (--refine
// on, command verify, mode druba), refinement rounds; then the invariants from finite instances of
// an ordered program, and a second, longer Horn attempt.
Verified Verify(const DrbRequest& request, const Program& program, const ChosenAbstraction& chosen,
                const ThreadCounts& threads, LimitWatch& limits, const StrategyHooks& hooks);

}  // namespace druba::predabs
