// The thread counts a `.drb` run covers, and the outer loop over them (the paper's Sec. 5.2): one
// count answers alone; for every count from N, the counts N, N+1, ... run in turn until two
// consecutive ones reach the same abstract set, which CheckAllThreadCounts (see its soundness
// argument in predabs/predicate_abstraction.h) then tests for closure across thread counts. `safe`
// for every count needs every run safe, the two sets equal and that closure; anything short of it
// is `unknown` with the reason.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "abstraction/verdict.h"
#include "explore/state_store.h"
#include "interp/program.h"
#include "predabs/predicate_abstraction.h"

namespace druba::predabs {

struct ThreadCounts {
  std::uint32_t first = 0;
  bool every_count_from_first = false;
  std::uint32_t last = 0;  // the largest count the loop runs (first, for one count)

  std::string Text() const { return std::to_string(first) + (every_count_from_first ? ".." : ""); }
};

// `text` is --threads: "" (the program's own count: N.. for `thread T * N..`), "N" or "N..";
// `max_threads` bounds the loop
// (at least first + 1, so that two counts are compared). Throws InputError at "--threads".
ThreadCounts ParseThreadCounts(const std::string& text, const Program& program,
                               std::uint32_t max_threads);

// The abstraction a run uses: one of the program's blocks, or the default made for it.
struct ChosenAbstraction {
  const AbstractionSpec* block = nullptr;  // into the program
  AbstractionSpec locations;               // the default, when `block` is null

  const AbstractionSpec& spec() const { return block != nullptr ? *block : locations; }
};

// The abstraction block named `name` (empty: the first). A program without one gets every
// thread's location, or thread 0's alone when every count is asked for. Throws InputError at
// "--abstraction" for an unknown name.
ChosenAbstraction ChooseAbstraction(const Program& program, const std::string& name,
                                    const ThreadCounts& counts);

// With the thread count left symbolic (--threads N..), count(...) can only be compared with a
// number of at most 8 (the encoding states "at least k threads" with k witnesses). Throws
// InputError at the first use in the program's statements or in `spec` that the encoding cannot
// state, when the file is read rather than after the per-count runs.
void CheckCountsForEveryCount(const Program& program, const AbstractionSpec& spec);

// What one thread count's run tells the loop. `abstract_states` must stay valid until the loop
// returns (the loop compares it with the next count's).
struct CountOutcome {
  Verdict verdict = Verdict::kUnknown;
  std::string reason;
  const StateStore* abstract_states = nullptr;
};

struct ThreadCountsResult {
  Verdict verdict = Verdict::kUnknown;
  std::string reason;
  std::optional<AllCountsResult> all;  // the closure test, when two counts' sets agreed
};

// Runs `run_one(n)` for the counts of `counts` as the header says.
// `log` (null: quiet) hears the closure test's solver queries.
ThreadCountsResult RunThreadCounts(const Program& program, const AbstractionSpec& spec,
                                   const ThreadCounts& counts, unsigned solver_timeout_ms,
                                   LimitWatch* limits, const SolverLog* log,
                                   const std::function<CountOutcome(std::uint32_t)>& run_one);

}  // namespace druba::predabs
